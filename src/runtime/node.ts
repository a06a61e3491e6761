// The node runtime: real bash on a real pseudo-terminal (node-pty). It is the conformance reference for the session
// engine and the benchmarks' baseline. The shell prints the OSC 654 markers from PROMPT_COMMAND and PS0 (the setup file
// is generated from src/runtime/markers.ts); an end is bound to its command and verified out of band (checkEnd).
//
// Markers this shell prints (N = markerNonce, S = the command's number, T = a fresh token per end):
//   interactive                  once, when the setup file has run
//   envfile=N:PATH               once: where `export -p` is written before every prompt (used to restore a respawn)
//   start=S                      from PS0: the command line was read and is about to run (everything before is echo)
//   discarded=N.S.T:COUNT        from PROMPT_COMMAND, when typed-ahead input the command did not read was dropped
//   exit=N.S.T:CODE  cwd=N.S.T:PATH  prompt     from PROMPT_COMMAND, before every prompt

import { randomUUID } from "node:crypto";
import { closeSync, constants as fsConstants, existsSync, fstatSync, opendirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, statSync, unlinkSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { basename, delimiter, dirname, join } from "node:path";
import { SHELL } from "../limits.ts";
import { Listeners } from "../lib/listeners.ts";
import { isShellName, isTerminalOperand, readsCommands, shellName } from "../lib/shells.ts";
import { bashPrintMarkers, formatMarker } from "./markers.ts";
import { nodeFs } from "./node/fs.ts";
import { cleanEnv } from "./node/clean-env.ts";
import { makePrivateDir } from "./node/private-dirs.ts";
import { openOsSandbox, relayResize, type Isolation, type OsSandbox, type OsSandboxOptions } from "./node/sandbox.ts";
import type {
  Capabilities,
  JobSpawnOptions,
  Runtime,
  RuntimeEvent,
  ShellProbe,
  ShellSpawnOptions,
  TerminalProcess,
  Unsubscribe,
} from "./types.ts";

export interface NodeRuntimeOptions extends OsSandboxOptions {
  /** The agent's workspace (also HOME). Defaults to a fresh temporary directory, removed again by dispose(). */
  workspace?: string;
  /** The shell to run. Defaults to /bin/bash; it must be bash ≥ 4.4 (PS0). */
  bash?: string;
  /** Variables for the shell, on top of the clean environment (see cleanEnv in node/clean-env.ts). */
  env?: Record<string, string>;
}

/** The node runtime: a Runtime with its OS sandbox state and private temp directory. */
export interface NodeRuntime extends Runtime {
  readonly isolation: Isolation;
  /** The sandbox's private 0700 temp directory (TMPDIR, setup and spill files), removed by dispose(). */
  readonly tempDir: string;
}

const INTERACTIVE = formatMarker({ kind: "interactive" });

/** Programs probed on PATH for `capabilities.programs`. */
const PROBED_PROGRAMS = [
  "awk", "bash", "bc", "cat", "curl", "diff", "find", "git", "grep", "gzip", "head", "jq", "less", "ls", "make",
  "node", "npm", "npx", "patch", "perl", "pip", "pip3", "python", "python3", "rg", "sed", "sort", "tail", "tar",
  "tr", "vim", "wc", "wget", "xargs",
];

type PtyModule = typeof import("node-pty");
type IPty = import("node-pty").IPty;

let ptyModule: Promise<PtyModule> | null = null;

function loadPty(): Promise<PtyModule> {
  ptyModule ??= import("node-pty").then(
    (m) => ((m as unknown as { default?: PtyModule }).default ?? m) as PtyModule,
    (err: unknown) => {
      ptyModule = null;
      throw new Error(
        `The node runtime needs the optional package node-pty, which could not be loaded (${String(err)}). ` +
          'Add it with `npm install node-pty` (it builds from source: python3, make and a C++ compiler), or use runtime: "embedded", which needs nothing native.',
      );
    },
  );
  return ptyModule;
}

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The setup file the agent's bash reads instead of ~/.bashrc (written where the shell cannot write: the command folder,
 * and removed once the shell has read it). Each command's markers carry its sequence number and the end's token
 * (`exit=NONCE.SEQ.TOKEN:CODE`, `start=SEQ`), and an end is verified out of band before the session trusts it
 * (PtyProcess.probe). The nonce is no secret: the prompt hook's text holds it, and `declare -f` writes that to the
 * state file a command can read. What a forger cannot have in time is the token (see the hook below).
 */
