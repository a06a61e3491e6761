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
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { SHELL } from "../limits.ts";
import { Listeners } from "./listeners.ts";
import type {
  Capabilities,
  DirEntry,
  FileStat,
  JobSpawnOptions,
  Runtime,
  RuntimeEvent,
  RuntimeFs,
  ShellSpawnOptions,
  TerminalProcess,
  Unsubscribe,
} from "./types.ts";

export interface NodeRuntimeOptions {
  /** The agent's workspace (also HOME). Defaults to a fresh temporary directory, removed again by dispose(). */
  workspace?: string;
  /** The shell to run. Defaults to /bin/bash; it must be bash ≥ 4.4 (PS0). */
  bash?: string;
}

/** Programs probed on PATH for `capabilities.programs`. */
const PROBED_PROGRAMS = [
  "awk", "bash", "bc", "cat", "curl", "diff", "find", "git", "grep", "gzip", "head", "jq", "less", "ls", "make",
  "node", "npm", "npx", "patch", "perl", "pip", "pip3", "python", "python3", "rg", "sed", "sort", "tail", "tar",
  "tr", "vim", "wc", "wget", "xargs",
];

/** Inherited variables that would change how the agent's shell starts or behaves. */
const DROPPED_ENV = ["PROMPT_COMMAND", "PS0", "PS1", "PS2", "BASH_ENV", "ENV", "HISTFILE", "SHELLOPTS", "BASHOPTS", "CDPATH"];

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
    } catch {
      // closed
    }
  }

  kill(): void {
    if (this.ended) return;
    this.killed = true;
    killTree(this.pty.pid);
  }
}

function errnoError(err: unknown): Error {
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string") return err;
  const e = new Error(String(err)) as NodeJS.ErrnoException;
  e.code = "EIO";
  return e;
}

function typeOf(s: import("node:fs").Stats | import("node:fs").Dirent): DirEntry["type"] {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "dir";
  if (s.isFile()) return "file";
  return "other";
}

/** Runs a node:fs call, turning its error into the runtime's errno error. */
async function errno<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw errnoError(err);
  }
}

const nodeFs: RuntimeFs = {
  readFile: (path) =>
    errno(async () => {
      const buf = await fsp.readFile(path);
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    }),
  writeFile: (path, data) => errno(() => fsp.writeFile(path, data)),
  appendFile: (path, data) => errno(() => fsp.appendFile(path, data)),
  readdir: (path) =>
    errno(async () => {
      const entries = await fsp.readdir(path, { withFileTypes: true });
      return Promise.all(
        entries.map(async (entry): Promise<DirEntry> => {
          const type = typeOf(entry);
          let size = 0;
          if (type === "file") size = await fsp.lstat(join(path, entry.name)).then((s) => s.size, () => 0);
          return { name: entry.name, type, size };
        }),
      );
    }),
  async stat(path): Promise<FileStat | null> {
    try {
      const s = await fsp.lstat(path);
      const type = typeOf(s);
      return { type, size: type === "file" ? s.size : 0 };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw errnoError(err);
    }
  },
  mkdir: (path, options) =>
    errno(async () => {
      await fsp.mkdir(path, { recursive: options?.recursive ?? false });
    }),
  rm: (path, options) => errno(() => fsp.rm(path, { recursive: options?.recursive ?? false, force: options?.force ?? false })),
  rename: (from, to) => errno(() => fsp.rename(from, to)),
  realpath: (path) => errno(() => fsp.realpath(path)),
};

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

export async function createNodeRuntime(options: NodeRuntimeOptions = {}): Promise<Runtime> {
  const pty = await loadPty();
  const bash = options.bash ?? "/bin/bash";
  if (!existsSync(bash)) throw new Error(`The node runtime needs bash at ${bash}, which does not exist`);

  const ownsWorkspace = options.workspace === undefined;
  const workspace = options.workspace ?? (await fsp.mkdtemp(join(tmpdir(), "sandshell-ws-")));
  await fsp.mkdir(workspace, { recursive: true });
  // Setup files and the exported-variables snapshot live outside the workspace, readable by us only (mkdtemp: 0700).
  const privateDir = await fsp.mkdtemp(join(tmpdir(), "sandshell-rt-"));
  const nonce = randomUUID();

  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !DROPPED_ENV.includes(key)) baseEnv[key] = value;
  }
  Object.assign(baseEnv, {
    HOME: workspace,
    TERM: "xterm-256color",
    PAGER: "cat",
    GIT_PAGER: "cat",
    NO_COLOR: "1",
    GIT_TERMINAL_PROMPT: "0",
    npm_config_yes: "true",
  });
  if (baseEnv.LANG === undefined && baseEnv.LC_ALL === undefined) baseEnv.LANG = "C.UTF-8";

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

  const runtime: Runtime = {
    kind: "node",
    workspace,
    capabilities,
    markerNonce: nonce,
    async spawnShell(opts: ShellSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const k = ++spawned;
      const envFile = join(privateDir, `env-${k}`);
      const rc = join(privateDir, `rc-${k}.sh`);
      await fsp.writeFile(rc, rcFile(nonce, envFile), { mode: 0o600 });
      const cwd = await startDir(opts.cwd);
      const env = { ...baseEnv, ...(opts.env ?? {}), HOME: opts.env?.HOME ?? workspace };
      const p = pty.spawn(bash, ["--noprofile", "--rcfile", rc, "-i"], {
        name: "xterm-256color",
        cols: opts.cols,
        rows: opts.rows,
        cwd,
        env,
        encoding: null,
      });
      return track(p);
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
      const p = pty.spawn(bash, ["--noprofile", "--norc", "-c", script, "sandshell-job"], {
        name: "xterm-256color",
        cols: SHELL.agentCols,
        rows: SHELL.agentRows,
        cwd,
        env: { ...baseEnv, ...(opts.env ?? {}) },
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
      await fsp.rm(privateDir, { recursive: true, force: true });
      if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return runtime;
}
