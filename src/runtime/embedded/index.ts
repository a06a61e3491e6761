// The embedded runtime: just-bash in a Worker, offline, no cross-origin isolation needed. The page (this module and
// the ones it imports) keeps the file system's mirror and the last state of each shell; workers run the interpreter
// (shell-core.ts and what it imports).
//
// Page side:   index.ts (the Runtime) ─ standby.ts (workers booted ahead) ─ worker-connection.ts (one worker)
//              fs-fanout.ts (every change to the mirror and every worker) ─ mirror-store.ts (the mirror) ─ mirror-fs.ts
//              (runtime.fs over it)
//              shell-process.ts, job-process.ts (the two kinds of TerminalProcess)
// Worker side: shell-core.ts ─ interpreter.ts (just-bash set up) ─ interactive-shell.ts ─ carry-over.ts (state from
//              line to line) + state-changes.ts ─ transform.ts (the command line's rewrite) ─ worker-fs.ts (the
//              worker's file system) + worker-fs-from-page.ts (larger files as stubs) + worker-fs-bounds.ts + devices.ts
// Between:     protocol.ts (the messages), transport.ts (Web Worker or worker_threads), fs-errors.ts
//
// Markers: `interactive`, `start=N`, `exit=N:CODE`, `cwd=N:PATH`, `prompt`, N = markerNonce. Command output cannot
// forge them: the nonce is never visible to the shell (not in its environment or files).

import { EMBEDDED, SHELL, WORKSPACE } from "../../limits.ts";
import { Listeners } from "../../lib/listeners.ts";
import { hex } from "../../lib/text.ts";
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
import { FsFanout } from "./fs-fanout.ts";
import { JobProcess } from "./job-process.ts";
import { DEFAULT_BOUNDS } from "./fs-errors.ts";
import { MirrorFs } from "./mirror-fs.ts";
import { MirrorStore } from "./mirror-store.ts";
import type { ProcessHost } from "./process-host.ts";
import type { FsBounds, FsOp, InitMessage, WorkerMemory } from "./protocol.ts";
import { ShellProcess } from "./shell-process.ts";
import { Standby } from "./standby.ts";
import { defaultWorkerFactory, type WorkerFactory } from "./transport.ts";
import type { WorkerConnection } from "./worker-connection.ts";

export { EMBEDDED } from "./config.ts";
export type { WorkerFactory, WorkerHandle } from "./transport.ts";

/** What the embedded runtime holds in memory (EmbeddedRuntime.memory()). */
export interface EmbeddedMemory {
  /** Bytes of all files in the page's copy, and how many files, folders and links. */
  fileBytes: number;
  files: number;
  /** Each live worker (shell, jobs, standby): its heap and external memory, null where the platform does not tell. */
  workers: Array<WorkerMemory | null>;
}

/** The embedded runtime: a Runtime that can also say what it holds in memory. */
export interface EmbeddedRuntime extends Runtime {
  readonly kind: "embedded";
  memory(): Promise<EmbeddedMemory>;
}

export interface EmbeddedRuntimeOptions {
  /** The agent's workspace (also HOME). Default WORKSPACE (/home/project). */
  workspace?: string;
  /** How workers are made (default: module Web Worker in a browser, worker_threads in Node). */
  workerFactory?: WorkerFactory;
  /** Why this runtime serves (shown by the tools layer). */
  note?: string;
  /** Files to start with (absolute paths; folders are created). */
  files?: Record<string, string | Uint8Array>;
  /** How much the file system may hold; default EMBEDDED.limits.maxFileSystemBytes and EMBEDDED.maxFiles. */
  bounds?: Partial<FsBounds>;
}

/** Programs agents commonly reach for that just-bash does not have: reported as missing so the tools layer can hint. */
const EXPECTED_PROGRAMS = [
  "python", "python3", "pip", "pip3", "node", "npm", "npx", "git", "curl", "wget", "make", "perl", "vim", "less",
  "bc", "patch", "ps", "kill", "uname", "id",
];

/** Why `env` is too large for a job's worker (EMBEDDED.maxJobEnvChars), naming its largest variable; null when it fits. */
export function envTooLarge(env: Record<string, string>): string | null {
  let total = 0;
  let largest = "";
  let largestChars = -1;
  for (const [name, value] of Object.entries(env)) {
    total += name.length + value.length + 2;
    if (value.length > largestChars) [largest, largestChars] = [name, value.length];
  }
  if (total <= EMBEDDED.maxJobEnvChars) return null;
  const n = (x: number): string => x.toLocaleString("en-US");
  return (
    `The job's environment (its exported variables) has ${n(total)} characters, and a job gets at most ${n(EMBEDDED.maxJobEnvChars)}, ` +
    `as a program's environment is bounded on Linux (ARG_MAX); the largest is ${largest} (${n(largestChars)} characters). ` +
    `Unexport it (export -n ${largest}) or keep its value in a file the job reads, then start the job again.`
  );
}

function randomNonce(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return hex(bytes);
}

