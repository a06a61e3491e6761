// The startup canary: after boot, before the runtime is handed to the sandbox, a few known commands go through the
// real session path (a ShellSession on this runtime, the same code the agent's calls take) and each result is compared
// exactly. A jsh that never ends a command, lies about exit codes, forgets `cd` or breaks pipes is caught here, and
// "auto" falls back to the embedded shell with the reason (which check, what came back): a wrong WebContainer shell
// must never be the one an agent gets.
//
// The session engine lives in the shell layer, above the runtimes; this module does not import it. The caller (the
// runtime selection, src/runtime/select.ts) passes a factory, by default src/shell's createShellSession.

import { WEBCONTAINER } from "../../limits.ts";
import { clip } from "../../lib/text.ts";
import type { Runtime } from "../types.ts";
import { UNKNOWN_EXIT_CODE } from "./jsh-stream.ts";

/** What the canary needs of a shell session (a subset of src/shell's ShellSession). */
export interface CanarySession {
  run(command: string, options?: { timeoutSec?: number; softTimeoutSec?: number }): Promise<CanaryResult>;
  close(): Promise<void>;
}

export interface CanaryResult {
  output: string;
  exitCode: number | null;
  cwd: string;
  status: string;
  notice?: string;
  error?: string;
}

export type CanarySessionFactory = (
  runtime: Runtime,
  options: { startupTimeoutMs: number; softTimeoutSec: number; timeoutSec: number },
) => Promise<CanarySession>;

export interface CanaryCheck {
  id: string;
  /** What is checked, for a person ("the exit code of a failing command"). */
  what: string;
  command: string;
  output: string;
  exitCode: number;
  /** The session's cwd after the command; null: not checked. */
  cwd: string | null;
}

/** The checks, in order (the `pwd` check depends on the `cd` before it). */
export const CANARY_CHECKS: readonly CanaryCheck[] = [
  { id: "echo", what: "a plain echo and its exit code", command: "echo sandshell-canary", output: "sandshell-canary\n", exitCode: 0, cwd: null },
  { id: "failure", what: "the exit code of a failing command", command: "false", output: "", exitCode: 1, cwd: null },
  { id: "cd", what: "a cd to /tmp", command: "cd /tmp", output: "", exitCode: 0, cwd: "/tmp" },
  { id: "pwd", what: "pwd after that cd", command: "pwd", output: "/tmp\n", exitCode: 0, cwd: "/tmp" },
  { id: "pipe", what: "a pipe", command: "echo canary-pipe | cat", output: "canary-pipe\n", exitCode: 0, cwd: null },
];

/**
 * Multi-line commands exactly as the session types them into jsh (a brace group, `{⏎…⏎}⏎`): run only when the
 * `jsh -c` heredoc probe passed. Failing them does not fail the canary; it only keeps multi-line commands refused
 * (with the write_file hint).
 */
export const MULTILINE_CHECKS: readonly CanaryCheck[] = [
  { id: "multi-line", what: "two lines typed as one command", command: "echo ml-a\necho ml-b", output: "ml-a\nml-b\n", exitCode: 0, cwd: null },
  { id: "heredoc", what: "a heredoc typed as one command", command: "cat <<'EOF'\nheredoc-ok\nEOF", output: "heredoc-ok\n", exitCode: 0, cwd: null },
];

export interface CanaryFailure {
  check: string;
  /** One sentence for the status bar, runtimeInfo.note and the audit log. */
  reason: string;
}

