// Programs that read their input as commands, and whether one of them, started with these arguments, reads commands
// from its terminal (interactive) rather than running a script or a `-c` string. Text typed into such a shell is a
// command: the bash tool checks it with the guard (src/tools/bash.ts); the node runtime looks for one among the
// foreground program's processes (src/runtime/node/reader-shell.ts).

import { normalizePath } from "./paths.ts";

/** Shells by their process name (what /proc/PID/comm or node-pty reports), a leading `-` (login shell) removed. */
export const SHELL_NAMES: ReadonlySet<string> = new Set([
  "bash", "sh", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "ash", "fish", "busybox", "rbash", "tcsh", "csh",
  "yash", "posh", "elvish", "nu", "xonsh", "oksh", "loksh",
]);

/** The name a shell process goes by: its base name, without a login shell's leading `-`. */
export function shellName(name: string): string {
  return name.replace(/^.*\//, "").replace(/^-/, "");
}

export function isShellName(name: string): boolean {
  return SHELL_NAMES.has(shellName(name));
}

/** Options of the common shells that take the next argument as their value (not a script operand). */
const WITH_VALUE = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file", "-C", "--command", "--init-command"]);

/**
 * Whether a script operand is the terminal or standard input rather than a file (`sh /dev/tty`, `bash /dev/stdin`,
 * `sh /proc/self/fd/0`, `sh -`): such a shell reads its commands from what is typed, as an interactive one does.
 * The path is compared after `.`, `..` and repeated slashes are folded (`/dev/./tty`, `/dev//stdin`).
 */
export function isTerminalOperand(operand: string): boolean {
  if (operand === "-") return true;
  if (!operand.startsWith("/")) return false;
  const path = normalizePath(operand);
  return /^\/(?:dev\/(?:tty\w*|console|stdin|fd\/0|pts\/\d+)|proc\/(?:self|thread-self|\d+)\/(?:fd\/0|task\/\d+\/fd\/0))$/.test(path);
}

/**
 * Whether a shell run as `argv` (argv[0] included) reads commands from its standard input or terminal: `-i` or `-s`
 * (or `--interactive`), neither `-c` nor a script operand, or a script operand that is the terminal or standard input
 * (isTerminalOperand, or `isTerminal` when given: the caller may know what a relative or linked operand is).
 * `busybox sh …` is read past its applet name.
 */
export function readsCommands(argv: readonly string[], isTerminal: (operand: string) => boolean = isTerminalOperand): boolean {
  let args = argv.slice(1);
  if (shellName(argv[0] ?? "") === "busybox") args = args.slice(1);
  let command = false;
  let operand = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--" || a === "-") {
      // `bash -- FILE`, `sh - FILE`: the next word is the script; with none, commands come from standard input.
      const script = args[i + 1];
      operand = script !== undefined && !isTerminal(script);
      break;
    }
    if (a === "--interactive" || a === "-i" || a === "-s") return true;
    if (a === "--command" || a === "-c") {
      command = true;
      continue;
    }
    if (WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(a)) {
      // a group of short options: -ic, -lc, +x
      if (a[0] === "-" && (a.includes("i") || a.includes("s"))) return true;
      if (a[0] === "-" && a.includes("c")) command = true;
      continue;
    }
    if (a.startsWith("--")) continue; // --norc, --noprofile, --login, …
    operand = !isTerminal(a);
    break;
  }
  return !command && !operand;
}
