// What this jsh supports, found out after boot: each probe is its own `jsh -c` process with a short timeout, judged
// by its exit code and its output lines (a shell that does not understand `>` or `2>&1` prints them as words, so the
// checks compare whole lines). Programs are looked up with one `which`. A probe ends as soon as its answer is complete,
// else when its output has been quiet after its exit (late output still counts); a time-out is tried once more;
// the answers are cached per container.

import { WEBCONTAINER } from "../../limits.ts";
import type { Capabilities } from "../types.ts";
import type { WcInstance } from "./api.ts";
import { plainLines } from "./jsh-prompt.ts";
import { readOutput } from "./process.ts";

export interface ProbeResult {
  name: string;
  command: string;
  ok: boolean;
  exitCode: number | null;
  /** The probe's output, escape sequences removed (for the live test's log). */
  output: string;
  ms: number;
  timedOut: boolean;
}

interface Probe {
  name: string;
  command: string;
  check: (lines: string[], exitCode: number) => boolean;
}

const has = (lines: string[], line: string): boolean => lines.includes(line);

/** Probe file (in /tmp, outside the workspace). */
const PROBE_FILE = "/tmp/.sandshell-probe";

export const SYNTAX_PROBES: readonly Probe[] = [
  { name: "status", command: 'false; echo "status=$?"', check: (l) => has(l, "status=1") },
  { name: "semicolon", command: "echo semi-a; echo semi-b", check: (l, c) => c === 0 && has(l, "semi-a") && has(l, "semi-b") },
  { name: "or", command: "false || echo or-ok", check: (l, c) => c === 0 && has(l, "or-ok") },
  { name: "pipe", command: "echo pipe-ok | cat", check: (l, c) => c === 0 && has(l, "pipe-ok") },
  {
    name: "redirect",
    command: `echo redir-ok > ${PROBE_FILE} && cat ${PROBE_FILE}`,
    check: (l, c) => c === 0 && has(l, "redir-ok"),
  },
  { name: "stderr-redirect", command: "echo err-ok 2>&1", check: (l, c) => c === 0 && has(l, "err-ok") },
  { name: "heredoc", command: "cat <<'EOF'\nheredoc-ok\nEOF", check: (l, c) => c === 0 && has(l, "heredoc-ok") },
  { name: "background", command: "echo bg-ok & echo fg-ok", check: (l, c) => c === 0 && has(l, "bg-ok") && has(l, "fg-ok") },
  {
    name: "export",
    command: 'export SANDSHELL_PROBE=exp-ok && echo "v=$SANDSHELL_PROBE"',
    check: (l, c) => c === 0 && has(l, "v=exp-ok"),
  },
];

/** Programs looked up with one `which` (all names in one call; one call each only if that finds not even `node`). */
export const PROBED_PROGRAMS: readonly string[] = [
  "awk", "cat", "curl", "find", "git", "grep", "head", "jq", "ls", "node", "npm", "npx", "pnpm", "python3",
  "sed", "sleep", "sort", "tail", "wc", "xargs", "yarn",
];

/** Which of `names` a `which` output shows (a line ending in `/NAME`). */
export function foundPrograms(lines: string[], names: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const line of lines) {
    const t = line.trim();
    for (const name of names) if (t.endsWith(`/${name}`) && !/\s/.test(t)) found.add(name);
  }
  return found;
}

const wordIn = (line: string, word: string): boolean =>
  new RegExp(`(?:^|[\\s/:'"])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:$|[\\s:'"])`).test(line);

function whichProbe(names: readonly string[]): Probe {
  return {
    name: names.length === 1 ? `which ${names[0]}` : "which",
    command: `which ${names.join(" ")}`,
    // complete once every name has its line (found or not): a missing program's line is anything naming it
    check: (lines) => names.every((n) => lines.some((l) => wordIn(l, n))),
  };
}

const WARM_UP: Probe = { name: "warm-up", command: "echo warm-up", check: (l) => has(l, "warm-up") };

export interface ProbeOptions {
  timeoutMs?: number;
  concurrency?: number;
  env?: Record<string, string>;
  /** After the exit, a probe whose answer is not complete yet waits for its output to be quiet this long (bounded). */
  drainMs?: number;
  drainMaxMs?: number;
}

