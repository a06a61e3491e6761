// The embedded runtime: just-bash in a Worker, offline, no cross-origin isolation needed. The page (this module)
// keeps the file system's mirror and the last state of each shell; workers run the interpreter (shell-core.ts).
//
// - One worker per shell and per background job; all share the mirror: each worker posts every change it makes as it
//   makes it, the page applies it and passes it on to the other workers (protocol.ts FsOp). The Runtime's fs methods
//   work on the mirror directly, so they answer even while a worker is busy, and their changes go to every worker.
// - C-c: the worker is asked to abort (just-bash stops at the next statement or wait); a CPU-bound loop cannot be
//   aborted, so when the command has not ended within EMBEDDED.interruptKillMs the worker is ended and a standby
//   worker (always one booted ahead) takes over from the mirror and the shell's last state.
// - Markers: `interactive`, `start=N`, `exit=N:CODE`, `cwd=N:PATH`, `prompt`, N = markerNonce. Command output cannot
//   forge them: the nonce is never visible to the shell (not in its environment or files).

import { SHELL, WORKSPACE } from "../../limits.ts";
import { Listeners } from "../../lib/listeners.ts";
import type {
  Capabilities,
  JobSpawnOptions,
  Runtime,
  RuntimeEvent,
  RuntimeFs,
  ShellSpawnOptions,
  TerminalProcess,
  Unsubscribe,
} from "../types.ts";
import { EMBEDDED } from "./config.ts";
import { MirrorFs, MirrorStore } from "./mirror.ts";
import type { CarryState, FsOp, HostToWorker, InitMessage, WorkerToHost } from "./protocol.ts";
import { defaultWorkerFactory, type WorkerFactory, type WorkerHandle } from "./transport.ts";

export { EMBEDDED } from "./config.ts";
export type { WorkerFactory, WorkerHandle } from "./transport.ts";

export interface EmbeddedRuntimeOptions {
  /** The agent's workspace (also HOME). Default WORKSPACE (/home/project). */
  workspace?: string;
  /** How workers are made (default: module Web Worker in a browser, worker_threads in Node). */
  workerFactory?: WorkerFactory;
  /** Why this runtime serves (shown by the tools layer). */
  note?: string;
  /** Files to start with (absolute paths; folders are created). */
  files?: Record<string, string | Uint8Array>;
}

/** Programs agents commonly reach for that just-bash does not have: reported as missing so the tools layer can hint. */
const EXPECTED_PROGRAMS = [
  "python", "python3", "pip", "pip3", "node", "npm", "npx", "git", "curl", "wget", "make", "perl", "vim", "less",
  "bc", "patch", "ps", "kill", "uname", "id",
];

