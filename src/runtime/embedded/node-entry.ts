// The embedded shell's worker entry in Node (worker_threads), loaded by node-worker.mjs. Same core as the browser's.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort } from "node:worker_threads";
import type { HostToWorker } from "./protocol.ts";
import { ShellCore } from "./shell-core.ts";

const port = parentPort;
if (port === null) throw new Error("node-entry.ts must run in a worker thread");
/**
 * The worker's heap after a full GC, and its ArrayBuffers (file contents), for `memory` requests. V8 frees the memory
 * of dead ArrayBuffers a moment after the GC that finds them, hence the second GC after a pause.
 */
async function measure(): Promise<{ heapUsed: number; external: number }> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external };
}

const core = new ShellCore((message, transfer) => port.postMessage(message, transfer ?? []), measure);
port.on("message", (message: HostToWorker) => core.handle(message));
port.postMessage({ t: "booted", programs: ShellCore.programs() });
