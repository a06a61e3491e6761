// The Node-entry part of the API bench: `bash echo hi` through sandbox.callTool (tolerant arguments, guard, queue,
// shell, result formatting, audit log), p50/p99 over 500 calls per runtime, after a warm-up. Beside it, in the same
// round-robin, the layers underneath, so that each one's cost shows:
//   callToolRawJson  the same call with the arguments as a raw JSON string
//   session          the bare ShellSession round trip (no tools layer, guard or audit log)
//   (embedded only:)
//   line             the runtime's shell process: a line typed into it (bracketed paste, as the session types) to its
//                    prompt; the worker hop and the worker's line, no session
//   core             the worker's code (ShellCore) run in this thread: the line's own work with no hop at all
//   workerHop        the transport floor: a worker_threads round trip of a message the size of a line
//   floor            just-bash's own `exec("echo hi")` in this thread
//
//   npx tsx bench/api-node.ts [--runs 500] [--runtime node|embedded|all]
//
// Prints one JSON object.

import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Bash, InMemoryFs } from "just-bash/browser";
import { createEmbeddedRuntime } from "../src/runtime/embedded/index.ts";
import type { InitMessage, WorkerToHost } from "../src/runtime/embedded/protocol.ts";
import { ShellCore } from "../src/runtime/embedded/shell-core.ts";
import type { TerminalProcess } from "../src/runtime/types.ts";
import { createSandbox, type Sandbox } from "../src/node.ts";
import { stats, type Stats } from "./stats.ts";

/**
 * Runs the cases round-robin, in blocks (so that warm-up, GC and machine noise fall on all alike, while each case runs
 * warm: a worker thread idle while the other cases ran takes its wake-up first); milliseconds per call. Each block's
 * first call is not counted.
 */
async function measure(runs: number, cases: Record<string, () => Promise<void>>, block = 6): Promise<Record<string, Stats>> {
  const names = Object.keys(cases);
  for (let i = 0; i < Math.min(50, runs); i++) for (const n of names) await cases[n]!();
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i += block - 1) {
    for (const n of names) {
      await cases[n]!();
      for (let j = 1; j < block; j++) {
        const t0 = performance.now();
        await cases[n]!();
        samples[n]!.push(performance.now() - t0);
      }
    }
  }
  return Object.fromEntries(names.map((n) => [n, stats(samples[n]!)]));
}

/** just-bash's own `exec("echo hi")`, alone in a loop (no other work between calls): the floor at its lowest. */
export async function floorAlone(runs: number): Promise<Stats> {
  const bash = new Bash({ fs: new InMemoryFs() });
  return (await measure(runs, { floor: async () => void (await bash.exec("echo hi")) })).floor!;
}

/**
 * The same exec after the thread slept 1 ms before it, as every call's comes after its thread waited for the call
 * (a thread that slept runs the same code 1.5–4× slower: caches, and the CPU given meanwhile to others).
 */
export async function floorAfterSleep(runs: number): Promise<Stats> {
  const bash = new Bash({ fs: new InMemoryFs() });
  for (let i = 0; i < 300; i++) await bash.exec("echo hi");
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const t0 = performance.now();
    await bash.exec("echo hi");
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

const PROMPT = "\x1b]654;prompt\x07";
/** A line as the session types it: one bracketed paste and Enter. */
const PASTED_LINE = "\x1b[200~echo hi\x1b[201~\r";

function initMessage(): InitMessage {
  const dir = (path: string) => ({ path, kind: "dir" as const, mode: 0o755, mtime: Date.now() });
  return {
    t: "init", mode: "shell", nonce: "bench", workspace: "/home/project", fs: [dir("/home"), dir("/home/project"), dir("/tmp")], seq: 0,
    bounds: { bytes: 128 * 1024 * 1024, files: 20_000 }, cols: 80, rows: 24, cwd: "/home/project", env: {},
  };
}

/** The worker's code in this thread: a line to its end (the `data` message that says the shell is no longer busy). */
async function coreInThread(): Promise<() => Promise<void>> {
  let done: ((m: WorkerToHost) => void) | null = null;
  const core = new ShellCore((m) => done?.(m));
  const until = (send: () => void, end: (m: WorkerToHost) => boolean): Promise<void> =>
    new Promise((resolve) => {
      done = (m) => {
        if (end(m)) resolve();
      };
      send();
    });
  await until(() => core.handle(initMessage()), (m) => m.t === "data" && m.text.includes(PROMPT));
  return () => until(() => core.handle({ t: "input", data: PASTED_LINE }), (m) => m.t === "data" && m.busy === false);
}

/** A line typed into a shell process of the runtime, to its prompt. */
function lineThrough(proc: TerminalProcess): () => Promise<void> {
  let seen = "";
  let done: (() => void) | null = null;
  proc.onData((chunk) => {
    seen += chunk;
    if (seen.includes(PROMPT)) {
      seen = "";
      done?.();
    }
  });
  return () =>
    new Promise((resolve) => {
      done = resolve;
      proc.write(PASTED_LINE);
    });
}

/** The transport floor: a worker_threads worker that sends every message straight back. */
function echoWorker(): { trip: () => Promise<void>; close: () => Promise<number> } {
  const worker = new Worker('require("node:worker_threads").parentPort.on("message", (m) => require("node:worker_threads").parentPort.postMessage(m));', { eval: true });
  return {
    trip: () =>
      new Promise((resolve) => {
        worker.once("message", () => resolve());
        worker.postMessage({ t: "input", data: PASTED_LINE });
      }),
    close: () => worker.terminate(),
  };
}

export async function benchApiNode(kind: "node" | "embedded", runs: number): Promise<Record<string, Stats>> {
  const sb: Sandbox = await createSandbox({ runtime: kind, approver: "deny" });
  const bash = new Bash({ fs: new InMemoryFs() });
  const echo = kind === "embedded" ? echoWorker() : null;
  // a second shell of the same runtime, driven below the session
  const proc = kind === "embedded" ? await sb.runtime.spawnShell({ cols: 80, rows: 24 }) : null;
  try {
    const check = (text: string): void => {
      if (!text.startsWith("hi\n")) throw new Error(`unexpected result: ${JSON.stringify(text.slice(0, 200))}`);
    };
    const layers: Record<string, () => Promise<void>> = {};
    if (kind === "embedded") {
      const line = lineThrough(proc!);
      await new Promise<void>((resolve) => {
        const off = proc!.onData((chunk) => {
          if (chunk.includes(PROMPT)) {
            off();
            resolve();
          }
        });
      });
      layers.line = line;
      layers.core = await coreInThread();
      layers.workerHop = echo!.trip;
      layers.floor = async () => {
        if ((await bash.exec("echo hi")).stdout !== "hi\n") throw new Error("unexpected floor output");
      };
    }
    return await measure(runs, {
      callTool: async () => check((await sb.callTool("bash", { command: "echo hi" })).content[0]!.text),
      callToolRawJson: async () => check((await sb.callTool("bash", '{"command": "echo hi"}')).content[0]!.text),
      session: async () => check((await sb.session.run("echo hi")).output),
      ...layers,
    });
  } finally {
    proc?.kill();
    await echo?.close();
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
