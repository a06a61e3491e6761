// How the page reaches a worker: a module Web Worker in the browser, a worker_threads Worker in Node. Both run the
// same ShellCore; only the message plumbing differs.

import type { HostToWorker, WorkerToHost } from "./protocol.ts";

export interface WorkerHandle {
  /** Sends a message; the buffers in `transfer` move with it (the sender must not use them again). */
  post(message: HostToWorker, transfer?: ArrayBuffer[]): void;
  onMessage(listener: (message: WorkerToHost) => void): void;
  /** The worker failed to load or threw outside the core. */
  onError(listener: (error: Error) => void): void;
  /** Ends the worker at once, whatever it is doing (a CPU-bound loop included). */
  terminate(): void;
}

export type WorkerFactory = () => WorkerHandle;

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === "string" && typeof (globalThis as { Worker?: unknown }).Worker === "undefined";
}

/** The factory for where this code runs. */
export async function defaultWorkerFactory(): Promise<WorkerFactory> {
  if (isNode()) {
    // kept out of the browser bundle: the specifier is computed, so bundlers do not follow it
    const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
    const url = new URL(`./node-transport${ext}`, import.meta.url).href;
    const mod = (await import(/* @vite-ignore */ url)) as typeof import("./node-transport.ts");
    return mod.nodeWorkerFactory();
  }
  const mod = await import("./browser-transport.ts");
  return mod.browserWorkerFactory();
}
