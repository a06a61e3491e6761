// bench/guard-worst: the guard's time and memory on commands shaped to be expensive (test/guard/worst-shapes.ts:
// long chains, deep nesting, doubling values, …) at 64 KB, 256 KB and 1 MB (the longest command the shell takes,
// INPUT.maxCommandChars), as JSON, one line per shape and size.
//
// Each measurement runs in its own Node process, so that one shape's garbage or a crash cannot touch another's
// figures: `ms` is the one check() call, `heapMB` the heap it left live, `peakMB` the process's peak resident
// memory above what it held once the guard was loaded. A shape that runs past TIMEOUT_MS or dies is reported as
// such. The goal: every shape returns a verdict, in time and memory roughly linear in its size (1 MB at most
// ~16 times the 64 KB figure; `linear` says whether it was).
//
//   npx tsx bench/guard-worst.ts                 all shapes
//   npx tsx bench/guard-worst.ts "cd chain" …    only these
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { WORST_SHAPES, WORST_SIZES } from "../test/guard/worst-shapes.ts";

const TIMEOUT_MS = 60_000;
/** 1 MB is 16 times 64 KB: a linear checker takes about 16 times as long; allow for noise and a fixed cost. */
const LINEAR_FACTOR = 40;

async function one(shape: string, size: number): Promise<void> {
  const { createGuard } = await import("../src/guard/index.ts");
  const guard = await createGuard();
  const command = WORST_SHAPES[shape]!(size);
  guard.check("ls"); // warm
  const before = process.resourceUsage().maxRSS;
  const t = performance.now();
  const v = guard.check(command);
  const ms = performance.now() - t;
  const peak = process.resourceUsage().maxRSS;
  console.log(JSON.stringify({ chars: command.length, ms: +ms.toFixed(1), heapMB: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1), peakMB: +((peak - before) / 1024).toFixed(1), decision: v.decision, rule: v.rule }));
}

function measure(shape: string, label: string, size: number): Record<string, unknown> {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [...process.execArgv, self, "--one", shape, String(size)], { encoding: "utf8", timeout: TIMEOUT_MS });
  const base = { shape, size: label };
  if (r.error && (r.error as NodeJS.ErrnoException).code === "ETIMEDOUT") return { ...base, failed: `no verdict within ${TIMEOUT_MS} ms` };
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  if (r.status !== 0 || !line.startsWith("{")) return { ...base, failed: `exit ${r.status ?? r.signal}: ${(r.stderr.trim().split("\n").at(-1) ?? "").slice(0, 200)}` };
  return { ...base, ...JSON.parse(line) };
}

const args = process.argv.slice(2);
if (args[0] === "--one") {
  await one(args[1]!, Number(args[2]));
} else {
  const shapes = args.length ? args : Object.keys(WORST_SHAPES);
  const summary: Record<string, unknown>[] = [];
  for (const shape of shapes) {
    if (!WORST_SHAPES[shape]) throw new Error(`no shape ${JSON.stringify(shape)}; shapes: ${Object.keys(WORST_SHAPES).join(", ")}`);
    const rows = Object.entries(WORST_SIZES).map(([label, size]) => measure(shape, label, size));
    for (const row of rows) console.log(JSON.stringify({ bench: "guard-worst", ...row }));
    const small = rows[0] as { ms?: number };
    const large = rows.at(-1) as { ms?: number; failed?: string };
    const linear = !large.failed && small.ms !== undefined && large.ms !== undefined && large.ms <= Math.max(small.ms, 1) * LINEAR_FACTOR;
    summary.push({ shape, linear, ms1MB: large.ms ?? null });
  }
  const slowest = [...summary].sort((a, b) => ((b.ms1MB as number) ?? Infinity) - ((a.ms1MB as number) ?? Infinity))[0];
  console.log(JSON.stringify({ bench: "guard-worst", shapes: summary.length, allLinear: summary.every((s) => s.linear), notLinear: summary.filter((s) => !s.linear).map((s) => s.shape), slowest }));
}