async function runProbe(wc: WcInstance, probe: Probe, options: ProbeOptions): Promise<ProbeResult> {
  const t0 = performance.now();
  const timeoutMs = options.timeoutMs ?? WEBCONTAINER.probeTimeoutMs;
  const drainMs = options.drainMs ?? WEBCONTAINER.probeQuietMs;
  const drainMaxMs = options.drainMaxMs ?? WEBCONTAINER.exitDrainMaxMs;
  const result = (ok: boolean, exitCode: number | null, output: string, timedOut: boolean): ProbeResult => ({
    name: probe.name,
    command: probe.command,
    ok,
    exitCode,
    output,
    ms: Math.round(performance.now() - t0),
    timedOut,
  });
  let proc;
  try {
    proc = await wc.spawn("jsh", ["-c", probe.command], { env: options.env ?? {} });
  } catch (err) {
    return result(false, null, `spawn failed: ${String(err)}`, false);
  }
  let raw = "";
  let code: number | null = null;
  let exitAt = 0;
  let lastOutputAt = 0;
  const lines = (): string[] => plainLines(raw).map((line) => line.trim());
  // Ends as soon as the answer is complete (exit in, and the check passes on the output so far); otherwise after
  // the output has been quiet for drainMs after the exit (output and exit are separate messages, in no set order),
  // at most drainMaxMs after it; or at the time-out.
  let settle!: (how: "done" | "timeout") => void;
  const settled = new Promise<"done" | "timeout">((resolve) => (settle = resolve));
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const evaluate = (): void => {
    if (code === null) return;
    if (probe.check(lines(), code)) return settle("done");
    const t = performance.now();
    const quietFor = t - Math.max(exitAt, lastOutputAt);
    if (quietFor >= drainMs || t - exitAt >= drainMaxMs) return settle("done");
    timers.push(setTimeout(evaluate, Math.min(drainMs - quietFor, drainMaxMs - (t - exitAt)) + 1));
  };
  const reading = readOutput(proc, (chunk) => {
    raw += chunk;
    lastOutputAt = performance.now();
    evaluate();
  });
  proc.exit.then(
    (c) => {
      code = typeof c === "number" ? c : 1;
      exitAt = performance.now();
      evaluate();
    },
    () => {
      code = 1;
      exitAt = performance.now();
      evaluate();
    },
  );
  // the time-out is for the exit; once it is in, the quiet after it decides (bounded by drainMaxMs)
  timers.push(setTimeout(() => code === null && settle("timeout"), timeoutMs));
  const how = await settled;
  for (const t of timers) clearTimeout(t);
  if (how === "timeout") {
    try {
      proc.kill();
    } catch {
      // gone
    }
  }
  await reading.stop();
  const output = lines().join("\n").trim();
  if (how === "timeout" || code === null) return result(false, null, output, true);
  return result(probe.check(lines(), code), code, output, false);
}

/** Runs `probes` (at most `concurrency` at once); a probe that timed out is run once more at the end. */
async function runAll(wc: WcInstance, probes: readonly Probe[], options: ProbeOptions): Promise<ProbeResult[]> {
  const results: ProbeResult[] = new Array(probes.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < probes.length) {
      const i = next++;
      results[i] = await runProbe(wc, probes[i]!, options);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? WEBCONTAINER.probeConcurrency, probes.length));
  await Promise.all(Array.from({ length: workers }, worker));
  for (let i = 0; i < probes.length; i++) {
    if (results[i]!.timedOut) results[i] = await runProbe(wc, probes[i]!, options); // a slow container, not a missing feature
  }
  return results;
}

type Found = { capabilities: Capabilities; probes: ProbeResult[] };

// Per container: a retry, a second runtime or a new sandbox on the same page reuses the answers.
const cache = new WeakMap<object, Promise<Found>>();

/**
 * One warm-up spawn (a cold container's first process is slow), the syntax probes, and one `which` for all
 * programs; the result is cached per container.
 */
export function probeCapabilities(wc: WcInstance, options: ProbeOptions = {}): Promise<Found> {
  const cached = cache.get(wc);
  if (cached) return cached;
  const found = probeUncached(wc, options);
  cache.set(wc, found);
  found.catch(() => cache.delete(wc));
  return found;
}

async function probeUncached(wc: WcInstance, options: ProbeOptions): Promise<Found> {
  const warm = await runProbe(wc, WARM_UP, { ...options, timeoutMs: (options.timeoutMs ?? WEBCONTAINER.probeTimeoutMs) * 2 });
  const which = whichProbe(PROBED_PROGRAMS);
  const results = await runAll(wc, [...SYNTAX_PROBES, which], options);
  const whichResult = results[results.length - 1]!;
  let found = foundPrograms(whichResult.output.split("\n"), PROBED_PROGRAMS);
  const perProgram: ProbeResult[] = [];
  if (!found.has("node")) {
    // Every WebContainer has node: a `which` that does not show it did not take several names. One each, then.
    perProgram.push(...(await runAll(wc, PROBED_PROGRAMS.map((n) => whichProbe([n])), options)));
    found = new Set(PROBED_PROGRAMS.filter((n, i) => foundPrograms(perProgram[i]!.output.split("\n"), [n]).has(n)));
  }
  const ok = (name: string): boolean => results.find((r) => r.name === name)?.ok ?? false;
  const programs: Record<string, boolean> = {};
  for (const name of PROBED_PROGRAMS) programs[name] = found.has(name);
  return {
    capabilities: {
      heredocs: ok("heredoc"),
      pipes: ok("pipe"),
      redirects: ok("redirect") && ok("stderr-redirect"),
      lists: ok("status") && ok("semicolon") && ok("or"),
      background: ok("background"),
      exportVars: ok("export"),
      programs,
    },
    probes: [warm, ...results, ...perProgram],
  };
}

/** Before probing (or when probing is off): nothing beyond what every jsh is documented to do. */
export function unprobedCapabilities(): Capabilities {
  return { heredocs: false, pipes: false, redirects: false, lists: false, background: false, exportVars: false, programs: {} };
}
