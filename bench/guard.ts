// bench/guard: createGuard time and check() p50/p99 over the NL2Bash corpus, in Node, as JSON.
// Goals (issue 2): init ≤ 50 ms, p50 ≤ 20 µs, p99 ≤ 200 µs.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createGuard } from "../src/guard/index.ts";

const corpus = fileURLToPath(new URL("../../shared/corpora/nl2bash/all.cm", import.meta.url));
if (!existsSync(corpus)) {
  console.error(`bench/guard needs ${corpus} (the NL2Bash corpus beside the project).`);
  process.exit(1);
}
const lines = readFileSync(corpus, "utf8").split("\n").filter((l) => l.trim() !== "");

const t0 = performance.now();
const guard = await createGuard();
const initMs = performance.now() - t0;

const PASSES = 5;
const times = new Float64Array(lines.length * PASSES);
let k = 0;
for (let pass = 0; pass < PASSES; pass++) {
  for (const line of lines) {
    const t = performance.now();
    guard.check(line);
    times[k++] = performance.now() - t;
  }
}
times.sort();
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]! * 1000;
const result = {
  bench: "guard",
  commands: lines.length,
  passes: PASSES,
  initMs: +initMs.toFixed(2),
  p50us: +at(0.5).toFixed(2),
  p99us: +at(0.99).toFixed(2),
  maxUs: +at(1).toFixed(2),
  goals: { initMs: 50, p50us: 20, p99us: 200 },
};
console.log(JSON.stringify({ ...result, met: { initMs: result.initMs <= 50, p50us: result.p50us <= 20, p99us: result.p99us <= 200 } }));
