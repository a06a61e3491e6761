// One worker as the page sees it: booting it (it posts `booted` with just-bash's command list once loaded), sending it
// messages, and the file system changes queued for it. Changes from the page and from other workers are batched
// (EMBEDDED.fsBatchMs) and always go out before the next message, so a command sees what the page wrote before it.

import { EMBEDDED } from "./config.ts";
import type { FsOp, HostToWorker, WorkerMemory, WorkerToHost } from "./protocol.ts";
import type { WorkerFactory, WorkerHandle } from "./transport.ts";

/** A `put` of one stub (a larger file that changed). */
function isStubPut(op: FsOp): op is Extract<FsOp, { op: "put" }> {
  return op.op === "put" && op.entries.length === 1 && op.entries[0]?.kind === "stub";
}

export class WorkerConnection {
  /** The last host change queued for this worker (sent or not). */
  assignedSeq = 0;
  dead = false;
  private queue: FsOp[] = [];
  private queueSeq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private listener: ((m: WorkerToHost) => void) | null = null;
  private errorListener: ((e: Error) => void) | null = null;
  /** Messages that arrived before anyone listened. */
  private early: WorkerToHost[] = [];
  /** `memory` requests waiting for their answer. */
  private readonly measuring = new Map<number, (usage: WorkerMemory | null) => void>();
  private nextMeasure = 1;

  constructor(
    readonly handle: WorkerHandle,
    readonly programs: string[],
  ) {
    handle.onMessage((m) => {
      if (m.t === "memory") {
        this.measuring.get(m.id)?.(m.usage);
        this.measuring.delete(m.id);
        return;
      }
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
  post(message: HostToWorker, transfer?: ArrayBuffer[]): void {
    if (this.dead) return;
    this.flushFs();
    this.handle.post(message, transfer);
  }

  queueFs(op: FsOp, seq: number): void {
    if (this.dead) return;
    const last = this.queue[this.queue.length - 1];
    if (last !== undefined && isStubPut(last) && isStubPut(op) && last.entries[0]?.path === op.entries[0]?.path) {
      this.queue[this.queue.length - 1] = op; // a file growing past the inline size: only its last size matters
    } else if (last !== undefined && last.op === "append" && op.op === "append" && last.path === op.path) {
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

  /** The worker's memory (null where the platform does not tell, or when the worker has ended). */
  memory(): Promise<WorkerMemory | null> {
    if (this.dead) return Promise.resolve(null);
    const id = this.nextMeasure++;
    return new Promise((resolve) => {
      this.measuring.set(id, resolve);
      this.handle.post({ t: "memory", id });
    });
  }

  terminate(): void {
    if (this.dead) return;
    this.dead = true;
    for (const done of this.measuring.values()) done(null);
    this.measuring.clear();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.handle.terminate();
  }
}

/** Starts a worker and resolves once it has loaded just-bash. */
export function bootWorker(factory: WorkerFactory): Promise<WorkerConnection> {
  return new Promise<WorkerConnection>((resolve, reject) => {
    let handle: WorkerHandle;
    try {
      handle = factory();
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    let settled = false;
    handle.onMessage((m) => {
      if (settled) return;
      if (m.t === "booted") {
        settled = true;
        resolve(new WorkerConnection(handle, m.programs));
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
