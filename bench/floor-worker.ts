// The floor of bench/api in Chromium: just-bash's own `exec("echo hi")`, in a module Web Worker as the embedded
// runtime runs it, with nothing of ours around it. Bundled by bench/api.ts (esbuild) and started by the host page.
// A page that is not cross-origin isolated reads its clock in steps of 0.1 ms, so there each sample is the mean of a
// batch (`batch`, default 10) run back to back; a cross-origin isolated page (a 5 µs clock) can time single execs.
// `sleepMs`: before each sample the worker sleeps that long, as it does between two calls (its thread idle).

import { Bash, InMemoryFs } from "just-bash/browser";

interface Scope {
  onmessage: ((event: MessageEvent<{ runs: number; warmup: number; batch?: number; sleepMs?: number }>) => void) | null;
  postMessage(message: number[]): void;
}

const scope = self as unknown as Scope;
const bash = new Bash({ fs: new InMemoryFs() });
scope.onmessage = async (event) => {
  const { runs, warmup, batch = 10, sleepMs = 0 } = event.data;
  for (let i = 0; i < warmup; i++) await bash.exec("echo hi");
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, sleepMs));
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) {
      const r = await bash.exec("echo hi");
      if (r.stdout !== "hi\n") throw new Error(`unexpected output: ${r.stdout}`);
    }
    samples.push((performance.now() - t0) / batch);
  }
  scope.postMessage(samples);
};
