// Background jobs: each job is its own process (runtime.spawnJob), never the agent's shell, so a dev server can run
// while the agent goes on working. Output is cleaned and bounded per read: what came since the last read, head and tail
// past the limit, the whole of it spilled to a file.

import { SHELL, TOOLS } from "../limits.ts";
import type { Runtime, TerminalProcess, Unsubscribe } from "../runtime/types.ts";
import { OutputCollector } from "./output-collector.ts";
import { TerminalTextCleaner } from "./terminal-text.ts";

export type JobStatus = "running" | "exited";

export interface JobInfo {
  id: string;
  command: string;
  cwd: string;
  status: JobStatus;
  /** Null while running; for a killed job, what the runtime reported (128 + signal on node). */
  exitCode: number | null;
  /** True when kill() (or a restart/close) ended it. */
  killed: boolean;
  /** Milliseconds since the job started (until it ended, for an exited job). */
  durationMs: number;
}

export interface JobOutput extends JobInfo {
  /** Output since the previous read, cleaned. */
  output: string;
  truncated: boolean;
  fullOutputPath?: string;
}

export type JobErrorCode = "limit" | "unknown-job" | "closed";

/** Thrown for a refused job request; `message` is written for the agent. */
export class JobError extends Error {
  constructor(
    message: string,
    readonly code: JobErrorCode,
  ) {
    super(message);
    this.name = "JobError";
  }
}

/** Where output past the limit goes. Provided by the session (spill files in the runtime's fs). */
export interface SpillTarget {
  write(text: string): void;
  /** Waits for pending writes; resolves with the file's path, or undefined when it could not be written. */
  flush(): Promise<string | undefined>;
}

export interface JobManagerOptions {
  maxJobs?: number;
  maxOutputChars?: number;
  /** Opens a spill file named after `prefix` (`${spillDir}/job-3-output-K.log`). Without it, long output is only cut. */
  openSpill?: (prefix: string) => SpillTarget;
  /** Ended jobs kept for output()/list() (oldest dropped first). */
  maxEndedJobs?: number;
  /** output(): once output has started to arrive, return after this much quiet (so one read gets a burst whole). */
  settleMs?: number;
}

class Job {
  readonly startedAt = performance.now();
  endedAt: number | null = null;
  status: JobStatus = "running";
  exitCode: number | null = null;
  killed = false;
  /** Anything arrived (or the job ended) since the last read. */
  unread = false;
  readonly cleaner = new TerminalTextCleaner();
  collector: OutputCollector;
  spill: SpillTarget | null = null;
  private readonly listeners = new Set<() => void>();
  unsubscribe: Unsubscribe = () => undefined;

  constructor(
    readonly id: string,
    readonly command: string,
    readonly cwd: string,
    readonly proc: TerminalProcess,
    private readonly manager: { newCollector(job: Job): OutputCollector },
  ) {
    this.collector = manager.newCollector(this);
  }

  push(raw: string): void {
    const clean = this.cleaner.push(raw);
    if (clean !== "") this.collector.push(clean);
    this.unread = true;
    this.notify();
  }

  ended(code: number): void {
    this.status = "exited";
    this.exitCode = code;
    this.endedAt = performance.now();
    this.unread = true;
    this.unsubscribe();
    this.notify();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  info(): JobInfo {
    return {
      id: this.id,
      command: this.command,
      cwd: this.cwd,
      status: this.status,
      exitCode: this.exitCode,
      killed: this.killed,
      durationMs: Math.round((this.endedAt ?? performance.now()) - this.startedAt),
    };
  }

  /** Everything since the last read; starts a new read window. */
  async take(): Promise<JobOutput> {
    const rest = this.cleaner.end();
    if (rest !== "") this.collector.push(rest);
    const collector = this.collector;
    const spill = this.spill;
    this.collector = this.manager.newCollector(this);
    this.spill = null;
    this.unread = false;
    const path = spill ? await spill.flush() : undefined;
    const result: JobOutput = {
      ...this.info(),
      output: collector.render(path),
      truncated: collector.truncated,
    };
    if (path !== undefined) result.fullOutputPath = path;
    return result;
  }
}

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  private counter = 0;
  private closed = false;
  private readonly maxJobs: number;
  private readonly maxOutputChars: number;
  private readonly maxEndedJobs: number;
  private readonly settleMs: number;

