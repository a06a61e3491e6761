// Workers booted ahead: loading just-bash takes a while, so one worker always waits booted for the next shell or job
// (and for a C-c that has to end a worker). A new standby is started EMBEDDED.standbyDelayMs after the last was taken,
// not at once, so that its loading does not slow the command just started; a C-c boots it at once.

import { EMBEDDED } from "./config.ts";
import type { WorkerFactory } from "./transport.ts";
import { bootWorker, type WorkerConnection } from "./worker-connection.ts";

const DISPOSED = "The embedded runtime has been disposed.";

export class Standby {
  private next: Promise<WorkerConnection> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  /** Every worker booted, until it ends (for memory reports). */
  readonly booted = new Set<WorkerConnection>();

  constructor(private readonly factory: WorkerFactory) {}

  private async bootOne(): Promise<WorkerConnection> {
    const conn = await bootWorker(this.factory);
    this.booted.add(conn);
    for (const c of this.booted) if (c.dead) this.booted.delete(c);
    return conn;
  }

  /** Boots the first worker and keeps it as the standby; resolves with it (to read its program list). */
  async first(): Promise<WorkerConnection> {
    const conn = await this.bootOne();
    this.next = Promise.resolve(conn);
    return conn;
  }

  /** A booted worker: the standby when there is one (a new standby is booted a moment later). */
  async take(): Promise<WorkerConnection> {
    if (this.disposed) throw new Error(DISPOSED);
    const ready = this.next ?? this.bootOne();
    this.next = null;
    let conn: WorkerConnection;
    try {
      conn = await ready;
    } catch {
      conn = await this.bootOne(); // a failed standby: try once more
    }
    this.schedule();
    if (this.disposed) {
      conn.terminate();
      throw new Error(DISPOSED);
    }
    return conn;
  }

  /** Boots the standby now if there is none (a C-c may need it in a moment). */
  prepare(): void {
    if (this.disposed || this.next !== null) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.boot();
  }

  private boot(): void {
    const next = this.bootOne();
    this.next = next;
    next.catch(() => {
      if (this.next === next) this.next = null;
    });
  }

  private schedule(): void {
    if (this.timer !== null || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.disposed && this.next === null) this.boot();
    }, EMBEDDED.standbyDelayMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const next = this.next;
    this.next = null;
    if (next !== null) await next.then((c) => c.terminate(), () => undefined);
  }
}
