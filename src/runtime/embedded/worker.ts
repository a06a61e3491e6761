// The embedded shell's Web Worker entry (browser): `new Worker(new URL("./worker.ts", import.meta.url), { type: "module" })`.

import type { HostToWorker, WorkerToHost } from "./protocol.ts";
import { ShellCore } from "./shell-core.ts";

interface WorkerScope {
  postMessage(message: WorkerToHost, transfer: ArrayBuffer[]): void;
  onmessage: ((event: MessageEvent<HostToWorker>) => void) | null;
}

const scope = self as unknown as WorkerScope;
const core = new ShellCore((message, transfer) => scope.postMessage(message, transfer ?? []));
scope.onmessage = (event) => core.handle(event.data);
scope.postMessage({ t: "booted", programs: ShellCore.programs() }, []);