function randomNonce(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Splits text for listeners without cutting a surrogate pair. */
function chunks(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** Minimal roots of the paths an op touches (for corrections after concurrent writes). */
function touchedPaths(op: FsOp): string[] {
  if (op.op !== "put") return [op.path];
  const paths = op.entries.map((e) => e.path).sort();
  const roots: string[] = [];
  for (const p of paths) {
    const last = roots[roots.length - 1];
    if (last !== undefined && (p === last || p.startsWith(last === "/" ? "/" : `${last}/`))) continue;
    roots.push(p);
  }
  return roots;
}

/** One worker, as the page sees it. */
class Conn {
  /** The last host change queued for this worker (sent or not). */
  assignedSeq = 0;
  private queue: FsOp[] = [];
  private queueSeq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  dead = false;
  private listener: ((m: WorkerToHost) => void) | null = null;
  private errorListener: ((e: Error) => void) | null = null;
  private early: WorkerToHost[] = [];

  constructor(
    readonly handle: WorkerHandle,
    readonly programs: string[],
  ) {
    handle.onMessage((m) => {
      // file system changes still count after the worker was ended: it made them before
      if (this.dead && m.t !== "fs") return;
      if (this.listener !== null) this.listener(m);
      else this.early.push(m);
    });
    handle.onError((e) => {
      if (!this.dead) this.errorListener?.(e);
    });
  }

  listen(listener: (m: WorkerToHost) => void, onError: (e: Error) => void): void {
    this.listener = listener;
    this.errorListener = onError;
    const early = this.early;
    this.early = [];
    for (const m of early) listener(m);
  }

  /** Sends a message; file system changes queued before it go first (what the page wrote, a command then sees). */
  post(message: HostToWorker): void {
    if (this.dead) return;
    this.flushFs();
    this.handle.post(message);
  }

  queueFs(op: FsOp, seq: number): void {
    if (this.dead) return;
    const last = this.queue[this.queue.length - 1];
    if (last !== undefined && last.op === "append" && op.op === "append" && last.path === op.path) {
      const joined = new Uint8Array(last.data.length + op.data.length);
      joined.set(last.data);
      joined.set(op.data, last.data.length);
      this.queue[this.queue.length - 1] = { ...op, data: joined };
    } else this.queue.push(op);
    this.queueSeq = seq;
    this.assignedSeq = seq;
    this.timer ??= setTimeout(() => this.flushFs(), EMBEDDED.fsBatchMs);
  }

  flushFs(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0 || this.dead) return;
    const ops = this.queue;
    this.queue = [];
    this.handle.post({ t: "fs", seq: this.queueSeq, ops });
  }

  terminate(): void {
    if (this.dead) return;
    this.dead = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.handle.terminate();
  }
}

class EmbeddedRuntime implements Runtime {
  readonly kind = "embedded" as const;
  readonly workspace: string;
  readonly markerNonce: string;
  readonly note?: string;
  readonly fs: RuntimeFs;
  capabilities: Capabilities;

  private readonly store: MirrorStore;
  private seq = 0;
  private readonly live = new Set<Conn>();
  private standby: Promise<Conn> | null = null;
  private standbyTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly processes = new Set<TerminalProcess>();
  private readonly listeners = new Listeners<RuntimeEvent>("runtime");
  private disposed = false;

  constructor(
    private readonly factory: WorkerFactory,
    options: EmbeddedRuntimeOptions,
  ) {
    this.workspace = options.workspace ?? WORKSPACE;
    if (options.note !== undefined) this.note = options.note;
    this.markerNonce = randomNonce();
    this.store = new MirrorStore([this.workspace, "/tmp"]);
    this.fs = new MirrorFs(this.store, (op) => this.fromPage(op));
    for (const [path, content] of Object.entries(options.files ?? {})) {
      this.store.apply({
        op: "put",
        entries: [{ path, kind: "file", mode: 0o644, mtime: Date.now(), data: typeof content === "string" ? new TextEncoder().encode(content) : content }],
      });
    }
    this.capabilities = { heredocs: true, pipes: true, redirects: true, lists: true, background: false, exportVars: true, programs: {} };
  }

  async boot(): Promise<void> {
    const conn = await this.bootWorker();
    // the first worker only tells what programs there are; it stays as the standby
    const programs: Record<string, boolean> = {};
    for (const name of EXPECTED_PROGRAMS) programs[name] = false;
    for (const name of conn.programs) programs[name] = true;
    this.capabilities = { ...this.capabilities, programs };
    this.standby = Promise.resolve(conn);
  }

  // ------------------------------------------------------------------------------------------------ workers

  private bootWorker(): Promise<Conn> {
    return new Promise<Conn>((resolve, reject) => {
      let handle: WorkerHandle;
      try {
        handle = this.factory();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      let settled = false;
      handle.onMessage((m) => {
        if (settled) return;
        if (m.t === "booted") {
          settled = true;
          resolve(new Conn(handle, m.programs));
        } else if (m.t === "error") {
          settled = true;
          handle.terminate();
          reject(new Error(`the embedded shell's worker failed to start: ${m.message}`));
        }
      });
      handle.onError((err) => {
        if (settled) return;
        settled = true;
        handle.terminate();
        reject(new Error(`the embedded shell's worker failed to start: ${err.message}`));
      });
    });
  }

  /** A booted worker: the standby when there is one (a new standby is booted a moment later). */
  async takeWorker(): Promise<Conn> {
    if (this.disposed) throw new Error("The embedded runtime has been disposed.");
    const ready = this.standby ?? this.bootWorker();
    this.standby = null;
    let conn: Conn;
    try {
      conn = await ready;
    } catch {
      conn = await this.bootWorker(); // a failed standby: try once more
    }
    this.scheduleStandby();
    if (this.disposed) {
      conn.terminate();
      throw new Error("The embedded runtime has been disposed.");
    }
    return conn;
  }

  /** Boots the standby now if there is none (a C-c may need it in a moment). */
  prepareStandby(): void {
    if (this.disposed || this.standby !== null) return;
    if (this.standbyTimer !== null) clearTimeout(this.standbyTimer);
    this.standbyTimer = null;
    this.standby = this.bootWorker();
    this.standby.catch(() => {
      this.standby = null;
    });
  }

  private scheduleStandby(): void {
    if (this.standbyTimer !== null || this.disposed) return;
    this.standbyTimer = setTimeout(() => {
      this.standbyTimer = null;
      if (this.disposed || this.standby !== null) return;
      this.standby = this.bootWorker();
      this.standby.catch(() => {
        this.standby = null;
      });
    }, EMBEDDED.standbyDelayMs);
    (this.standbyTimer as { unref?: () => void }).unref?.();
  }

  /** Registers a worker for file system changes and returns its init message's file system part. */
  attach(conn: Conn): Pick<InitMessage, "fs" | "seq"> {
    this.live.add(conn);
    conn.assignedSeq = this.seq;
    return { fs: this.store.snapshot(), seq: this.seq };
  }

  detach(conn: Conn): void {
    this.live.delete(conn);
    conn.terminate();
  }

  /** A change made through runtime.fs: already in the mirror; every worker gets it. */
  private fromPage(op: FsOp): void {
    const seq = ++this.seq;
    for (const conn of this.live) conn.queueFs(op, seq);
  }

  /** Changes a worker made. */
  fromWorker(conn: Conn, seen: number, ops: FsOp[]): void {
    const stale = !conn.dead && seen < conn.assignedSeq;
    for (const op of ops) {
      this.store.apply(op);
      const seq = ++this.seq;
      for (const other of this.live) if (other !== conn) other.queueFs(op, seq);
    }
    if (stale) {
      // the worker made these before it had our latest changes, and will apply those after its own: send it the
      // mirror's result for what it touched, so that both end up the same
      for (const op of ops) {
        for (const path of touchedPaths(op)) {
          const fix: FsOp = { op: "sync", path, entries: this.store.subtree(path) };
          conn.queueFs(fix, ++this.seq);
        }
      }
    }
  }

  private shells = 0;

  nextShellId(): string {
    return `${this.markerNonce.slice(0, 8)}-${++this.shells}`;
  }

  emit(event: RuntimeEvent): void {
    this.listeners.emit(event);
  }

  // ------------------------------------------------------------------------------------------------ Runtime

  async spawnShell(options: ShellSpawnOptions): Promise<TerminalProcess> {
    const proc = new ShellProcess(this, options);
    this.processes.add(proc);
    void proc.exited.then(() => this.processes.delete(proc));
    await proc.start();
    return proc;
  }

  async spawnJob(command: string, options: JobSpawnOptions): Promise<TerminalProcess> {
    const proc = new JobProcess(this, command, options);
    this.processes.add(proc);
    void proc.exited.then(() => this.processes.delete(proc));
    await proc.start();
    return proc;
  }

  on(listener: (event: RuntimeEvent) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.standbyTimer !== null) clearTimeout(this.standbyTimer);
    this.standbyTimer = null;
    for (const p of [...this.processes]) p.kill();
    for (const conn of [...this.live]) this.detach(conn);
    const standby = this.standby;
    this.standby = null;
    if (standby !== null) await standby.then((c) => c.terminate(), () => undefined);
  }
}

/** Output fan-out shared by shells and jobs, in pieces of at most EMBEDDED.dataChunkChars. */
class Output extends Listeners<string> {
  constructor() {
    super("terminal");
  }

  override emit(text: string): void {
    for (const piece of chunks(text, EMBEDDED.dataChunkChars)) super.emit(piece);
  }
}

/** The agent's (or a person's) interactive shell: one worker at a time, replaced when C-c has to end one. */
class ShellProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private resolveExit!: (code: number) => void;
  private readonly out = new Output();
  private conn: Conn | null = null;
  private busy = false;
  private ended = false;
  private state: CarryState | null = null;
  private killTimer: ReturnType<typeof setTimeout> | null = null;
  /** Keystrokes that arrive while a worker is being replaced. */
  private pending: string[] = [];
  private replacing = false;
  private cols: number;
  private rows: number;
  /** Where this shell keeps `export -p` (announced with an `envfile` marker). */
  private readonly envFile: string;

  constructor(
    private readonly runtime: EmbeddedRuntime,
    private readonly options: ShellSpawnOptions,
  ) {
    this.envFile = `/tmp/.sandshell-env-${runtime.nextShellId()}`;
    this.exited = new Promise<number>((resolve) => (this.resolveExit = resolve));
    this.cols = options.cols;
    this.rows = options.rows;
  }

  async start(): Promise<void> {
    await this.launch(false);
  }

  private async launch(interrupted: boolean): Promise<void> {
    const conn = await this.runtime.takeWorker();
    if (this.ended) {
      conn.terminate();
      return;
    }
    this.conn = conn;
    this.busy = false;
    conn.listen(
      (m) => this.onMessage(conn, m),
      (err) => this.onWorkerError(conn, err),
    );
    const init: InitMessage = {
      t: "init",
      mode: "shell",
      nonce: this.runtime.markerNonce,
      workspace: this.runtime.workspace,
      ...this.runtime.attach(conn),
      cols: this.cols,
      rows: this.rows,
      cwd: this.options.cwd ?? this.runtime.workspace,
      env: this.options.env ?? {},
      envFile: this.envFile,
      ...(this.state !== null ? { state: this.state } : {}),
      ...(interrupted ? { interrupted: true } : {}),
    };
    conn.post(init);
  }

  private onMessage(conn: Conn, m: WorkerToHost): void {
    if (m.t === "fs") {
      this.runtime.fromWorker(conn, m.seen, m.ops);
      return;
    }
    if (conn !== this.conn) return;
    switch (m.t) {
      case "data":
        this.out.emit(m.text);
        break;
      case "busy":
        this.busy = m.busy;
        if (!m.busy) this.clearKillTimer();
        break;
      case "state":
        this.state = m.state;
        break;
      case "exit":
        this.finish(m.code);
        break;
      case "error":
        this.out.emit(`\r\nsandshell: the embedded shell failed: ${m.message.split("\n")[0] ?? ""}\r\n`);
        this.runtime.emit({ type: "error", message: `The embedded shell failed: ${m.message}` });
        this.finish(1);
        break;
      case "booted":
        break;
    }
  }

  private onWorkerError(conn: Conn, err: Error): void {
    if (conn !== this.conn) return;
    this.runtime.emit({ type: "error", message: `The embedded shell's worker failed: ${err.message}` });
    this.finish(1);
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.out.add(listener);
  }

  write(data: string): void {
    if (this.ended || data === "") return;
    if (this.replacing) {
      if (!data.includes("\x03")) this.pending.push(data);
      return;
    }
    const cc = data.indexOf("\x03");
    if (cc !== -1 && this.busy) {
      if (cc > 0) this.conn?.post({ t: "input", data: data.slice(0, cc) });
      this.interrupt();
      return; // what follows a C-c is dropped, as the shell drops typeahead on an interrupt
    }
    this.conn?.post({ t: "input", data });
  }

  private interrupt(): void {
    if (this.killTimer !== null) return;
    this.out.emit("^C");
    this.conn?.post({ t: "interrupt" });
    this.runtime.prepareStandby();
    this.killTimer = setTimeout(() => {
      this.killTimer = null;
      if (this.busy && !this.ended) void this.replace();
    }, EMBEDDED.interruptKillMs);
  }

  private clearKillTimer(): void {
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    this.killTimer = null;
  }

  /** The command did not stop: end its worker, start the shell afresh from the mirror and its last state. */
  private async replace(): Promise<void> {
    const old = this.conn;
    if (old === null) return;
    this.replacing = true;
    // one turn of the event loop first: changes the worker posted before it got stuck are handled, not dropped
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!this.busy || this.conn !== old || this.ended) {
      this.replacing = false; // it stopped after all
      this.flushPending();
      return;
    }
    this.conn = null;
    this.runtime.detach(old);
    this.runtime.emit({ type: "status", message: "A command did not stop on C-c; the embedded shell's worker was replaced (files kept)." });
    try {
      await this.launch(true);
    } catch (err) {
      this.runtime.emit({ type: "error", message: `The embedded shell could not be restarted: ${String(err)}` });
      this.finish(1);
      return;
    } finally {
      this.replacing = false;
    }
    this.flushPending();
  }

  private flushPending(): void {
    const pending = this.pending;
    this.pending = [];
    for (const data of pending) this.write(data);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.conn?.post({ t: "resize", cols, rows });
  }

  kill(): void {
    this.finish(EMBEDDED.killExitCode);
  }

  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.clearKillTimer();
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) this.runtime.detach(conn);
    this.resolveExit(code);
  }
}

