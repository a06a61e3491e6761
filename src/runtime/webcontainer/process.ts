// A WebContainer process as a TerminalProcess: ONE reader on `output` (the stream is push-only and never ends, so the
// end comes from `exit`), ONE writer on `input` (getWriter() locks the stream), chunks passed on as they come.

import { Listeners } from "../../lib/listeners.ts";
import type { TerminalProcess, Unsubscribe } from "../types.ts";
import type { WcProcess } from "./api.ts";

/**
 * Reads a process's output, chunk by chunk as it comes, into `onChunk` (empty chunks skipped). `stop()` cancels the
 * read and resolves once the loop is over. A stream that cannot be read (spawned with output: false) gives nothing.
 */
export function readOutput(proc: WcProcess, onChunk: (chunk: string) => void): { stop(): Promise<void> } {
  let reader: ReadableStreamDefaultReader<string> | null = null;
  try {
    reader = proc.output.getReader();
  } catch {
    // no output (spawned with output: false) or locked
  }
  const loop = (async () => {
    if (reader === null) return;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (typeof value === "string" && value !== "") onChunk(value);
      }
    } catch {
      // cancelled or errored: the process is over
    }
  })();
  return {
    async stop() {
      await reader?.cancel().catch(() => undefined);
      await loop;
    },
  };
}

export interface WcTerminalOptions {
  /** Rewrites the output before listeners see it (the agent's jsh); null passes chunks on untouched. */
  shaper?: { push(chunk: string): void; noteInput(data: string): void; flush(): void } | null;
  /** After `exit`, the process ends once its output has been quiet this long; output until then is passed on. */
  drainMs: number;
  /** ... but at most this long after `exit`. */
  drainMaxMs?: number;
  /** After kill(), `exited` resolves by then even when no exit is reported. */
  killExitMs: number;
  /** Columns never go below this (the agent's shell stays wide whatever a terminal view asks for). */
  minCols?: number;
  onEnd?: () => void;
}

export class WcTerminalProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private readonly listeners = new Listeners<string>("terminal");
  private readonly writer: WritableStreamDefaultWriter<string> | null;
  private readonly output: { stop(): Promise<void> };
  private ended = false;
  private killed = false;
  private lastOutputAt = 0;
  private finish!: (code: number) => void;

  constructor(
    private readonly proc: WcProcess,
    private readonly opts: WcTerminalOptions,
  ) {
    let writer: WritableStreamDefaultWriter<string> | null = null;
    try {
      writer = proc.input.getWriter();
    } catch {
      // locked or closed: writes are dropped
    }
    this.writer = writer;
    this.exited = new Promise<number>((resolve) => {
      this.finish = (code) => {
        if (this.ended) return;
        opts.shaper?.flush(); // held text and markers go out before the end
        this.ended = true;
        void this.output.stop();
        try {
          this.writer?.releaseLock();
        } catch {
          // a pending write keeps the lock: it fails on its own
        }
        opts.onEnd?.();
        resolve(code);
      };
    });
    this.output = readOutput(proc, (chunk) => {
      if (!this.ended) this.deliver(chunk);
    });
    proc.exit.then(
      (code) => this.afterExit(typeof code === "number" ? code : 1),
      () => this.afterExit(1),
    );
  }

  private deliver(chunk: string): void {
    this.lastOutputAt = performance.now();
    const shaper = this.opts.shaper;
    if (shaper) shaper.push(chunk);
    else this.emit(chunk);
  }

  /** Listeners' entry point (the shaper calls it too). */
  emit(chunk: string): void {
    if (this.ended || chunk === "") return;
    this.listeners.emit(chunk);
  }

  private afterExit(code: number): void {
    // Output and exit travel as separate messages in no set order: the process ends once its output has been quiet
    // for drainMs after the exit (bounded by drainMaxMs), so that late output still belongs to it.
    const exitAt = performance.now();
    const deadline = exitAt + Math.max(this.opts.drainMs, this.opts.drainMaxMs ?? this.opts.drainMs);
    const check = (): void => {
      if (this.ended) return;
      const t = performance.now();
      const quietFor = t - Math.max(exitAt, this.lastOutputAt);
      if (quietFor >= this.opts.drainMs || t >= deadline) this.finish(code);
      else setTimeout(check, Math.min(this.opts.drainMs - quietFor, deadline - t) + 1);
    };
    setTimeout(check, this.opts.drainMs);
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  write(data: string): void {
    if (this.ended || this.killed || data === "" || this.writer === null) return;
    this.opts.shaper?.noteInput(data);
    this.writer.write(data).catch(() => undefined); // WebContainer swallows writes after exit; so do we
  }

  /** Input the adapter types itself (not seen by the shaper as a person's or agent's keystrokes). */
  writeUnshaped(data: string): void {
    if (this.ended || this.killed || data === "" || this.writer === null) return;
    this.writer.write(data).catch(() => undefined);
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    try {
      this.proc.resize({
        cols: Math.max(2, Math.floor(cols), this.opts.minCols ?? 0),
        rows: Math.max(1, Math.floor(rows)),
      });
    } catch {
      // gone
    }
  }

  kill(): void {
    if (this.ended || this.killed) return;
    this.killed = true;
    try {
      this.proc.kill();
    } catch {
      // gone already
    }
    setTimeout(() => this.finish(137), this.opts.killExitMs);
  }
}