  constructor(
    private readonly runtime: Runtime,
    private readonly options: JobManagerOptions = {},
  ) {
    this.maxJobs = options.maxJobs ?? SHELL.maxJobs;
    this.maxOutputChars = options.maxOutputChars ?? SHELL.maxOutputChars;
    this.maxEndedJobs = options.maxEndedJobs ?? SHELL.maxEndedJobs;
    this.settleMs = options.settleMs ?? SHELL.jobSettleMs;
  }

  /** Running jobs. */
  get running(): number {
    let n = 0;
    for (const job of this.jobs.values()) if (job.status === "running") n++;
    return n;
  }

  newCollector(job: Job): OutputCollector {
    const open = this.options.openSpill;
    return new OutputCollector({
      maxChars: this.maxOutputChars,
      onSpill: open
        ? (text) => {
            job.spill ??= open(`${job.id}-output`);
            job.spill.write(text);
          }
        : undefined,
    });
  }

  async start(command: string, options: { cwd: string; env?: Record<string, string> }): Promise<JobInfo> {
    if (this.closed) throw new JobError("The shell session is closed; no job can start.", "closed");
    if (command.trim() === "") throw new JobError("No command given for the background job.", "unknown-job");
    const running = [...this.jobs.values()].filter((j) => j.status === "running");
    if (running.length >= this.maxJobs) {
      throw new JobError(
        `At most ${this.maxJobs} background jobs can run at once, and ${running.length} are running ` +
          `(${running.map((j) => j.id).join(", ")}). Stop one, or wait for one to end.`,
        "limit",
      );
    }
    const id = `job-${++this.counter}`;
    const proc = await this.runtime.spawnJob(command, { cwd: options.cwd, env: options.env });
    const job = new Job(id, command, options.cwd, proc, this);
    job.unsubscribe = proc.onData((chunk) => job.push(chunk));
    void proc.exited.then((code) => job.ended(code));
    this.jobs.set(id, job);
    this.prune();
    return job.info();
  }

  /** New output since the last read. Waits up to waitSec for output or the end when there is nothing new yet. */
  async output(id: string, options: { waitSec?: number } = {}): Promise<JobOutput> {
    const job = this.get(id);
    const waitMs = Math.max(0, Math.min(options.waitSec ?? 0, TOOLS.jobMaxWaitSec)) * 1000;
    if (!job.unread && job.status === "running" && waitMs > 0) await this.waitForNews(job, waitMs);
    return job.take();
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((j) => j.info());
  }

  has(id: string): boolean {
    return this.jobs.has(id);
  }

  async kill(id: string): Promise<JobInfo> {
    const job = this.get(id);
    if (job.status === "running") {
      job.killed = true;
      job.proc.kill();
      await Promise.race([job.proc.exited, delay(3_000)]);
    }
    return job.info();
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.jobs.values()].filter((j) => j.status === "running").map((j) => this.kill(j.id)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.killAll();
  }

  private get(id: string): Job {
    const job = this.jobs.get(id.trim());
    if (job === undefined) {
      const known = [...this.jobs.keys()];
      throw new JobError(
        `No background job "${id}". ${known.length ? `Known jobs: ${known.join(", ")}.` : "No jobs have been started."}`,
        "unknown-job",
      );
    }
    return job;
  }

  /** Resolves when the job ends, or once output has arrived and then `settleMs` passed without more, or at `ms`. */
  private waitForNews(job: Job, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let settle: ReturnType<typeof setTimeout> | null = null;
      const done = (): void => {
        clearTimeout(deadline);
        if (settle !== null) clearTimeout(settle);
        off();
        resolve();
      };
      const deadline = setTimeout(done, ms);
      const arm = (): void => {
        if (settle !== null) clearTimeout(settle);
        settle = setTimeout(done, this.settleMs);
      };
      const off = job.onChange(() => {
        if (job.status !== "running") done();
        else arm();
      });
    });
  }

  private prune(): void {
    const ended = [...this.jobs.values()].filter((j) => j.status !== "running");
    for (let i = 0; i < ended.length - this.maxEndedJobs; i++) this.jobs.delete(ended[i]!.id);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
