// Memory of the embedded runtime (issue 11: "16 jobs and a 50 MB file took the page to 2.6 GB"), driven as an agent
// drives it, through sandbox.callTool in Node: a ~54 MB file made by commands, a 5 MB write_file, 16 background jobs
// that sleep, a 17th job and a 5 MB command (both refused), then 16 jobs that each read the large file. After each
// step: the page's heap after a full GC and its ArrayBuffers (the file system's copy), every worker's heap and
// ArrayBuffers (after a full GC in the worker), and the process's RSS.
//
//   npx tsx bench/embedded-memory.ts
//
// Then the red team's second round (embeddedBoundsScenario): long folder names, links with long targets, a 64 MiB
// exported variable and 16 jobs, and the largest names the bounds allow.
//
// Prints one JSON object. A runtime without memory() (before issue 11) is measured by the page and RSS only.

import { pathToFileURL } from "node:url";
import { createEmbeddedRuntime } from "../src/runtime/embedded/index.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { createSandbox, type Sandbox } from "../src/node.ts";
import { heapUsedAfterGc } from "../test/shell/heap.ts";

const MB = 1024 * 1024;

export interface MemoryStep {
  step: string;
  /** The page's (main thread's) heap after a full GC, MiB. */
  pageHeapMiB: number;
  /** The page's ArrayBuffers (the mirror of the file system, buffers in flight), MiB. */
  pageBuffersMiB: number;
  /** Live workers, and the sums of their heaps and ArrayBuffers, MiB (null: not measurable). */
  workers: number | null;
  workersHeapMiB: number | null;
  workersBuffersMiB: number | null;
  /** Bytes of files in the page's copy, MiB. */
  fileMiB: number | null;
  /** The whole process (page and workers), MiB: noisy (freed memory is not returned at once). */
  rssMiB: number;
  /** What the step's tool call said, cut. */
  said?: string;
}

interface Measurable {
  memory?: () => Promise<{ fileBytes: number; files: number; workers: Array<{ heapUsed: number; external: number } | null> }>;
}

const round = (bytes: number): number => Math.round((bytes / MB) * 10) / 10;

async function measure(runtime: Runtime, step: string, said?: string): Promise<MemoryStep> {
  // Workers first: a buffer the page made and moved to a worker counts on the page until the worker collects it.
  const report = await (runtime as Measurable).memory?.();
  // V8 frees dead ArrayBuffers a moment after the GC that finds them: a second GC after a pause
  heapUsedAfterGc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const heap = heapUsedAfterGc();
  const m = process.memoryUsage();
  const workers = report?.workers.filter((w) => w !== null) ?? null;
  return {
    step,
    pageHeapMiB: round(heap),
    pageBuffersMiB: round(m.arrayBuffers),
    workers: report?.workers.length ?? null,
    workersHeapMiB: workers === null ? null : round(workers.reduce((a, w) => a + w.heapUsed, 0)),
    workersBuffersMiB: workers === null ? null : round(workers.reduce((a, w) => a + w.external, 0)),
    fileMiB: report === undefined ? null : round(report.fileBytes),
    rssMiB: round(m.rss),
    ...(said !== undefined ? { said: said.replace(/\s+/g, " ").slice(0, 160) } : {}),
  };
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? "").join("");
}

/** The steps, in order; `onStep` sees each measurement as it is taken. */
export async function embeddedMemoryScenario(onStep: (step: MemoryStep) => void = () => undefined): Promise<MemoryStep[]> {
  const runtime = await createEmbeddedRuntime();
  const sb: Sandbox = await createSandbox({ runtime, approver: "deny" });
  const steps: MemoryStep[] = [];
  const take = async (step: string, said?: string): Promise<void> => {
    const s = await measure(runtime, step, said);
    steps.push(s);
    onStep(s);
  };
  const bash = async (args: Record<string, unknown>): Promise<string> => text(await sb.callTool("bash", args));
  try {
    await take("booted", await bash({ command: "echo ready" }));
    // (one command line may write at most EMBEDDED.limits.maxOutputSize, files included: two lines)
    await bash({ command: "seq 1 3500000 > a.txt", timeout: 300 });
    await take("a ~54 MB file made by commands", await bash({ command: "cat a.txt a.txt > big.txt && : > a.txt && wc -c big.txt", timeout: 300 }));
    await take("a 5 MB write_file", text(await sb.callTool("write_file", { path: "data.txt", content: "x".repeat(5 * MB - 1) + "\n" })));
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const out = await bash({ command: "sleep 600", run_in_background: true });
      ids.push(/job-\d+/.exec(out)?.[0] ?? "");
    }
    await take("16 background jobs (sleep)", await bash({ command: "echo jobs started" }));
    await take("a 17th job (refused)", await bash({ command: "sleep 600", run_in_background: true }));
    await take("a 5 MB command (refused)", await bash({ command: `echo ${"y".repeat(5 * MB)}` }));
    for (const id of ids) await sb.callTool("job_kill", { id });
    const readers: string[] = [];
    for (let i = 0; i < 16; i++) readers.push(/job-\d+/.exec(await bash({ command: "wc -l < big.txt; sleep 600", run_in_background: true }))?.[0] ?? "");
    // each has counted the lines (7,000,000) and gone on to sleep
    for (const id of readers) {
      for (let i = 0; i < 120 && !/^7000000\r?$/m.test(text(await sb.callTool("job_output", { id, wait: 5 }))); i++);
    }
    await take("16 jobs that each read the 54 MB file, then sleep", await bash({ command: "echo read" }));
  } finally {
    await sb.close();
    await runtime.dispose();
  }
  return steps;
}