function rcFile(nonce: string, envFile: string, restorePath: string | undefined): string {
  const env = singleQuote(envFile);
  const state = singleQuote(stateFile(envFile));
  const tag = `'${nonce}.'"$__ss_seq.$__ss_tok"`;
  return [
    "# Sandshell: setup of the agent's shell (node runtime). Markers: OSC 654, see src/runtime/markers.ts.",
    // No key bindings from a file a command can write (HOME is the workspace): a macro bound to Enter in ~/.inputrc
    // would add text to every command after the guard checked it. Set before the first `bind` reads the file.
    "export INPUTRC=/dev/null",
    "set +H",
    "unset HISTFILE",
    // Bracketed paste lets a multi-line command with tabs arrive as typed text without completion or PS2 echo,
    // and its on/off switches tell the session when readline reads (on) and when the echo is over (off).
    "bind 'set enable-bracketed-paste on' 2>/dev/null",
    "bind 'set enable-active-region off' 2>/dev/null",
    "bind 'set bell-style none' 2>/dev/null",
    "bind 'set input-meta on' 2>/dev/null",
    "bind 'set output-meta on' 2>/dev/null",
    "bind 'set convert-meta off' 2>/dev/null",
    // A respawn: the previous shell's variables, functions and aliases as the host took them at a verified prompt,
    // from a file in the command folder (no command can write it). Its own hook's are set again below.
    ...(restorePath !== undefined ? [`{ builtin . ${singleQuote(restorePath)}; } >/dev/null 2>&1`] : []),
    "PS1='\\w\\$ '",
    "PS2='> '",
    "__ss_seq=0",
    `PS0=${singleQuote(formatMarker({ kind: "start", tag: "${__ss_seq}" }))}`,
    "__sandshell_prompt() {",
    "  local __ss_ec=$? __ss_n=0 __ss_k",
    // Typeahead the command did not read is discarded before the prompt, so it can never run as a command: read -N
    // puts the terminal in non-canonical mode and takes whatever is queued, without waiting.
    // A read that times out keeps what it got: go on until one gets nothing.
    "  while IFS= builtin read -r -s -N 4096 -t 0.0001 __ss_k; [ -n \"$__ss_k\" ]; do __ss_n=$((__ss_n + ${#__ss_k})); done",
    // The state goes to files the hook creates now, under a fresh random name (noclobber: O_EXCL), kept open on fixed
    // descriptors; the host reads them through /proc/PID/fd and removes their names. A file a command made or linked
    // beforehand (and holds open to write later) is never the one written or read.
    // (`command exec`: `builtin exec`'s redirections would be its own, undone at once.)
    `  command exec ${STATE_FDS.env}>&- ${STATE_FDS.state}>&-`,
    "  local __ss_c=$- __ss_r",
    `  builtin printf -v __ss_r '%08x%08x' "\${SRANDOM:-${RANDOM32}}" "\${SRANDOM:-${RANDOM32}}"`,
    "  builtin set -C",
    `  command exec ${STATE_FDS.env}>${env}."$__ss_r" || :`,
    `  command exec ${STATE_FDS.state}>${state}."$__ss_r" || :`,
    '  [[ $__ss_c == *C* ]] || builtin set +C',
    `  builtin export -p >&${STATE_FDS.env} 2>/dev/null || :`,
    `  { builtin declare -p; builtin declare -f; builtin alias -p; } >&${STATE_FDS.state} 2>/dev/null || :`,
    // The end's token: drawn after the state is written (a local shows in `declare -p`), printed in the end, and only
    // then published as the shell's own name (/proc/self/comm: no other process can set it). A process that copies
    // it can print its end only after the real one; the session takes the first end that carries it (single use).
    "  local __ss_tok",
    `  builtin printf -v __ss_tok '${TOKEN_PREFIX}%08x%02x' "\${SRANDOM:-${RANDOM32}}" "$((\${SRANDOM:-$RANDOM} & 255))"`,
    `  ((__ss_n > 0)) && ${bashPrintMarkers([{ kind: "discarded", tag, count: '"$__ss_n"' }])}`,
    `  ${bashPrintMarkers([
      { kind: "exit", tag, code: '"$__ss_ec"' },
      { kind: "cwd", tag, path: '"$PWD"' },
      { kind: "prompt" },
    ])}`,
    "  builtin printf '%s' \"$__ss_tok\" >| /proc/self/comm 2>/dev/null || :",
    "  __ss_seq=$((__ss_seq + 1))",
    "}",
    // The group's redirection also silences `set -x` traces of the hook, which would otherwise end up in the output.
    "PROMPT_COMMAND='{ __sandshell_prompt; } 2>/dev/null'",
    bashPrintMarkers([{ kind: "envfile", tag: singleQuote(nonce), path: env }, { kind: "interactive" }]),
    "",
  ].join("\n");
}

