// What this jsh supports, found out after boot: each probe is its own `jsh -c` process with a short timeout, judged
// by its exit code and its output lines (a shell that does not understand `>` or `2>&1` prints them as words, so the
// checks compare whole lines). Programs are looked up with `which`.

import { WEBCONTAINER } from "../../limits.ts";
import type { Capabilities } from "../types.ts";
import type { WcInstance } from "./api.ts";
import { plainLines } from "./jsh-stream.ts";

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

/** Programs looked up with `which`. */
export const PROBED_PROGRAMS: readonly string[] = [
  "awk", "cat", "curl", "find", "git", "grep", "head", "jq", "ls", "node", "npm", "npx", "pnpm", "python3",
  "sed", "sleep", "sort", "tail", "wc", "xargs", "yarn",
];

function programProbe(name: string): Probe {
  return {
    name: `which ${name}`,
    command: `which ${name}`,
    check: (lines, code) => code === 0 && lines.some((line) => line.trim().endsWith(`/${name}`)),
  };
}

export interface ProbeOptions {
  timeoutMs?: number;
  concurrency?: number;
  env?: Record<string, string>;
}

async function runProbe(wc: WcInstance, probe: Probe, options: ProbeOptions): Promise<ProbeResult> {
  const t0 = performance.now();
  const timeoutMs = options.timeoutMs ?? WEBCONTAINER.probeTimeoutMs;
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
  const reader = proc.output.getReader();
  let raw = "";
  const reading = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        raw += r.value;
      }
    } catch {
      // cancelled
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const code = await Promise.race([
    proc.exit.catch(() => 1),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (code === null) {
    try {
      proc.kill();
    } catch {
      // gone
    }
  } else {
    await new Promise((r) => setTimeout(r, WEBCONTAINER.exitDrainMs));
  }
  await reader.cancel().catch(() => undefined);
  await reading;
  const lines = plainLines(raw).map((line) => line.trim());
  const output = lines.join("\n").trim();
  if (code === null) return result(false, null, output, true);
  return result(probe.check(lines, code), code, output, false);
}

/** Runs every probe (at most `concurrency` at once) and turns the results into Capabilities. */
export async function probeCapabilities(
  wc: WcInstance,
  options: ProbeOptions = {},
): Promise<{ capabilities: Capabilities; probes: ProbeResult[] }> {
  const all = [...SYNTAX_PROBES, ...PROBED_PROGRAMS.map(programProbe)];
  const results: ProbeResult[] = new Array(all.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < all.length) {
      const i = next++;
      results[i] = await runProbe(wc, all[i]!, options);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? WEBCONTAINER.probeConcurrency, all.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const ok = (name: string): boolean => results.find((r) => r.name === name)?.ok ?? false;
  const programs: Record<string, boolean> = {};
  for (const name of PROBED_PROGRAMS) programs[name] = ok(`which ${name}`);
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
    probes: results,
  };
}

/** Before probing (or when probing is off): nothing beyond what every jsh is documented to do. */
export function unprobedCapabilities(): Capabilities {
  return { heredocs: false, pipes: false, redirects: false, lists: false, background: false, exportVars: false, programs: {} };
}
