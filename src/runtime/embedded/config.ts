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
