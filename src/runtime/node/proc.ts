// What the host reads of the shell's processes from /proc (Linux; elsewhere each says it cannot tell): a process's
// stat fields, name, arguments and program file, its children, whether the shell waits at its prompt, which process
// is the interactive shell, and the session's members (to kill them all, or to tell `script` of a resize).

import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";
import { TOKEN_NAME } from "./bash-scripts.ts";

/**
 * The fields of a /proc/PID/stat text after the command name: state ppid pgrp session tty_nr tpgid … The name may
 * hold spaces and parentheses, so the fields start after the last ")".
 */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Fields of /proc/PID/stat after the command name: state ppid pgrp session tty_nr tpgid … (Linux). */
export function procStat(pid: number): string[] | null {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** Every process on the host: its pid, its name and its stat fields after the name (Linux: /proc; elsewhere none). */
function allProcesses(): { pid: number; name: string; fields: string[] }[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: { pid: number; name: string; fields: string[] }[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      out.push({ pid: Number(entry), name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), fields: statFields(stat) });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * The system calls readline waits in at a prompt, by architecture: pselect6 (or select, where bash was built without
 * it) on the terminal alone (nfds 1) with no timeout. bash's builtin `read` waits in read(2), `read -t` with a timeout,
 * a running command in wait4(2); only `read -e` without a timeout (readline again) looks the same.
 */
const PROMPT_WAITS: Partial<Record<NodeJS.Architecture, readonly string[]>> = { x64: ["270", "23"], arm64: ["72"] };

/** Whether the (sleeping) shell waits in its line editor's read, as at its prompt (Linux: /proc/PID/syscall). */
export function waitsAtPrompt(pid: number): boolean {
  const waits = PROMPT_WAITS[process.arch];
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/syscall`, "utf8");
  } catch {
    return waits === undefined; // not readable here: the terminal's foreground group is all there is to go by
  }
  // "NR arg1 … arg6 sp pc", or "running"
  const f = line.trim().split(" ");
  if (f.length < 7) return false;
  if (waits === undefined) return true;
  return waits.includes(f[0]!) && f[1] === "0x1" && f[5] === "0x0";
}

/** A process's name (Linux: /proc/PID/comm), or null. */
export function commOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/** A process's arguments (Linux: /proc/PID/cmdline), or []. */
export function cmdlineOf(pid: number): string[] {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw.split("\0").filter((a, i, all) => i < all.length - 1 || a !== "");
  } catch {
    return [];
  }
}

/** The base name of a process's program file (Linux: /proc/PID/exe), or null: a bash linked as `./tool` is bash. */
export function exeNameOf(pid: number): string | null {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, ""));
  } catch {
    return null;
  }
}

/** The children of every thread of a process (a program may start children from any thread). Linux: /proc. */
export function threadChildren(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (text !== "") for (const c of text.split(" ")) out.push(Number(c));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The process's children (Linux: /proc). */
function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return text === "" ? [] : text.split(" ").map(Number);
  } catch {
    return [];
  }
}

/**
 * The interactive shell itself: `pid` when the pty runs bash directly, else the first descendant that leads its own
 * process group on a terminal (inside the OS sandbox the pty runs the sandbox's launcher, which runs bash under
 * `script` on a terminal of its own). null when there is none (not Linux, or the shell has gone).
 */
export function interactiveShell(pid: number): number | null {
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const p = queue.shift() as number;
    const stat = procStat(p);
    if (stat === null) continue;
    const comm = commOf(p);
    if (comm === null) continue;
    // fields: state ppid pgrp session tty_nr tpgid
    // bash, or the name its prompt hook gives it (the last end's token)
    if ((/^(?:ba)?sh$/.test(comm) || TOKEN_NAME.test(comm)) && Number(stat[2]) === p && Number(stat[4]) !== 0) return p;
    queue.push(...childrenOf(p));
  }
  return null;
}

/** Every process in the session led by `pid` (node-pty starts each child in a new session). Linux: /proc. */
function sessionMembers(pid: number): number[] {
  // fields: state ppid pgrp session
  return allProcesses()
    .filter((p) => Number(p.fields[3]) === pid)
    .map((p) => p.pid);
}

/** SIGKILL the process, its process group and everything else in its session (background jobs included). */
export function killTree(pid: number): void {
  for (const member of sessionMembers(pid)) {
    try {
      process.kill(member, "SIGKILL");
    } catch {
      // gone already
    }
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // no such group
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/**
 * After a resize of the outer terminal: `script` inside the sandbox copies the new size to the shell's terminal when
 * it gets SIGWINCH, which the kernel sends only to the outer terminal's own session. Linux: found through /proc.
 */
export function relayResize(rootPid: number): void {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const { pid, name, fields } of allProcesses()) {
    const ppid = Number(fields[1]);
    names.set(pid, name);
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const queue = [rootPid];
  for (let i = 0; i < queue.length && i < 64; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (names.get(child) === "script") {
        try {
          process.kill(child, "SIGWINCH");
        } catch {
          // gone
        }
      } else queue.push(child);
    }
  }
}
