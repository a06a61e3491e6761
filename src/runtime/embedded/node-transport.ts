// A worker_threads Worker running node-entry (through node-worker.mjs, which registers tsx when the sources are
// TypeScript).

import { Worker } from "node:worker_threads";
import type { HostToWorker, WorkerToHost } from "./protocol.ts";
import type { WorkerFactory, WorkerHandle } from "./transport.ts";

export function nodeWorkerFactory(): WorkerFactory {
  const ts = import.meta.url.endsWith(".ts");
  const entry = new URL(ts ? "./node-entry.ts" : "./node-entry.js", import.meta.url).href;
  const boot = new URL("./node-worker.mjs", import.meta.url);
  return (): WorkerHandle => {
    const worker = new Worker(boot, { workerData: { entry, tsx: ts }, name: "sandshell-embedded" });
    worker.unref();
    return {
      post: (message: HostToWorker, transfer?: ArrayBuffer[]) => worker.postMessage(message, transfer ?? []),
      onMessage: (listener) => worker.on("message", (m: WorkerToHost) => listener(m)),
      onError: (listener) => worker.on("error", (err: Error) => listener(err)),
      terminate: () => void worker.terminate(),
    };
  };
}