class JustBashRuntime implements EmbeddedRuntime, ProcessHost {
  readonly kind = "embedded" as const;
  readonly workspace: string;
  readonly markerNonce: string;
  readonly note?: string;
  readonly fs: RuntimeFs;
  capabilities: Capabilities;

  private readonly store: MirrorStore;
  private readonly fanout: FsFanout;
  private readonly standby: Standby;
  private readonly processes = new Set<TerminalProcess>();
  private readonly listeners = new Listeners<RuntimeEvent>("runtime");
  private shells = 0;
  private disposed = false;

  constructor(factory: WorkerFactory, options: EmbeddedRuntimeOptions) {
    this.workspace = options.workspace ?? WORKSPACE;
    if (options.note !== undefined) this.note = options.note;
    this.markerNonce = randomNonce();
    this.store = new MirrorStore([this.workspace, "/tmp"], { ...DEFAULT_BOUNDS, ...options.bounds });
    this.fanout = new FsFanout(this.store);
    this.standby = new Standby(factory);
    this.fs = new MirrorFs(this.store, (op) => this.fanout.fromPage(op));
    for (const [path, content] of Object.entries(options.files ?? {})) {
      this.store.apply({
        op: "put",
        entries: [{ path, kind: "file", mode: 0o644, mtime: Date.now(), data: typeof content === "string" ? new TextEncoder().encode(content) : content }],
      });
    }
    this.capabilities = { heredocs: true, pipes: true, redirects: true, lists: true, background: false, exportVars: true, programs: {} };
  }

  async boot(): Promise<void> {
    // the first worker only tells what programs there are; it stays as the standby
    const conn = await this.standby.first();
    const programs: Record<string, boolean> = {};
    for (const name of EXPECTED_PROGRAMS) programs[name] = false;
    for (const name of conn.programs) programs[name] = true;
    this.capabilities = { ...this.capabilities, programs };
  }

  // ------------------------------------------------------------------------------------------------ ProcessHost

  takeWorker(): Promise<WorkerConnection> {
    return this.standby.take();
  }

  prepareStandby(): void {
    this.standby.prepare();
  }

  attach(conn: WorkerConnection): Pick<InitMessage, "fs" | "seq" | "bounds"> {
    return this.fanout.attach(conn);
  }

  detach(conn: WorkerConnection): void {
    this.fanout.detach(conn);
  }

  fromWorker(conn: WorkerConnection, seen: number, ops: FsOp[]): void {
    this.fanout.fromWorker(conn, seen, ops);
  }

  readForWorker(conn: WorkerConnection, id: number, path: string): void {
    this.fanout.read(conn, id, path);
  }

  nextShellId(): string {
    return `${this.markerNonce.slice(0, 8)}-${++this.shells}`;
  }

  emit(event: RuntimeEvent): void {
    this.listeners.emit(event);
  }

  // ------------------------------------------------------------------------------------------------ Runtime

  async spawnShell(options: ShellSpawnOptions): Promise<TerminalProcess> {
    return this.track(new ShellProcess(this, options));
  }

  async spawnJob(command: string, options: JobSpawnOptions): Promise<TerminalProcess> {
    // each job is a worker with its own interpreter: their number is bounded here too, whoever calls
    const running = [...this.processes].filter((p) => p instanceof JobProcess).length;
    if (running >= SHELL.maxJobs) {
      throw new Error(`At most ${SHELL.maxJobs} background jobs run at once in the embedded shell, and ${running} are running: wait for one to end, or stop one (job_kill), then start this one.`);
    }
    // each job's worker gets its own copy of the environment: bounded, as a program's is on Linux (ARG_MAX)
    const tooLarge = envTooLarge(options.env ?? {});
    if (tooLarge !== null) throw new Error(tooLarge);
    return this.track(new JobProcess(this, command, options));
  }

  private async track(proc: ShellProcess | JobProcess): Promise<TerminalProcess> {
    this.processes.add(proc);
    void proc.exited.then(() => this.processes.delete(proc));
    await proc.start();
    return proc;
  }

  /** What the runtime holds in memory now: the page's copy of the files, and each live worker. */
  async memory(): Promise<EmbeddedMemory> {
    const live = [...this.standby.booted].filter((c) => !c.dead);
    return { fileBytes: this.store.bytes, files: this.store.size - 1, workers: await Promise.all(live.map((c) => c.memory())) };
  }

  on(listener: (event: RuntimeEvent) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const standbyGone = this.standby.dispose(); // no worker is handed out from here on
    for (const p of [...this.processes]) p.kill();
    this.fanout.detachAll();
    await standbyGone;
  }
}

/**
 * The embedded runtime. Resolves once the first worker has loaded just-bash (its command list fills
 * `capabilities.programs`); that worker then waits as the standby for the first shell or job.
 */
export async function createEmbeddedRuntime(options: EmbeddedRuntimeOptions = {}): Promise<EmbeddedRuntime> {
  const factory = options.workerFactory ?? (await defaultWorkerFactory());
  const runtime = new JustBashRuntime(factory, options);
  await runtime.boot();
  return runtime;
}
