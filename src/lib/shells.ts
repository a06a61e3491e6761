// Programs that read their input as commands, and whether one of them, started with these arguments, reads commands
// from its terminal (interactive) rather than running a script or a `-c` string. Text typed into such a shell is a
// command: the bash tool checks it with the guard (src/tools/bash.ts); the node runtime looks for one among the
// foreground program's processes (src/runtime/node.ts).

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
 * Whether a shell run as `argv` (argv[0] included) reads commands from its standard input: `-i` or `-s` (or
 * `--interactive`), or neither `-c` nor a script operand. `busybox sh …` is read past its applet name.
 */
export function readsCommands(argv: readonly string[]): boolean {
  let args = argv.slice(1);
  if (shellName(argv[0] ?? "") === "busybox") args = args.slice(1);
  let command = false;
  let operand = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      operand = i + 1 < args.length;
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
    operand = true;
    break;
  }
  return !command && !operand;
}