/**
 * The shell's name while it waits at a prompt: this prefix and ten hex digits of the end's token (40 bits; 15
 * characters, the most a process name holds). `ps` still shows a bash.
 */
const TOKEN_PREFIX = "bash-";
const TOKEN_NAME = /^bash-[0-9a-f]{10}$/;

/**
 * The descriptors on which the agent's shell keeps the files its prompt hook last created (`export -p`; the state):
 * high numbers no script picks by chance, below the 255 bash keeps for its terminal.
 */
const STATE_FDS = { env: 250, state: 251 } as const;

/** 32 random bits in a bash without SRANDOM (before 5.1), from three RANDOMs. */
const RANDOM32 = "$(((RANDOM << 17 ^ RANDOM << 2 ^ RANDOM) & 0xffffffff))";

/** The names the prompt hook gives the files it creates: the base name, a dot and 16 hex digits. */
function isFreshName(name: string, base: string): boolean {
  return name.startsWith(`${base}.`) && /^[0-9a-f]{16}$/.test(name.slice(base.length + 1));
}

/** Where the prompt hook writes `declare -p`, `declare -f` and `alias -p` (beside the shell's `export -p` file). */
function stateFile(envFile: string): string {
  return `${envFile}.state`;
}


/**
 * A file the shell writes, read by the host without following a symlink a command may have put there, only when it is
 * a regular file with no other name (a hard link made to write it through) of at most `max` bytes (null otherwise: a
 * FIFO or /dev/zero must not hang the host). `/proc/PID/fd/N` is followed: it is the file that process holds open.
 */
function readOwnFile(path: string, max: number): string | null {
  let fd: number;
  const follow = path.startsWith("/proc/") ? 0 : fsConstants.O_NOFOLLOW;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | follow | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || st.size > max) return null;
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got > st.size) return null; // grew meanwhile
    return buf.toString("utf8", 0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Fields of /proc/PID/stat after the command name: state ppid pgrp session tty_nr tpgid … (Linux). */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/**
 * The system calls readline waits in at a prompt, by architecture: pselect6 (or select, where bash was built without
 * it) on the terminal alone (nfds 1) with no timeout. bash's builtin `read` waits in read(2), `read -t` with a timeout,
 * a running command in wait4(2); only `read -e` without a timeout (readline again) looks the same.
 */
const PROMPT_WAITS: Partial<Record<NodeJS.Architecture, readonly string[]>> = { x64: ["270", "23"], arm64: ["72"] };

/** Whether the (sleeping) shell waits in its line editor's read, as at its prompt (Linux: /proc/PID/syscall). */
function waitsAtPrompt(pid: number): boolean {
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
function commOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/** A process's arguments (Linux: /proc/PID/cmdline), or []. */
function cmdlineOf(pid: number): string[] {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw.split("\0").filter((a, i, all) => i < all.length - 1 || a !== "");
  } catch {
    return [];
  }
}

/** The base name of a process's program file (Linux: /proc/PID/exe), or null: a bash linked as `./tool` is bash. */
function exeNameOf(pid: number): string | null {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, ""));
  } catch {
    return null;
  }
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

