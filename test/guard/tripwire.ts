// Real bash as the proof that a bypass spelling works: run a script in a fresh temporary directory and see
// whether it left its tripwire file there. Shared by the bypass test files.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

export interface TripOptions {
  /** The file whose existence proves the payload ran (default F). */
  tripwire?: string;
  /** Prepares the directory before bash runs (files the script expects). */
  setup?: (dir: string) => void;
  /** Extra environment on top of PATH and HOME = the directory (a function gets the directory). */
  env?: Record<string, string> | ((dir: string) => Record<string, string>);
  /** Read the user's rc files (default: --norc --noprofile). */
  rc?: boolean;
  timeoutMs?: number;
  /**
   * Run an interactive bash reading the script from stdin (it shows a prompt after each line, so PROMPT_COMMAND
   * and PS0/PS1 run, as in the session's shell).
   */
  interactive?: boolean;
}

const dirs: string[] = [];
afterAll(() => {
  // retried all the same: a process a script left behind may still be writing there
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/**
 * Runs `script` in real bash in a new temporary directory; true when the tripwire file is there afterwards. A
 * script that fails after running its payload (`ssh -o ProxyCommand`) still counts: only the tripwire does.
 */
export function tripped(script: string, options: TripOptions = {}): boolean {
  const dir = mkdtempSync(join(tmpdir(), "sandshell-bypass-"));
  dirs.push(dir);
  options.setup?.(dir);
  const rc = options.rc === true ? [] : ["--norc", "--noprofile"];
  const args = options.interactive ? [...rc, "-i"] : [...rc, "-c", script];
  // Under timeout(1), which kills the script's whole process group when it runs out: a program a spelling started
  // must not outlive the test and write into the folder while it is removed.
  const ms = options.timeoutMs ?? 10_000;
  const r = spawnSync("timeout", ["-k", "1", `${ms / 1000}`, "bash", ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...(typeof options.env === "function" ? options.env(dir) : options.env) },
    encoding: "utf8",
    stdio: options.interactive ? ["pipe", "ignore", "ignore"] : "ignore",
    ...(options.interactive ? { input: `${script}\n:\n` } : {}),
    timeout: ms + 5_000,
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code !== "ETIMEDOUT") throw r.error;
  return existsSync(join(dir, options.tripwire ?? "F"));
}

/** A bypass spelling proven in real bash and judged by the guard (the bypass test files' tables). */
export interface Spelling {
  /** Makes the files the command reads (real bash only: the guard judges `run`). */
  setup: string;
  /** The command under test: run in real bash after `setup` (and before `after`), and checked by the guard. */
  run: string;
  /** What runs afterwards in bash to show the effect (`git status` runs a planted core.fsmonitor). */
  after?: string;
  /** Verdicts under balanced and strict, `decision/rule`. */
  balanced: string;
  strict: string;
}

/** The script real bash runs for a spelling: its setup, the command, then what shows the effect. */
export function spellingScript(s: Spelling): string {
  return [s.setup, s.run, s.after].filter(Boolean).join("\n");
}
