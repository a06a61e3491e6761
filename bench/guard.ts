// bench/guard: createGuard time and check() p50/p99 over the NL2Bash corpus, in Node, as JSON, with
// issue 2's goals (`goals` below).
//
// The goals are for a guard in use: the first pass over the corpus warms the JIT (V8 compiles the
// analysis code as it meets it) and is reported on its own as `firstPass`; p50 and p99 come from the
// PASSES passes after it, all samples pooled. The guard caches no verdicts, so a command seen before
// costs the same work as a new one.
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

function pass(into: Float64Array, offset: number): void {
  let k = offset;
  for (const line of lines) {
    const t = performance.now();
    guard.check(line);
    into[k++] = (performance.now() - t) * 1000;
  }
}

function percentiles(samples: Float64Array): { p50us: number; p99us: number; maxUs: number } {
  samples.sort();
  const at = (q: number) => +samples[Math.min(samples.length - 1, Math.floor(samples.length * q))]!.toFixed(2);
  return { p50us: at(0.5), p99us: at(0.99), maxUs: at(1) };
}

const first = new Float64Array(lines.length);
pass(first, 0);
const PASSES = 5;
const warm = new Float64Array(lines.length * PASSES);
for (let p = 0; p < PASSES; p++) pass(warm, p * lines.length);

const result = { bench: "guard", commands: lines.length, passes: PASSES, initMs: +initMs.toFixed(2), ...percentiles(warm), firstPass: percentiles(first) };
const goals = { initMs: 50, p50us: 20, p99us: 200 };
console.log(JSON.stringify({ ...result, goals, met: { initMs: result.initMs <= goals.initMs, p50us: result.p50us <= goals.p50us, p99us: result.p99us <= goals.p99us } }));
