// bench/guard-ab: this guard's check time against another build's (another worktree's src/guard/index.ts), both
// in one process, alternating, so that the load of a shared machine falls on both alike. As JSON:
//
//   npx tsx bench/guard-ab.ts /path/to/other/src/guard/index.ts [rounds]
//
// `corpus`: p50 and p99 over NL2Bash per round, each round one pass of each build (which goes first alternates),
// after a warm-up pass of each; `slow`: the commands whose median check time (under the other build) is above
// the corpus's p99, each checked by both builds in turn REPS times: the median of their medians, and the sum.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Guard } from "../src/guard/index.ts";

const corpus = fileURLToPath(new URL("../../shared/corpora/nl2bash/all.cm", import.meta.url));
if (!process.argv[2] || !existsSync(corpus)) {
  console.error(`usage: npx tsx bench/guard-ab.ts OTHER/src/guard/index.ts [rounds] (needs ${corpus})`);
  process.exit(1);
}
const lines = readFileSync(corpus, "utf8").split("\n").filter((l) => l.trim() !== "");
const ROUNDS = Number(process.argv[3] ?? 6);
const REPS = 15;

const load = async (path: string): Promise<Guard> => ((await import(path)) as typeof import("../src/guard/index.ts")).createGuard();
const builds: Record<"old" | "new", Guard> = { old: await load(pathToFileURL(process.argv[2]).href), new: await load("../src/guard/index.ts") };

function pass(g: Guard): Float64Array {
  const out = new Float64Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const t = performance.now();
    g.check(lines[i]!);
    out[i] = (performance.now() - t) * 1000;
  }
  return out;
}
const at = (xs: Float64Array | number[], q: number): number => {
  const s = Float64Array.from(xs).sort();
  return +s[Math.min(s.length - 1, Math.floor(s.length * q))]!.toFixed(1);
};

pass(builds.old);
pass(builds.new);
const rounds: Array<Record<string, { p50us: number; p99us: number }>> = [];
for (let r = 0; r < ROUNDS; r++) {
  const row: Record<string, { p50us: number; p99us: number }> = {};
  for (const name of r % 2 ? (["new", "old"] as const) : (["old", "new"] as const)) {
    const t = pass(builds[name]);
    row[name] = { p50us: at(t, 0.5), p99us: at(t, 0.99) };
  }
  rounds.push(row);
}

// The slow commands, by the old build's median.
const medianOf = (g: Guard, line: string): number => {
  const t: number[] = [];
  for (let k = 0; k < 9; k++) {
    const s = performance.now();
    g.check(line);
    t.push((performance.now() - s) * 1000);
  }
  return at(t, 0.5);
};
const medians = lines.map((l) => medianOf(builds.old, l));
const p99 = at(medians, 0.99);
const slow = lines.filter((_, i) => medians[i]! > p99);
const per: Record<"old" | "new", number[][]> = { old: slow.map(() => []), new: slow.map(() => []) };
for (let k = 0; k < REPS; k++) {
  slow.forEach((line, i) => {
    for (const name of k % 2 ? (["new", "old"] as const) : (["old", "new"] as const)) {
      const s = performance.now();
      builds[name].check(line);
      per[name][i]!.push((performance.now() - s) * 1000);
    }
  });
}
const summary = (name: "old" | "new") => {
  const m = per[name].map((t) => at(t, 0.5));
  return { medianUs: at(m, 0.5), sumUs: +m.reduce((x, y) => x + y, 0).toFixed(0) };
};
console.log(JSON.stringify({ bench: "guard-ab", commands: lines.length, rounds, slow: { commands: slow.length, aboveUs: p99, old: summary("old"), new: summary("new") } }));