/**
 * The red team's second round (attacks/embedded-bounds.ts in its checkout): what the bounds did not count. 20,000
 * folders with long names (81 × 250 nested 200-character names: 180 → 1,958 MB RSS), 15,000 links to a
 * 100,000-character target (→ 1,919 MB), a 64 MiB exported variable then 16 background jobs (→ 4,689 MB). Then the
 * largest each may still be, within the bounds: 20,000 folders with paths just under PATH_MAX.
 */
export async function embeddedBoundsScenario(onStep: (step: MemoryStep) => void = () => undefined): Promise<MemoryStep[]> {
  const runtime = await createEmbeddedRuntime();
  const sb: Sandbox = await createSandbox({ runtime, approver: () => true });
  const steps: MemoryStep[] = [];
  const take = async (step: string, said?: string): Promise<void> => {
    const s = await measure(runtime, step, said);
    steps.push(s);
    onStep(s);
  };
  // (the approver's note, "Approved by this sandbox's approver …", left out: what the command said is the point)
  const bash = async (args: Record<string, unknown>): Promise<string> =>
    text(await sb.callTool("bash", { timeout: 600, ...args })).replace(/^Approved by [^\n]*\n/, "");
  const seg = "n".repeat(200);
  const nested = (n: number): string => Array.from({ length: n }, () => seg).join("/");
  try {
    await take("booted", await bash({ command: "echo ready" }));
    await take(
      "long folder names (the red team's)",
      await bash({ command: `for i in $(seq 1 81); do mkdir -p d$i/${nested(250)} 2>/dev/null || { echo "stopped at $i"; break; }; done; ls | wc -l` }),
    );
    await take(
      "links to a 100,000-character target (the red team's)",
      await bash({ command: `t=$(printf 'x%.0s' $(seq 1 100000)); for i in $(seq 1 15000); do ln -s "$t" l$i 2>/dev/null || { echo "stopped at $i"; break; }; done; ls | wc -l` }),
    );
    const base = Array.from({ length: 20 }, () => "m".repeat(195)).join("/");
    await take(
      "20,000 folders with paths just under PATH_MAX",
      await bash({ command: `mkdir -p ${base} && cd ${base} && for i in $(seq 1 20000); do mkdir d$i 2>/dev/null || { echo "stopped at $i"; break; }; done; cd ~` }),
    );
    await bash({ command: `rm -rf ${"m".repeat(195)}` });
    await take("removed", await bash({ command: "ls | wc -l" }));
    await bash({ command: "a=xxxxxxxx; for i in $(seq 1 23); do a=$a$a; done; export BIG=$a; unset a; echo ${#BIG}" });
    let refused = 0;
    for (let i = 0; i < 16; i++) if (/at most 2,097,152/.test(await bash({ command: "sleep 30", run_in_background: true }))) refused++;
    await take("a 64 MiB exported variable, then 16 background jobs (the red team's)", `${refused} of 16 jobs refused`);
  } finally {
    await sb.close();
    await runtime.dispose();
  }
  return steps;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const steps = await embeddedMemoryScenario((s) => process.stderr.write(`${JSON.stringify(s)}\n`));
  const bounds = await embeddedBoundsScenario((s) => process.stderr.write(`${JSON.stringify(s)}\n`));
  console.log(JSON.stringify({ bench: "embedded-memory", unit: "MiB", steps, bounds }, null, 2));
}
