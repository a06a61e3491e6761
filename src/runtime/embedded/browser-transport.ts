// A module Web Worker running worker.ts (vite bundles it from the `new Worker(new URL(…))` pattern).

import type { HostToWorker, WorkerToHost } from "./protocol.ts";
import type { WorkerFactory, WorkerHandle } from "./transport.ts";

export function browserWorkerFactory(): WorkerFactory {
  return (): WorkerHandle => {
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "sandshell-embedded" });
    return {
      post: (message: HostToWorker, transfer?: ArrayBuffer[]) => worker.postMessage(message, transfer ?? []),
      onMessage: (listener) => worker.addEventListener("message", (e: MessageEvent<WorkerToHost>) => listener(e.data)),
      onError: (listener) => {
        worker.addEventListener("error", (e: ErrorEvent) => listener(new Error(e.message || "the embedded shell's worker failed")));
        worker.addEventListener("messageerror", () => listener(new Error("a message from the embedded shell's worker could not be read")));
      },
      terminate: () => worker.terminate(),
    };
  };
}
