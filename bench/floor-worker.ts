// The floor of bench/api in Chromium: just-bash's own `exec("echo hi")`, in a module Web Worker as the embedded
// runtime runs it, with nothing of ours around it. Bundled by bench/api.ts (esbuild) and started by the host page.
// A page that is not cross-origin isolated reads its clock in steps of 0.1 ms, so each sample is the mean of a batch.

import { Bash, InMemoryFs } from "just-bash/browser";

/** Execs per sample. */
const BATCH = 10;

interface Scope {
  onmessage: ((event: MessageEvent<{ runs: number; warmup: number }>) => void) | null;
  postMessage(message: number[]): void;
}

const scope = self as unknown as Scope;
const bash = new Bash({ fs: new InMemoryFs() });
scope.onmessage = async (event) => {
  const { runs, warmup } = event.data;
  for (let i = 0; i < warmup; i++) await bash.exec("echo hi");
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    for (let j = 0; j < BATCH; j++) {
      const r = await bash.exec("echo hi");
      if (r.stdout !== "hi\n") throw new Error(`unexpected output: ${r.stdout}`);
    }
    samples.push((performance.now() - t0) / BATCH);
  }
  scope.postMessage(samples);
};
