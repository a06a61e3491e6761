// An experiment, not a mode of the product: the embedded interpreter in the caller's thread. The runtime's worker is
// replaced by a ShellCore in this thread (messages delivered on the next turn of the event loop, as a port would), so
// the call has no thread to wake and no hop; what it cannot do is stop a CPU-bound command, which would hold this
// thread. Measured in one round-robin beside the usual worker and the floor (just-bash's own exec("echo hi")):
//
//   npx tsx bench/api-inline.ts [--runs 1000]
//
// Prints one JSON object: p50/p99/min per case in ms, and each case's p50 as a multiple of the floor's.

import { Bash, InMemoryFs } from "just-bash/browser";
import { createSandbox } from "../src/node.ts";
import type { HostToWorker, WorkerToHost } from "../src/runtime/embedded/protocol.ts";
import { ShellCore } from "../src/runtime/embedded/shell-core.ts";
import type { WorkerHandle } from "../src/runtime/embedded/transport.ts";
import { stats, type Stats } from "./stats.ts";

/** A "worker" that is this thread: the same ShellCore, its messages on the next turn of the event loop. */
function inThisThread(): WorkerHandle {
  const listeners: Array<(m: WorkerToHost) => void> = [];
  let core: ShellCore | null = null;
  const toPage = (m: WorkerToHost): void => void setImmediate(() => listeners.forEach((l) => l(m)));
  core = new ShellCore(toPage);
  toPage({ t: "booted", programs: ShellCore.programs() });
  return {
    post: (m: HostToWorker) => void setImmediate(() => core?.handle(m)),
    onMessage: (l) => void listeners.push(l),
    onError: () => undefined,
    terminate: () => {
      core = null;
    },
  };
}

const i = process.argv.indexOf("--runs");
const runs = i === -1 ? 1000 : Number(process.argv[i + 1]);
const worker = await createSandbox({ runtime: "embedded", approver: "deny" });
const inline = await createSandbox({ runtime: "embedded", approver: "deny", runtimeOptions: { embedded: { workerFactory: inThisThread } } });
const bash = new Bash({ fs: new InMemoryFs() });
const expectHi = (text: string | undefined): void => {
  if (!text?.startsWith("hi\n")) throw new Error(`unexpected result: ${JSON.stringify(text?.slice(0, 200))}`);
};
const cases: Record<string, () => Promise<void>> = {
  worker: async () => expectHi((await worker.callTool("bash", { command: "echo hi" })).content[0]?.text),
  inline: async () => expectHi((await inline.callTool("bash", { command: "echo hi" })).content[0]?.text),
  inlineSession: async () => expectHi((await inline.session.run("echo hi")).output),
  floor: async () => expectHi((await bash.exec("echo hi")).stdout),
};
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let k = 0; k < 50; k++) for (const run of Object.values(cases)) await run();
// Blocks of 6 per case, round-robin; each block's first call is not counted (as bench/api-node.ts does).
for (let k = 0; k < runs; k += 5) {
  for (const [name, run] of Object.entries(cases)) {
    await run();
    for (let j = 0; j < 5; j++) {
      const t0 = performance.now();
      await run();
      samples[name]!.push(performance.now() - t0);
    }
  }
}
const out: Record<string, Stats & { timesFloor?: number }> = Object.fromEntries(Object.entries(samples).map(([n, v]) => [n, stats(v)]));
for (const n of Object.keys(out)) if (n !== "floor") out[n]!.timesFloor = Math.round((out[n]!.p50 / out.floor!.p50) * 10) / 10;
console.log(JSON.stringify({ bench: "api-inline", runs, ...out }, null, 2));
await worker.close();
await inline.close();
process.exit(0);