export interface CanaryReport {
  ok: boolean;
  failure: CanaryFailure | null;
  /** Every check run: what came back (for logs and the live test). */
  results: Array<{ id: string; command: string; result: CanaryResult | null; ms: number }>;
  /** Whether multi-line commands typed as the session types them work; null when not tried. */
  multiLine: boolean | null;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1).replace(/\.0$/, "")} s`;

function quote(text: string, max = 120): string {
  return JSON.stringify(clip(text, max + 1));
}

/** What is wrong with `r` for `check`, or null. */
export function judge(check: CanaryCheck, r: CanaryResult): string | null {
  if (r.status !== "completed") {
    const why = r.error ?? r.notice;
    return `\`${check.command}\` ended with status "${r.status}"${why ? ` (${why})` : ""}, output ${quote(r.output)}`;
  }
  const wrong: string[] = [];
  if (r.exitCode !== check.exitCode) {
    wrong.push(
      r.exitCode === null || r.exitCode === UNKNOWN_EXIT_CODE
        ? `no exit code: jsh reported no exit status (expected ${check.exitCode})`
        : `exit code ${r.exitCode} (expected ${check.exitCode})`,
    );
  }
  if (r.output !== check.output) wrong.push(`output ${quote(r.output)} (expected ${quote(check.output)})`);
  if (check.cwd !== null && r.cwd !== check.cwd) wrong.push(`cwd ${quote(r.cwd)} (expected ${quote(check.cwd)})`);
  return wrong.length === 0 ? null : `\`${check.command}\` gave ${wrong.join(", ")}`;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs CANARY_CHECKS on `runtime` in a session of its own (closed afterwards: the sandbox starts a fresh one). Never
 * throws: a session that cannot start, a check that fails or does not finish within WEBCONTAINER.canaryCommandMs is a
 * failure with its reason.
 */
export async function runCanary(
  runtime: Runtime,
  createSession: CanarySessionFactory,
  options: { commandMs?: number; startMs?: number; checks?: readonly CanaryCheck[]; multiLine?: boolean } = {},
): Promise<CanaryReport> {
  const commandMs = options.commandMs ?? WEBCONTAINER.canaryCommandMs;
  const startMs = options.startMs ?? WEBCONTAINER.canaryStartMs;
  const checks = options.checks ?? CANARY_CHECKS;
  const results: CanaryReport["results"] = [];
  const fail = (check: string, reason: string): CanaryReport => ({ ok: false, failure: { check, reason }, results, multiLine: null });
  const sec = Math.max(1, Math.ceil(commandMs / 1000));
  const starting = createSession(runtime, { startupTimeoutMs: startMs, softTimeoutSec: sec, timeoutSec: sec }).then(
    (s) => s,
    (err: unknown) => new Error(err instanceof Error ? err.message : String(err)),
  );
  const session = await within(starting, startMs + 1_000);
  if (session === "timeout") {
    void starting.then((s) => (s instanceof Error ? undefined : s.close().catch(() => undefined)));
    return fail("start", `the shell showed no prompt within ${seconds(startMs)}`);
  }
  if (session instanceof Error) return fail("start", `the shell could not start: ${session.message}`);
  try {
    for (const check of checks) {
      const t0 = performance.now();
      const r = await within(
        session.run(check.command, { timeoutSec: sec, softTimeoutSec: sec }).catch(
          (err: unknown): CanaryResult => ({ output: "", exitCode: null, cwd: "", status: "error", error: String(err) }),
        ),
        commandMs + 2_000,
      );
      const ms = Math.round(performance.now() - t0);
      if (r === "timeout") {
        results.push({ id: check.id, command: check.command, result: null, ms });
        return fail(check.what, `\`${check.command}\` did not finish within ${seconds(commandMs)}`);
      }
      results.push({ id: check.id, command: check.command, result: r, ms });
      const wrong =
        r.status === "running" || r.status === "timeout"
          ? `\`${check.command}\` did not finish within ${seconds(commandMs)} (output so far ${quote(r.output)})`
          : judge(check, r);
      if (wrong !== null) return fail(check.what, wrong);
    }
    let multiLine: boolean | null = null;
    if (options.multiLine === true) {
      multiLine = true;
      for (const check of MULTILINE_CHECKS) {
        const t0 = performance.now();
        const limit = Math.min(commandMs, 3_000);
        const r = await within(
          session.run(check.command, { timeoutSec: Math.ceil(limit / 1000), softTimeoutSec: Math.ceil(limit / 1000) }).catch(() => null),
          limit + 2_000,
        );
        const result = r === "timeout" ? null : r;
        results.push({ id: check.id, command: check.command, result, ms: Math.round(performance.now() - t0) });
        if (result === null || judge(check, result) !== null) {
          multiLine = false;
          break; // the session may have lost track: it is closed right after
        }
      }
    }
    return { ok: true, failure: null, results, multiLine };
  } finally {
    await within(session.close().catch(() => undefined), 3_000);
  }
}

/** The sentence for runtimeInfo.note and the status bar. */
export function canaryMessage(failure: CanaryFailure): string {
  return `WebContainer booted, but its shell failed the startup check of ${failure.check}: ${failure.reason}.`;
}
