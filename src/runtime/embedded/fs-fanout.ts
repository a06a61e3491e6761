// The file system's fan-out on the page: every worker has its own in-memory copy, the page has the mirror. A change
// a worker makes is applied to the mirror and passed on to every other live worker; a change made through the
// Runtime's fs methods (already in the mirror) goes to every worker. Changes are numbered, so a worker that made a
// change before it had the page's latest gets the mirror's result for what it touched, and both end up the same.

import type { MirrorStore } from "./mirror.ts";
import type { FsOp, InitMessage } from "./protocol.ts";
import type { WorkerConnection } from "./worker-connection.ts";

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

export class FsFanout {
  /** The page's change counter. */
  private seq = 0;
  private readonly live = new Set<WorkerConnection>();

  constructor(private readonly store: MirrorStore) {}

  /** Registers a worker for file system changes and returns its init message's file system part. */
  attach(conn: WorkerConnection): Pick<InitMessage, "fs" | "seq"> {
    this.live.add(conn);
    conn.assignedSeq = this.seq;
    return { fs: this.store.snapshot(), seq: this.seq };
  }

  /** Ends a worker and stops sending it changes. */
  detach(conn: WorkerConnection): void {
    this.live.delete(conn);
    conn.terminate();
  }

  detachAll(): void {
    for (const conn of [...this.live]) this.detach(conn);
  }

  /** A change made through runtime.fs: already in the mirror; every worker gets it. */
  fromPage(op: FsOp): void {
    const seq = ++this.seq;
    for (const conn of this.live) conn.queueFs(op, seq);
  }

  /** Changes a worker made. */
  fromWorker(conn: WorkerConnection, seen: number, ops: FsOp[]): void {
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
}
