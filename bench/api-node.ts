// The Node-entry part of the API bench: `bash echo hi` through sandbox.callTool (tolerant arguments, guard, queue,
// shell, result formatting, audit log), p50/p99 over 500 calls per runtime, after a warm-up. Beside it, the same call
// with the arguments as a raw JSON string, the bare ShellSession round trip underneath, and (embedded) the floor:
// just-bash's own `exec("echo hi")` in this thread, in the same round-robin, so that each layer's cost shows.
//
//   npx tsx bench/api-node.ts [--runs 500] [--runtime node|embedded|all]
//
// Prints one JSON object.

import { pathToFileURL } from "node:url";
import { Bash, InMemoryFs } from "just-bash/browser";
import { createEmbeddedRuntime } from "../src/runtime/embedded/index.ts";
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

/** just-bash's own `exec("echo hi")`, alone in a loop (no other work between calls): the floor at its lowest. */
export async function floorAlone(runs: number): Promise<Stats> {
  const bash = new Bash({ fs: new InMemoryFs() });
  return (await measure(runs, { floor: async () => void (await bash.exec("echo hi")) })).floor!;
}

export async function benchApiNode(kind: "node" | "embedded", runs: number): Promise<Record<string, Stats>> {
  const sb: Sandbox = await createSandbox({ runtime: kind, approver: "deny" });
  const bash = new Bash({ fs: new InMemoryFs() });
  try {
    const check = (text: string): void => {
      if (!text.startsWith("hi\n")) throw new Error(`unexpected result: ${JSON.stringify(text.slice(0, 200))}`);
    };
    return await measure(runs, {
      callTool: async () => check((await sb.callTool("bash", { command: "echo hi" })).content[0]!.text),
      callToolRawJson: async () => check((await sb.callTool("bash", '{"command": "echo hi"}')).content[0]!.text),
      session: async () => check((await sb.session.run("echo hi")).output),
      ...(kind === "embedded"
        ? {
            floor: async () => {
              if ((await bash.exec("echo hi")).stdout !== "hi\n") throw new Error("unexpected floor output");
            },
          }
        : {}),
    });
  } finally {
    await sb.close();
  }
}

/** The embedded runtime's first prompt in Node: from creating the runtime (its first worker) to the shell's prompt. */
export async function firstPromptNode(times: number): Promise<{ runs: number; medianMs: number; samplesMs: number[] }> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    const runtime = await createEmbeddedRuntime();
    const shell = await runtime.spawnShell({ cols: 80, rows: 24 });
    await new Promise<void>((resolve) => {
      let seen = "";
      shell.onData((d) => {
        seen += d;
        if (seen.includes("\x1b]654;prompt\x07")) resolve();
      });
    });
    samples.push(Math.round((performance.now() - t0) * 10) / 10);
    shell.kill();
    await runtime.dispose();
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return { runs: times, medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN, samplesMs: samples };
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
