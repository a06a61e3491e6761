// Heap in use after a forced full GC, for the conformance suite's memory bounds (Node only).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export function heapUsedAfterGc(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
