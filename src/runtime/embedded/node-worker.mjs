// Bootstrap of a Node worker thread for the embedded shell. Node cannot load TypeScript itself: when the entry is a
// .ts file (tests, tsx), tsx's loader is registered in this thread first. A build that compiles the sources passes a
// .js entry and no loader is needed.
import { workerData } from "node:worker_threads";

if (workerData && workerData.tsx) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.entry);
