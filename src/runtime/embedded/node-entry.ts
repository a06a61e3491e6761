// The embedded shell's worker entry in Node (worker_threads), loaded by node-worker.mjs. Same core as the browser's.

import { parentPort } from "node:worker_threads";
import type { HostToWorker } from "./protocol.ts";
import { ShellCore } from "./shell-core.ts";

const port = parentPort;
if (port === null) throw new Error("node-entry.ts must run in a worker thread");
const core = new ShellCore((message) => port.postMessage(message));
port.on("message", (message: HostToWorker) => core.handle(message));
port.postMessage({ t: "booted", programs: ShellCore.programs() });
