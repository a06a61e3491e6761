// The Node-entry part of issue 4's API bench: `bash echo hi` through sandbox.callTool (tolerant arguments, guard,
// queue, shell, result formatting, audit log), p50/p99 over 500 calls per runtime, after a warm-up. Beside it, the
// same call with the arguments as a raw JSON string, and the bare ShellSession round trip underneath, so that the
// tools layer's own cost shows.
//
//   npx tsx bench/api-node.ts [--runs 500] [--runtime node|embedded|all]
//
// Prints one JSON object.

import { pathToFileURL } from "node:url";
import { createSandbox, type Sandbox } from "../src/node.ts";
import { stats, type Stats } from "./stats.ts";


/** Runs the cases round-robin (so that warm-up, GC and machine noise fall on all alike); milliseconds per call. */
async function measure(runs: number, cases: Record<string, () => Promise<void>>): Promise<Record<string, Stats>> {
  const names = Object.keys(cases);
  for (let i = 0; i < Math.min(50, runs); i++) for (const n of names) await cases[n]!();
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i++) {
    for (const n of names) {
      const t0 = performance.now();
      await cases[n]!();
      samples[n]!.push(performance.now() - t0);
    }
  }
  return Object.fromEntries(names.map((n) => [n, stats(samples[n]!)]));
}

export async function benchApiNode(kind: "node" | "embedded", runs: number): Promise<Record<string, Stats>> {
  const sb: Sandbox = await createSandbox({ runtime: kind, approver: "deny" });
  try {
    const check = (text: string): void => {
      if (!text.startsWith("hi\n")) throw new Error(`unexpected result: ${JSON.stringify(text.slice(0, 200))}`);
    };
    return await measure(runs, {
      callTool: async () => check((await sb.callTool("bash", { command: "echo hi" })).content[0]!.text),
      callToolRawJson: async () => check((await sb.callTool("bash", '{"command": "echo hi"}')).content[0]!.text),
      session: async () => check((await sb.session.run("echo hi")).output),
    });
  } finally {
    await sb.close();
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const runs = Number(arg("runs") ?? 500);
  const which = arg("runtime") ?? "node";
  const kinds = which === "all" ? (["node", "embedded"] as const) : ([which] as Array<"node" | "embedded">);
  const out: Record<string, unknown> = { bench: "api-node", call: "bash echo hi through sandbox.callTool (Node entry)", runs };
  for (const kind of kinds) out[kind] = await benchApiNode(kind, runs);
  console.log(JSON.stringify(out, null, 2));
}
