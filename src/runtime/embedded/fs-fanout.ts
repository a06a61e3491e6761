// The file system's fan-out on the page: every worker has its own in-memory copy, the page has the mirror. A change
// a worker makes is applied to the mirror and passed on to every other live worker; a change made through the
// Runtime's fs methods (already in the mirror) goes to every worker. Changes are numbered, so a worker that made a
// change before it had the page's latest gets the mirror's result for what it touched, and both end up the same.
// Files larger than EMBEDDED.inlineFileBytes go to the other workers as stubs (their size only); a worker asks for
// the bytes when a command reads the file (read).

import { EMBEDDED } from "../../limits.ts";
import type { MirrorStore } from "./mirror-store.ts";
import type { FsEntry, FsOp, InitMessage } from "./protocol.ts";
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

/** A file entry as another worker gets it: whole when small, else a stub. */
function entryForWorker(e: FsEntry): FsEntry {
  if (e.kind !== "file" || e.data.length <= EMBEDDED.inlineFileBytes) return e;
  return { path: e.path, kind: "stub", mode: e.mode, mtime: e.mtime, size: e.data.length };
}

export class FsFanout {
  /** The page's change counter. */
  private seq = 0;
  private readonly live = new Set<WorkerConnection>();

  constructor(private readonly store: MirrorStore) {}

  /** Registers a worker for file system changes and returns its init message's file system part. */
  attach(conn: WorkerConnection): Pick<InitMessage, "fs" | "seq" | "bounds"> {
    this.live.add(conn);
    conn.assignedSeq = this.seq;
    return { fs: this.store.snapshot(), seq: this.seq, bounds: this.store.bounds };
  }

  /** Ends a worker and stops sending it changes. */
  detach(conn: WorkerConnection): void {
    this.live.delete(conn);
    conn.terminate();
  }

  detachAll(): void {
    for (const conn of [...this.live]) this.detach(conn);
  }

  /** A change (already in the mirror) as the other workers get it: larger files as stubs. */
  private forWorkers(op: FsOp): FsOp {
    if (op.op === "put" || op.op === "sync") {
      return op.entries.some((e) => e.kind === "file" && e.data.length > EMBEDDED.inlineFileBytes) ? { ...op, entries: op.entries.map(entryForWorker) } : op;
    }
    if (op.op === "append") {
      const size = this.store.fileSize(op.path);
      if (size !== null && size > EMBEDDED.inlineFileBytes) {
        return { op: "put", entries: [{ path: op.path, kind: "stub", mode: op.mode, mtime: op.mtime, size }] };
      }
    }
    return op;
  }

  /** A change made through runtime.fs: already in the mirror; every worker gets it. */
  fromPage(op: FsOp): void {
    if (this.live.size === 0) return;
    const seq = ++this.seq;
    const out = this.forWorkers(op);
    for (const conn of this.live) conn.queueFs(out, seq);
  }

  /** Changes a worker made; their buffers moved with the message, so the mirror keeps them without a copy. */
  fromWorker(conn: WorkerConnection, seen: number, ops: FsOp[]): void {
    const stale = !conn.dead && seen < conn.assignedSeq;
    for (const op of ops) {
      this.store.apply(op, true);
      const seq = ++this.seq;
      const out = this.forWorkers(op);
      for (const other of this.live) if (other !== conn) other.queueFs(out, seq);
    }
    if (stale) {
      // the worker made these before it had our latest changes, and will apply those after its own: send it the
      // mirror's result for what it touched, so that both end up the same
      for (const op of ops) {
        for (const path of touchedPaths(op)) {
          const fix: FsOp = { op: "sync", path, entries: this.store.subtree(path, (size) => size <= EMBEDDED.inlineFileBytes) };
          conn.queueFs(fix, ++this.seq);
        }
      }
    }
  }

  /** A worker reads a stub: the file's bytes as the mirror holds them now (after the changes queued for it). */
  read(conn: WorkerConnection, id: number, path: string): void {
    const data = this.store.fileData(path);
    conn.post({ t: "file", id, data }, data === null ? [] : [data.buffer as ArrayBuffer]);
  }
}
