// Fixed paths and names of the embedded runtime (just-bash in a Worker). Its limits and timings live in
// src/limits.ts (EMBEDDED), with every other limit.

export { EMBEDDED } from "../../limits.ts";

/** Paths inside the worker that are not files: what a command writes there goes to the terminal, what it reads from
 *  there comes from the keyboard. Never mirrored, never listed. */
export const DEVICES = {
  /** Where each top-level statement's stdout and stderr are appended, so that output streams statement by statement. */
  out: "/dev/.sandshell-out",
  /** The terminal, read to end of input (C-d): `cat` with no file operands. */
  tty: "/dev/tty",
  /** One line from the terminal: `read`. */
  ttyLine: "/dev/.sandshell-tty-line",
  /** One line from the terminal, not echoed: `read -s`. */
  ttyLineSilent: "/dev/.sandshell-tty-line-silent",
  /** Counted reads: `${ttyCounted}lines-N` (N lines: `head -n N`), `${ttyCounted}chars-N` (N characters or a line,
   *  whichever ends first: `read -n N`), `${ttyCounted}chars-silent-N` (`read -s -n N`). */
  ttyCounted: "/dev/.sandshell-tty-",
} as const;

/** Folders whose changes are per-process and never mirrored. */
export const UNMIRRORED_PREFIXES = ["/dev/", "/proc/"] as const;

/** Whether the page mirrors the changes at `path` (not under UNMIRRORED_PREFIXES). */
export function mirrored(path: string): boolean {
  return !UNMIRRORED_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** Commands the command line's rewrite (transform.ts) calls; defined by interpreter.ts. */
export const COMMANDS = {
  /** `__sandshell_fn ID`: the function definition ID has just run. */
  fn: "__sandshell_fn",
  /** `__sandshell_prompt TEXT`: shows TEXT on the terminal at once (a `read -p` prompt). */
  prompt: "__sandshell_prompt",
  /** `__sandshell_no_stdin`: succeeds when nothing waits on its stdin (a function called at the prompt). */
  noStdin: "__sandshell_no_stdin",
  /** `__sandshell_syntax ARGS…`: `bash -n ARGS…`, which just-bash does not know: parse only, report, run nothing. */
  syntax: "__sandshell_syntax",
  /** `__sandshell_script`: a command of the line runs a script that just-bash parses as a line of its own (`bash -c`). */
  script: "__sandshell_script",
  /** `__sandshell_script_end "$?"`: that command is done; exits with `$?`. */
  scriptEnd: "__sandshell_script_end",
  /** `__sandshell_script_file FILE`: the next read of FILE is a script's that just-bash parses in place (`source`, `./FILE`). */
  scriptFile: "__sandshell_script_file",
  /** `__sandshell_script_file_end "$?"`: that command is done (disarms the read); exits with `$?`. */
  scriptFileEnd: "__sandshell_script_file_end",
  /** `__sandshell_release "$?"`: a job's statement has ended; the large files it used go back to the page. Exits with `$?`. */
  release: "__sandshell_release",
  /** `__sandshell_nounset "$?"`: a statement has ended; did the shell itself stop at an unbound variable? Exits with `$?`. */
  nounset: "__sandshell_nounset",
  /** The trailer: `__sandshell_state "$?" NAMES TYPES ARRAYS`. */
  state: "__sandshell_state",
} as const;
