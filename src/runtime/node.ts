// The node runtime: real bash on a real pseudo-terminal (node-pty). It is the conformance reference for the session
// engine and the benchmarks' baseline. The shell prints the OSC 654 markers from PROMPT_COMMAND and PS0, each tagged
// with a per-runtime nonce, so a command's own output cannot fake an end.
//
// Markers this shell prints (N = markerNonce):
//   interactive                once, when the setup file has run
//   envfile=N:PATH             once: where `export -p` is written before every prompt (used to restore a respawn)
//   start=N                    from PS0: the command line was read and is about to run (everything before is echo)
//   exit=N:CODE  cwd=N:PATH  prompt     from PROMPT_COMMAND, before every prompt

import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { delimiter, join } from "node:path";
import { SHELL } from "../limits.ts";
import { Listeners } from "./listeners.ts";
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
      throw new Error(`The node runtime needs the optional package node-pty, which could not be loaded: ${String(err)}`);
    },
  );
  return ptyModule;
}

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The setup file the agent's bash reads instead of ~/.bashrc. */
function rcFile(nonce: string, envFile: string): string {
  const env = singleQuote(envFile);
  return [
    "# Sandshell: setup of the agent's shell (node runtime). Markers: OSC 654, see src/runtime/node.ts.",
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
    "PS1='\\w\\$ '",
    "PS2='> '",
    `PS0='\\e]654;start=${nonce}\\a'`,
    "__sandshell_prompt() {",
    "  local __ss_ec=$?",
    `  builtin export -p >| ${env} 2>/dev/null || :`,
    `  builtin printf '\\e]654;exit=%s:%s\\a\\e]654;cwd=%s:%s\\a\\e]654;prompt\\a' '${nonce}' "$__ss_ec" '${nonce}' "$PWD"`,
    "}",
    // The group's redirection also silences `set -x` traces of the hook, which would otherwise end up in the output.
    "PROMPT_COMMAND='{ __sandshell_prompt; } 2>/dev/null'",
    `builtin printf '\\e]654;envfile=%s:%s\\a\\e]654;interactive\\a' '${nonce}' ${env}`,
    "",
  ].join("\n");
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
  constructor(
    private readonly pty: IPty,
    onEnd: () => void,
    private readonly endMarker: string | null = null,
  ) {
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

  private deliver(text: string): void {
    if (this.sawEnd || text === "") return;
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
  let os: OsSandbox;
  try {
    os = await openOsSandbox(options, { workspace, tempDir: privateDir });
  } catch (err) {
    await fsp.rm(privateDir, { recursive: true, force: true });
    if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true });
    throw err;
  }
  const nonce = randomUUID();
  const baseEnv = cleanEnv(process.env, { workspace, tempDir: privateDir, bash }, options.env);

  const listeners = new Listeners<RuntimeEvent>("runtime");
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

  function track(p: IPty, endMarker: string | null = null): PtyProcess {
    const proc: PtyProcess = new PtyProcess(p, () => live.delete(proc), endMarker);
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
    capabilities,
    markerNonce: nonce,
    // Where the OS sandbox does not run, say so wherever the runtime's note is shown (status bar, runtimeInfo).
    ...(os.isolation.state !== "sandboxed" ? { note: os.isolation.reason } : {}),
    async spawnShell(opts: ShellSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const k = ++spawned;
      const envFile = join(privateDir, `env-${k}`);
      const rc = join(privateDir, `rc-${k}.sh`);
      await fsp.writeFile(rc, rcFile(nonce, envFile), { mode: 0o600 });
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
      const proc = track(p);
      proc.relaysTerminal = os.isolation.state === "sandboxed";
      return proc;
    },
    async spawnJob(command: string, opts: JobSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const cwd = await startDir(opts.cwd);
      // The command runs in a subshell (its `exit` ends only that); then the end handshake (see PtyProcess).
      const endMarker = `\x1b]654;jobend=${nonce}\x07`;
      const script =
        `(\n${command}\n)\n__ss_ec=$?\n` +
        `builtin printf '\\e]654;jobend=%s\\a' '${nonce}'\n` +
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
      if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return runtime;
}