/** The children of every thread of a process (a program may start children from any thread). Linux: /proc. */
function threadChildren(pid: number): number[] {
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

/** How many processes under the foreground program readerShell() looks at, at most. */
const MAX_READER_WALK = 256;

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
function interactiveShell(pid: number): number | null {
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const p = queue.shift() as number;
    const stat = procStat(p);
    if (stat === null) continue;
    let comm = "";
    try {
      comm = readFileSync(`/proc/${p}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    // fields: state ppid pgrp session tty_nr tpgid
    // bash, or the name its prompt hook gives it (the last end's token)
    if ((/^(?:ba)?sh$/.test(comm) || TOKEN_NAME.test(comm)) && Number(stat[2]) === p && Number(stat[4]) !== 0) return p;
    queue.push(...childrenOf(p));
  }
  return null;
}

/** Every process in the session led by `pid` (node-pty starts each child in a new session). Linux: /proc. */
function sessionMembers(pid: number): number[] {
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return members;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses, so split after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === pid) members.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return members;
}

/** SIGKILL the process, its process group and everything else in its session (background jobs included). */
function killTree(pid: number): void {
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

class PtyProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private readonly listeners = new Listeners<string>("terminal");
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private ended = false;
  private killed = false;
  /** Held-back tail that could be the start of `endMarker`. */
  private carry = "";
  private sawEnd = false;

  /**
   * With `endMarker`, the process prints it when its work is done and then waits for a line on its terminal before
   * exiting: Linux can drop what is still buffered in a pty when its last writer closes (EIO before the rest is read),
   * so the reply is sent only once everything before the marker has been read. Nothing after the marker is passed on.
   */
  /** The shell's process group, learnt when it announced itself (`interactive`): it owns the terminal at a prompt. */
  private shellPgrp: number | null = null;
  private shellSetup: { files: string[]; seen: boolean } | null;
  /** The file where the shell's prompt hook writes `export -p` (its state file beside it). */
  envPath: string | null = null;

  constructor(
    private readonly pty: IPty,
    onEnd: () => void,
    private readonly endMarker: string | null = null,
    setupFiles: string[] = [],
  ) {
    this.shellSetup = setupFiles.length > 0 ? { files: setupFiles, seen: false } : null;
    pty.onData((data: string | Buffer) => {
      const text = typeof data === "string" ? data : this.decoder.decode(data, { stream: true });
      this.deliver(text);
    });
    this.exited = new Promise<number>((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        this.deliver(this.decoder.decode());
        if (this.carry !== "" && !this.sawEnd) this.emit(this.carry);
        this.carry = "";
        this.ended = true;
        onEnd();
        resolve(signal ? 128 + signal : exitCode);
      });
    });
  }

  private emit(text: string): void {
    if (text !== "") this.listeners.emit(text);
  }

  /** The shell has read its setup file (it prints `interactive` last): remove the file, note who owns the terminal. */
  private watchSetup(text: string): void {
    const setup = this.shellSetup;
    if (setup === null || setup.seen || !text.includes(INTERACTIVE)) return;
    setup.seen = true;
    for (const file of setup.files) void fsp.rm(file, { force: true }).catch(() => undefined);
    // An interactive bash leads its own process group, so the group's id is the shell's pid.
    this.shellPgrp = interactiveShell(this.pty.pid);
  }

  /**
   * What the shell does now, from /proc (null where that cannot be read): `prompt` when it owns the terminal and waits
   * in its line editor's read; `held` when it waits there but another process group has taken the terminal (a
   * background job that called tcsetpgrp: what is typed now goes to that group, or makes the shell read end-of-file);
   * `foreground` when a program of the shell's owns the terminal; `busy` otherwise (a builtin, its hook, `read`). The
   * token is the shell's name, which its prompt hook sets to the last end's token after printing that end.
   */
  probe(): ShellProbe | null {
    const pgrp = this.shellPgrp;
    if (pgrp === null) return null;
    const own = procStat(pgrp);
    if (own === null) return null;
    let token: string | undefined;
    try {
      token = readFileSync(`/proc/${pgrp}/comm`, "utf8").trim();
    } catch {
      return null;
    }
    if (!TOKEN_NAME.test(token)) token = undefined;
    // fields: state ppid pgrp session tty_nr tpgid
    const tpgid = Number(own[5]);
    const waiting = own[0] === "S" && waitsAtPrompt(pgrp);
    if (tpgid !== pgrp) {
      if (!waiting) return { state: "foreground", token };
      return { state: "held", token, holder: { pgrp: tpgid, name: commOf(tpgid) ?? "?" } };
    }
    if (!waiting) return { state: "busy", token };
    return { state: "prompt", token, settled: this.relayWaits(Number(own[1])) };
  }

  /**
   * Inside the OS sandbox the shell's terminal is relayed by `script` (its parent): whether that relay waits too, so
   * nothing typed is still on its way to the shell. True where there is no relay.
   */
  private relayWaits(parent: number): boolean {
    if (!this.relaysTerminal) return true;
    const stat = procStat(parent);
    return stat !== null && stat[0] === "S";
  }

  /**
   * The shell's state as its prompt hook last wrote it (`export -p`; `declare -p`, `declare -f`, `alias -p`), read now:
   * the session takes it at a verified prompt, so a respawn never reads a file the shell could write since.
   */
  snapshotState(): { exported: string; state: string } | null {
    if (this.envPath === null || this.shellPgrp === null) return null;
    const pgrp = this.shellPgrp;
    const dir = dirname(this.envPath);
    // The files the shell itself holds open, created by its hook at this prompt: only under a name the hook gives, in
    // its folder, still there (one the host took before has lost its name: "… (deleted)").
    const take = (fd: number, path: string): string | null => {
      const link = `/proc/${pgrp}/fd/${fd}`;
      let target: string;
      try {
        target = readlinkSync(link);
      } catch {
        return null; // closed: the hook could not create it
      }
      if (dirname(target) !== dir || !isFreshName(basename(target), basename(path))) return null;
      return readOwnFile(link, SHELL.stateMaxBytes);
    };
    const exported = take(STATE_FDS.env, this.envPath);
    const state = take(STATE_FDS.state, stateFile(this.envPath));
    // The folder holds only the hook's files: those of prompts not taken (the first, a person's quick commands) and
    // anything a command put there go too, a bounded number at a time (a command may have made a million).
    let names: string[] = [];
    try {
      const d = opendirSync(dir);
      try {
        for (let e = d.readSync(); e !== null && names.length < SHELL.stateSweepMax; e = d.readSync()) names.push(e.name);
      } finally {
        d.closeSync();
      }
    } catch {
      // gone
    }
    for (const name of names) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // a folder, or gone
      }
    }
    return exported === null || state === null ? null : { exported, state };
  }

  /** Stops the process group that holds the shell's terminal (not the shell's own), when it is in the shell's session. */
  stopHolder(pgrp: number): boolean {
    const shell = this.shellPgrp;
    if (shell === null || pgrp === shell || pgrp <= 1) return false;
    const own = procStat(shell);
    const other = procStat(pgrp);
    if (own === null || other === null || other[3] !== own[3]) return false; // only a group of the shell's session
    try {
      process.kill(-pgrp, "SIGKILL");
      return true;
    } catch {
      return false;
    }
  }

  shellCwd(claimed: string | undefined): string | undefined {
    if (this.shellPgrp === null) return undefined;
    try {
      const cwd = readlinkSync(`/proc/${this.shellPgrp}/cwd`);
      return claimed !== undefined && claimed !== cwd && realpathSync(claimed) === cwd ? claimed : cwd;
    } catch {
      return undefined;
    }
  }

  /** A program of the shell's in the foreground (not the shell itself, e.g. running its builtin `read`). */
  foreground(): string | undefined {
    if (this.shellPgrp !== null) {
      const own = procStat(this.shellPgrp);
      if (own !== null) {
        const group = Number(own[5]);
        if (group === this.shellPgrp) return undefined;
        try {
          // the foreground group's leader: the program the shell started (node-pty would name the sandbox's launcher)
          return readFileSync(`/proc/${group}/comm`, "utf8").trim();
        } catch {
          // ended meanwhile: ask node-pty
        }
      }
    }
    try {
      return this.pty.process;
    } catch {
      return undefined;
    }
  }

  /**
   * An interactive shell among the foreground program's processes and everything they started (a bash under
   * python's pty.spawn or `script -qc bash` runs on a terminal of its own, so the foreground program's name alone
   * does not show it): its name, or undefined. A shell is known by its name or its program file (a bash linked as
   * `./tool`). It counts when it reads commands (no `-c`, no script operand, `-i`/`-s`, or a script operand that is the
   * terminal: `sh /dev/tty`) and its standard input or that operand is a terminal. Text typed now may reach it as a
   * command line. "" when there is none, null where this cannot be told.
   */
  readerShell(): string | null {
    const shell = this.shellPgrp;
    if (shell === null) return null;
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

  private deliver(text: string): void {
    if (this.sawEnd || text === "") return;
    if (this.shellSetup !== null && !this.shellSetup.seen) this.watchSetup(text);
    const marker = this.endMarker;
    if (marker === null) {
      this.emit(text);
      return;
    }
    const data = this.carry + text;
    this.carry = "";
    const at = data.indexOf(marker);
    if (at !== -1) {
      this.sawEnd = true;
      this.emit(data.slice(0, at));
      this.write("\r");
      return;
    }
    let keep = 0;
    const lastEsc = data.lastIndexOf("\x1b");
    if (lastEsc !== -1 && data.length - lastEsc < marker.length && marker.startsWith(data.slice(lastEsc))) {
      keep = data.length - lastEsc;
    }
    this.emit(data.slice(0, data.length - keep));
    this.carry = data.slice(data.length - keep);
  }

  get pid(): number {
    return this.pty.pid;
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  write(data: string): void {
    if (this.ended || this.killed || data === "") return;
    if (this.sawEnd && data !== "\r") return; // the job is over: only the reply that lets it exit
    try {
      this.pty.write(data);
    } catch {
      // the terminal closed under us; `exited` reports it
    }
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    try {
      this.pty.resize(Math.max(2, Math.floor(cols)), Math.max(1, Math.floor(rows)));
      if (this.relaysTerminal) relayResize(this.pty.pid);
    } catch {
      // closed
    }
  }

  /** Set for a shell inside the OS sandbox: its terminal is relayed by `script` (see node/sandbox.ts). */
  relaysTerminal = false;

  kill(): void {
    if (this.ended) return;
    this.killed = true;
    killTree(this.pty.pid);
  }
}

function probePrograms(pathVar: string): Record<string, boolean> {
  const dirs = pathVar.split(delimiter).filter((d) => d !== "");
  const found: Record<string, boolean> = {};
  for (const name of PROBED_PROGRAMS) {
    found[name] = dirs.some((dir) => {
      try {
        const s = statSync(join(dir, name));
        return s.isFile() && (s.mode & 0o111) !== 0;
      } catch {
        return false;
      }
    });
  }
  return found;
}

export async function createNodeRuntime(options: NodeRuntimeOptions = {}): Promise<NodeRuntime> {
  const pty = await loadPty();
  const bash = options.bash ?? "/bin/bash";
  if (!existsSync(bash)) throw new Error(`The node runtime needs bash at ${bash}, which does not exist`);

  const ownsWorkspace = options.workspace === undefined;
  let workspace = options.workspace ?? (await makePrivateDir("ws"));
  await fsp.mkdir(workspace, { recursive: true });
  workspace = await fsp.realpath(workspace);
  // TMPDIR, setup files, the exported-variables snapshot and spill files: one private 0700 directory, by its real path.
  const privateDir = await makePrivateDir("rt");
  // Long commands the shell sources: a folder it can read but not write (node/sandbox.ts), so none is swapped after the check.
  const commandDir = await makePrivateDir("cmd");
  const listeners = new Listeners<RuntimeEvent>("runtime");
  let os: OsSandbox;
  try {
    const onNotice = (message: string): void => listeners.emit({ type: "status", message });
    os = await openOsSandbox(options, { workspace, tempDir: privateDir, commandDir, onNotice });
  } catch (err) {
    await fsp.rm(privateDir, { recursive: true, force: true });
    await fsp.rm(commandDir, { recursive: true, force: true });
    if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true });
    throw err;
  }
  const nonce = randomUUID();
  const baseEnv = cleanEnv(process.env, { workspace, tempDir: privateDir, bash }, options.env);

  const live = new Set<PtyProcess>();
  let spawned = 0;
  let disposed = false;

  const capabilities: Capabilities = {
    heredocs: true,
    pipes: true,
    redirects: true,
    lists: true,
    background: true,
    exportVars: true,
    programs: probePrograms(baseEnv.PATH ?? ""),
  };

  async function startDir(cwd: string | undefined): Promise<string> {
    if (cwd === undefined) return workspace;
    const s = await fsp.stat(cwd).catch(() => null);
    return s?.isDirectory() ? cwd : workspace;
  }

  function track(p: IPty, endMarker: string | null = null, setupFiles: string[] = []): PtyProcess {
    const proc: PtyProcess = new PtyProcess(p, () => live.delete(proc), endMarker, setupFiles);
    live.add(proc);
    return proc;
  }

  function checkOpen(): void {
    if (disposed) throw new Error("The node runtime has been disposed");
  }

  const runtime: NodeRuntime = {
    kind: "node",
    workspace,
    isolation: os.isolation,
    tempDir: privateDir,
    // Spill files: in the private folder, which the sandboxed shell can see. Long commands: where it cannot write.
    spillDir: privateDir,
    commandDir,
    ...(os.protectedWrite !== undefined ? { protectedWrite: os.protectedWrite } : {}),
    ...(os.afterCommand !== undefined ? { afterCommand: os.afterCommand } : {}),
    capabilities,
    markerNonce: nonce,
    // Where the OS sandbox does not run, say so wherever the runtime's note is shown (status bar, runtimeInfo).
    ...(os.isolation.state !== "sandboxed" ? { note: os.isolation.reason } : {}),
    async spawnShell(opts: ShellSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const k = ++spawned;
      // The prompt hook's files, in a folder of their own (the host empties it at every prompt it takes).
      const stateDir = join(privateDir, `shell-${k}`);
      await fsp.mkdir(stateDir, { mode: 0o700 });
      const envFile = join(stateDir, "env");
      // The setup file and the state it restores go where the shell cannot write (the command folder): nothing running
      // in the sandbox (a job of another caller, say) can change them before the new shell reads them.
      const rc = join(commandDir, `rc-${k}.sh`);
      const restore = opts.restoreState !== undefined ? join(commandDir, `state-${k}.sh`) : undefined;
      if (restore !== undefined) await fsp.writeFile(restore, opts.restoreState ?? "", { mode: 0o600, flag: "wx" });
      await fsp.writeFile(rc, rcFile(nonce, envFile, restore), { mode: 0o600, flag: "wx" });
      const cwd = await startDir(opts.cwd);
      const env = { ...baseEnv, ...(opts.env ?? {}), HOME: opts.env?.HOME ?? workspace, TMPDIR: privateDir, INPUTRC: "/dev/null" };
      const run = await os.plan(bash, ["--noprofile", "--rcfile", rc, "-i"], env, true);
      const p = pty.spawn(run.file, run.args, {
        name: "xterm-256color",
        cols: opts.cols,
        rows: opts.rows,
        cwd,
        env: run.env,
        encoding: null,
      });
      const proc = track(p, null, restore !== undefined ? [rc, restore] : [rc]);
      proc.envPath = envFile;
      proc.relaysTerminal = os.isolation.state === "sandboxed";
      return proc;
    },
    async spawnJob(command: string, opts: JobSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const cwd = await startDir(opts.cwd);
      // The command runs in a subshell (its `exit` ends only that); then the end handshake (see PtyProcess).
      const endMarker = formatMarker({ kind: "jobend", tag: nonce });
      const script =
        `(\n${command}\n)\n__ss_ec=$?\n` +
        `${bashPrintMarkers([{ kind: "jobend", tag: singleQuote(nonce) }])}\n` +
        "IFS= builtin read -r -t 10 __ss_reply\n" +
        "exit $__ss_ec\n";
      const run = await os.plan(bash, ["--noprofile", "--norc", "-c", script, "sandshell-job"], { ...baseEnv, ...(opts.env ?? {}), TMPDIR: privateDir }, false);
      const p = pty.spawn(run.file, run.args, {
        name: "xterm-256color",
        cols: SHELL.agentCols,
        rows: SHELL.agentRows,
        cwd,
        env: run.env,
        encoding: null,
      });
      return track(p, endMarker);
    },
    fs: nodeFs,
    on: (listener) => listeners.add(listener),
    async dispose() {
      if (disposed) return;
      disposed = true;
      const ending = [...live].map((proc) => {
        proc.kill();
        return Promise.race([proc.exited, new Promise((r) => setTimeout(r, SHELL.disposeWaitMs))]);
      });
      await Promise.all(ending);
      // Before the listeners go: the OS sandbox's last look at close says what it disabled or moved aside.
      await os.release();
      listeners.clear();
      await fsp.rm(privateDir, { recursive: true, force: true });
      await fsp.rm(commandDir, { recursive: true, force: true });
      if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return runtime;
}
