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
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { delimiter, join } from "node:path";
import { SHELL } from "../limits.ts";
import { Listeners } from "../lib/listeners.ts";
import { bashPrintMarkers, formatMarker } from "./markers.ts";
import { nodeFs } from "./node-fs.ts";
import { cleanEnv, makePrivateDir, openOsSandbox, relayResize, type Isolation, type OsSandbox, type OsSandboxOptions } from "./node-sandbox.ts";
import type {
  Capabilities,
  JobSpawnOptions,
  Runtime,
  RuntimeEvent,
  ShellSpawnOptions,
  TerminalProcess,
  Unsubscribe,
} from "./types.ts";

export interface NodeRuntimeOptions extends OsSandboxOptions {
  /** The agent's workspace (also HOME). Defaults to a fresh temporary directory, removed again by dispose(). */
  workspace?: string;
  /** The shell to run. Defaults to /bin/bash; it must be bash ≥ 4.4 (PS0). */
  bash?: string;
  /** Variables for the shell, on top of the clean environment (see cleanEnv in node-sandbox.ts). */
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
 * The setup file the agent's bash reads instead of ~/.bashrc. It is removed once the shell has read it (see
 * PtyProcess), so the nonce is in no file; in the shell it lives only inside the prompt hook's body, not in PS0 or any
 * variable. Each command's markers carry its sequence number and a fresh token (`exit=NONCE.SEQ.TOKEN:CODE`,
 * `start=SEQ`), and an end is verified out of band before the session trusts it (PtyProcess.checkEnd), because code
 * running inside the shell itself could always read the hook's text.
 */
function rcFile(nonce: string, envFile: string, restoreFrom: string | undefined): string {
  const env = singleQuote(envFile);
  const state = singleQuote(`${envFile}.state`);
  const tag = `'${nonce}.'"$__ss_seq.$__ss_tok"`;
  return [
    "# Sandshell: setup of the agent's shell (node runtime). Markers: OSC 654, see src/runtime/markers.ts.",
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
    // A respawn after a kill: the previous shell's variables, functions and aliases (its own hook's are set below).
    ...(restoreFrom !== undefined ? [`{ builtin . ${singleQuote(`${restoreFrom}.state`)}; } >/dev/null 2>&1`] : []),
    "PS1='\\w\\$ '",
    "PS2='> '",
    "__ss_seq=0",
    `PS0=${singleQuote(formatMarker({ kind: "start", tag: "${__ss_seq}" }))}`,
    "__sandshell_prompt() {",
    // A fresh token for this end, in no variable a command can read afterwards, and in a file written before the end
    // is printed: an end marker counts only when it carries the token the file holds (see PtyProcess.checkEnd).
    "  local __ss_ec=$? __ss_n=0 __ss_k __ss_tok=${SRANDOM}${RANDOM}${RANDOM}",
    // Typeahead the command did not read is discarded before the prompt, so it can never run as a command: read -N
    // puts the terminal in non-canonical mode and takes whatever is queued, without waiting.
    // A read that times out keeps what it got: go on until one gets nothing.
    "  while IFS= builtin read -r -s -N 4096 -t 0.0001 __ss_k; [ -n \"$__ss_k\" ]; do __ss_n=$((__ss_n + ${#__ss_k})); done",
    `  builtin export -p >| ${env} 2>/dev/null || :`,
    `  builtin printf '%s' "$__ss_tok" >| ${singleQuote(endFile(envFile))} 2>/dev/null || :`,
    `  { builtin declare -p; builtin declare -f; builtin alias -p; } >| ${state} 2>/dev/null || :`,
    `  ((__ss_n > 0)) && ${bashPrintMarkers([{ kind: "discarded", tag, count: '"$__ss_n"' }])}`,
    `  ${bashPrintMarkers([
      { kind: "exit", tag, code: '"$__ss_ec"' },
      { kind: "cwd", tag, path: '"$PWD"' },
      { kind: "prompt" },
    ])}`,
    "  __ss_seq=$((__ss_seq + 1))",
    "}",
    // The group's redirection also silences `set -x` traces of the hook, which would otherwise end up in the output.
    "PROMPT_COMMAND='{ __sandshell_prompt; } 2>/dev/null'",
    bashPrintMarkers([{ kind: "envfile", tag: singleQuote(nonce), path: env }, { kind: "interactive" }]),
    "",
  ].join("\n");
}

