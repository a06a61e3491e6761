// Round trip of `echo hi` through a ShellSession (marker-driven, no polling), per runtime, beside the reference
// implementations' method measured in the same run: Anthropic's computer-use bash tool (bash over pipes, append
// `; echo '<<exit>>'` and look for the sentinel in the buffer every 200 ms).
//
//   npx tsx bench/session.ts [--runs 1000] [--poll-runs 20] [--runtime node]
//
// Prints one JSON object. Other runtimes join by adding to `benchRuntimes` (e.g. the embedded runtime:
// `benchRuntimes.push({ name: "embedded", create: () => createEmbeddedRuntime() })`) or by importing
// `benchSession` and `benchPolling` from here.

import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { stats, type Stats } from "./stats.ts";
import { createEmbeddedRuntime } from "../src/runtime/embedded/index.ts";
import { createNodeRuntime } from "../src/runtime/node.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { createShellSession } from "../src/shell/session.ts";

export interface BenchRuntime {
  name: string;
  create: () => Promise<Runtime>;
}

/** The runtimes measured, in order. */
export const benchRuntimes: BenchRuntime[] = [
  { name: "node", create: () => createNodeRuntime() },
  { name: "embedded", create: () => createEmbeddedRuntime() },
];


/** `echo hi` through createShellSession on a runtime, after a warm-up; milliseconds per call. */
export async function benchSession(create: () => Promise<Runtime>, runs: number): Promise<Stats> {
  const runtime = await create();
  const session = await createShellSession(runtime);
  try {
    for (let i = 0; i < Math.min(50, runs); i++) await session.run("echo hi");
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const r = await session.run("echo hi");
      samples.push(performance.now() - t0);
      if (r.output !== "hi\n" || r.exitCode !== 0) throw new Error(`unexpected result: ${JSON.stringify(r)}`);
    }
    return stats(samples);
  } finally {
    await session.close();
    await runtime.dispose();
  }
}

/**
 * Anthropic's reference method (computer_use_demo/tools/bash.py): one /bin/bash over pipes; each command is sent as
 * `<command>; echo '<<exit>>'` and the output buffer is checked every 200 ms until the sentinel shows.
 */
export async function benchPolling(runs: number, delayMs = 200): Promise<Stats> {
  const bash = spawn("/bin/bash", [], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  bash.stdout.setEncoding("utf8");
  bash.stdout.on("data", (d: string) => {
    stdout += d;
  });
  bash.stderr.resume();
  const sentinel = "<<exit>>";
  const samples: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      bash.stdin.write(`echo hi; echo '${sentinel}'\n`);
      for (;;) {
        await new Promise((r) => setTimeout(r, delayMs));
        if (stdout.includes(sentinel)) break;
      }
      samples.push(performance.now() - t0);
      const output = stdout.slice(0, stdout.indexOf(sentinel));
      if (output !== "hi\n") throw new Error(`unexpected polling output: ${JSON.stringify(output)}`);
      stdout = "";
    }
  } finally {
    bash.kill("SIGKILL");
  }
  return stats(samples);
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const runs = Number(arg("runs") ?? 1000);
  const pollRuns = Number(arg("poll-runs") ?? 20);
  const only = arg("runtime");
  const results: Record<string, Stats | { error: string }> = {};
  for (const rt of benchRuntimes) {
    if (only !== undefined && rt.name !== only) continue;
    try {
      results[rt.name] = await benchSession(rt.create, runs);
    } catch (err) {
      results[rt.name] = { error: String(err) };
    }
  }
  const polling = await benchPolling(pollRuns);
  const node = results.node;
  const embedded = results.embedded;
  const ratio = node && "p50" in node ? Math.round((polling.p50 / node.p50) * 10) / 10 : null;
  const out = {
    command: "echo hi",
    unit: "ms",
    session: results,
    polling: {
      method: "Anthropic computer-use bash tool: bash over pipes, `; echo '<<exit>>'` sentinel, buffer checked every 200 ms",
      note: `${pollRuns} runs only: each takes at least one 200 ms poll`,
      ...polling,
    },
    ratioP50: ratio,
    ratioP50Embedded: embedded && "p50" in embedded ? Math.round((polling.p50 / embedded.p50) * 10) / 10 : null,
    goals: {
      ...(node && "p50" in node ? { "node p50 <= 3 ms": node.p50 <= 3, "node >= 50x faster than polling": (ratio ?? 0) >= 50 } : {}),
      ...(embedded && "p50" in embedded ? { "embedded p50 <= 2 ms": embedded.p50 <= 2, "embedded >= 50x faster than polling": polling.p50 / embedded.p50 >= 50 } : {}),
    },
  };
  console.log(JSON.stringify(out, null, 2));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