/** A background job: one command line in its own worker; its output arrives statement by statement. */
class JobProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private resolveExit!: (code: number) => void;
  private readonly out = new Output();
  private conn: Conn | null = null;
  private ended = false;

  constructor(
    private readonly runtime: EmbeddedRuntime,
    private readonly command: string,
    private readonly options: JobSpawnOptions,
  ) {
    this.exited = new Promise<number>((resolve) => (this.resolveExit = resolve));
  }

  async start(): Promise<void> {
    const conn = await this.runtime.takeWorker();
    if (this.ended) {
      conn.terminate();
      return;
    }
    this.conn = conn;
    conn.listen(
      (m) => {
        if (m.t === "fs") this.runtime.fromWorker(conn, m.seen, m.ops);
        else if (conn !== this.conn) return;
        else if (m.t === "data") this.out.emit(m.text);
        else if (m.t === "exit") this.finish(m.code);
        else if (m.t === "error") {
          this.out.emit(`sandshell: the job's worker failed: ${m.message.split("\n")[0] ?? ""}\r\n`);
          this.finish(1);
        }
      },
      (err) => {
        this.out.emit(`sandshell: the job's worker failed: ${err.message}\r\n`);
        this.finish(1);
      },
    );
    conn.post({
      t: "init",
      mode: "job",
      nonce: this.runtime.markerNonce,
      workspace: this.runtime.workspace,
      ...this.runtime.attach(conn),
      cols: SHELL.agentCols,
      rows: SHELL.agentRows,
      cwd: this.options.cwd,
      env: this.options.env ?? {},
      command: this.command,
    });
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.out.add(listener);
  }

  write(_data: string): void {
    // a job reads no terminal: its stdin is empty
  }

  resize(_cols: number, _rows: number): void {}

  kill(): void {
    this.finish(EMBEDDED.killExitCode);
  }

  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) this.runtime.detach(conn);
    this.resolveExit(code);
  }
}

/**
 * The embedded runtime. Resolves once the first worker has loaded just-bash (its command list fills
 * `capabilities.programs`); that worker then waits as the standby for the first shell or job.
 */
export async function createEmbeddedRuntime(options: EmbeddedRuntimeOptions = {}): Promise<Runtime> {
  const factory = options.workerFactory ?? (await defaultWorkerFactory());
  const runtime = new EmbeddedRuntime(factory, options);
  await runtime.boot();
  return runtime;
}