/** Where the prompt hook writes the token of the end it prints (beside the shell's `export -p` file). */
function endFile(envFile: string): string {
  return `${envFile}.end`;
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
    if (/^(?:ba)?sh$/.test(comm) && Number(stat[2]) === p && Number(stat[4]) !== 0) return p;
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
  private shellSetup: { rcPath: string; seen: boolean } | null;
  /** The file where the shell's prompt hook writes the token of its last end. */
  endPath: string | null = null;

  constructor(
    private readonly pty: IPty,
    onEnd: () => void,
    private readonly endMarker: string | null = null,
    rcPath: string | null = null,
  ) {
    this.shellSetup = rcPath !== null ? { rcPath, seen: false } : null;
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
    void fsp.rm(setup.rcPath, { force: true }).catch(() => undefined);
    // An interactive bash leads its own process group, so the group's id is the shell's pid.
    this.shellPgrp = interactiveShell(this.pty.pid);
  }

  checkEnd(token: string | undefined): "ended" | "stale" | "running" | null {
    const state = this.shellState();
    if (state === null) return null;
    if (this.endPath !== null) {
      if (token === undefined) return "stale"; // this shell's ends carry tokens: this one was printed by a command
      let last: string | null = null;
      try {
        last = readFileSync(this.endPath, "utf8");
      } catch {
        // removed by a command: the shell's state is all there is to go by, until the next prompt writes it again
      }
      if (last !== null && last !== token) return "stale";
    }
    return state === "prompt" ? "ended" : "running";
  }

  /** prompt: the shell waits at its prompt; foreground: a program of it owns the terminal; busy: anything else. */
  private shellState(): "prompt" | "foreground" | "busy" | null {
    const pgrp = this.shellPgrp;
    if (pgrp === null) return null;
    const own = procStat(pgrp);
    if (own === null) return null;
    // fields: state ppid pgrp session tty_nr tpgid: a program of the shell's owns the terminal
    if (Number(own[5]) !== pgrp) return "foreground";
    if (own[0] !== "S") return "busy";
    return waitsAtPrompt(pgrp) ? "prompt" : "busy";
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

  /** Set for a shell inside the OS sandbox: its terminal is relayed by `script` (see node-sandbox.ts). */
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
  // Long commands the shell sources: a folder it can read but not write (node-sandbox.ts), so none is swapped after the check.
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

  function track(p: IPty, endMarker: string | null = null, rcPath: string | null = null): PtyProcess {
    const proc: PtyProcess = new PtyProcess(p, () => live.delete(proc), endMarker, rcPath);
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
      const envFile = join(privateDir, `env-${k}`);
      const rc = join(privateDir, `rc-${k}.sh`);
      const restoreFrom = opts.restoreFrom !== undefined && opts.restoreFrom.startsWith(`${privateDir}/`) ? opts.restoreFrom : undefined;
      // Through nodeFs (a new file renamed over the name): the sandboxed shell can write this folder, and a symlink it
      // planted at the next rc file's name must not make the host write through it.
      await nodeFs.writeFile(rc, rcFile(nonce, envFile, restoreFrom), { mode: 0o600 });
      const cwd = await startDir(opts.cwd);
      const env = { ...baseEnv, ...(opts.env ?? {}), HOME: opts.env?.HOME ?? workspace, TMPDIR: privateDir };
      const run = await os.plan(bash, ["--noprofile", "--rcfile", rc, "-i"], env, true);
      const p = pty.spawn(run.file, run.args, {
        name: "xterm-256color",
        cols: opts.cols,
        rows: opts.rows,
        cwd,
        env: run.env,
        encoding: null,
      });
      const proc = track(p, null, rc);
      proc.endPath = endFile(envFile);
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
      listeners.clear();
      await os.release();
      await fsp.rm(privateDir, { recursive: true, force: true });
      await fsp.rm(commandDir, { recursive: true, force: true });
      if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return runtime;
}
