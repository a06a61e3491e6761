// Which shell, if any, reads the terminal now: the session's own (at its prompt), or an interactive shell the
// foreground program started (a bash under python's pty.spawn, `script -qc bash`, `sh /dev/tty`), known by its name or
// program file and by what it reads. Text typed now may reach it as a command line. Linux: /proc.

import { readlinkSync, statSync } from "node:fs";
import { isShellName, isTerminalOperand, readsCommands, shellName } from "../../lib/shells.ts";
import { cmdlineOf, commOf, exeNameOf, procStat, threadChildren } from "./proc.ts";

/** How many processes under the foreground program readerShell looks at, at most. */
const MAX_READER_WALK = 256;

/**
 * An interactive shell among the foreground program's processes and everything they started (a bash under
 * python's pty.spawn or `script -qc bash` runs on a terminal of its own, so the foreground program's name alone
 * does not show it): its name, or undefined. A shell is known by its name or its program file (a bash linked as
 * `./tool`). It counts when it reads commands (no `-c`, no script operand, `-i`/`-s`, or a script operand that is the
 * terminal: `sh /dev/tty`) and its standard input or that operand is a terminal. Text typed now may reach it as a
 * command line. "" when there is none, null where this cannot be told. `shell`: the session's shell (its pid).
 */
export function readerShell(shell: number): string | null {
  const own = procStat(shell);
  if (own === null) return null;
  const group = Number(own[5]);
  if (group === shell) return ""; // the session's own shell reads (its prompt, or its builtin read)
  // The foreground group's processes are the shell's children in that group (a pipeline's every part) and below.
  const queue = threadChildren(shell).filter((pid) => procStat(pid)?.[2] === String(group));
  let seen = 0;
  while (queue.length > 0 && seen < MAX_READER_WALK) {
    const p = queue.shift()!;
    seen++;
    const name = shellOf(p);
    if (name !== null) {
      // `sh /dev/tty` reads the terminal whatever its standard input is
      let terminal = false;
      const reads = readsCommands(cmdlineOf(p), (operand) => (terminal = terminalOperand(p, operand)));
      if (reads && (terminal || stdinIsTerminal(p))) return name;
    }
    queue.push(...threadChildren(p));
  }
  return "";
}

/** The shell a process is, by its name or else by its program file (comm is only the name it was started by), or null. */
function shellOf(pid: number): string | null {
  const name = commOf(pid);
  if (name !== null && isShellName(name)) return shellName(name);
  const exe = exeNameOf(pid);
  return exe !== null && isShellName(exe) ? shellName(exe) : null;
}

/**
 * Whether a shell process's script operand is a terminal or standard input: a path known to be one (`/dev/tty`,
 * `/dev/stdin`, …), or one that names a character device from where the process stands (a link to /dev/tty, a
 * relative path from its cwd). Linux: /proc/PID/cwd and /proc/PID/root.
 */
function terminalOperand(pid: number, operand: string): boolean {
  if (isTerminalOperand(operand)) return true;
  try {
    return statSync(`/proc/${pid}/${operand.startsWith("/") ? "root" : "cwd"}/${operand}`).isCharacterDevice();
  } catch {
    return false;
  }
}

/** Whether a process's standard input is a terminal (Linux: /proc/PID/fd/0). */
function stdinIsTerminal(pid: number): boolean {
  try {
    return /^\/dev\/(?:pts\/\d+|tty\w*|console)$/.test(readlinkSync(`/proc/${pid}/fd/0`));
  } catch {
    return false;
  }
}
