// What the page gives the worker's file system: its changes (protocol.ts FsOp), applied here without being reported
// back, and larger files as stubs (protocol.ts FsEntry "stub"): InMemoryFs lazy entries that know their size (so
// `ls -l` and `stat` need no bytes) and ask the page for the bytes when a command reads them. Between command lines the
// worker gives the bytes of larger files back and keeps them as stubs. Bounds: worker-fs-bounds.ts.

import { EMBEDDED, mirrored } from "./config.ts";
import type { DeviceHooks } from "./devices.ts";
import type { FsEntry, FsOp } from "./protocol.ts";
import { BoundedFs, type Stat } from "./worker-fs-bounds.ts";
import { isInside as isUnder, normalizePath } from "../../lib/paths.ts";

export class PageFedFs extends BoundedFs {
  protected hooks: DeviceHooks | null = null;

  // -------------------------------------------------------------------------------------------- stubs

  /** A stub: its bytes are the page's file at `remote`, loaded on first read (InMemoryFs calls `entry.lazy()`). */
  private putStub(path: string, size: number, mode: number, mtime: Date): void {
    const fs = this;
    this.writeFileLazy(
      path,
      async function load(this: { remote?: string; size?: number }): Promise<Uint8Array> {
        const remote = this.remote ?? path;
        const data = fs.hooks === null ? null : await fs.hooks.fetch(remote);
        if (data === null) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
        // from here on its bytes are held here (and counted by just-bash), no longer a stub's
        if (this.size !== undefined) fs.setStubBytes(fs.stubBytes - this.size);
        this.size = undefined;
        return data;
      },
      { mode, mtime },
    );
    const entry = this.internals.data.get(path);
    if (entry !== undefined && "lazy" in entry) {
      entry.remote = path;
      entry.size = size;
      this.countStub(entry, 1);
    }
  }

  /**
   * Gives back the bytes of larger files this worker holds (written or read here), keeping them as stubs: the page
   * has the same bytes (every change was posted as it was made), and a command that reads one again fetches it.
   * Called between command lines, so that the shell does not keep a copy of every large file it ever touched.
   */
  releaseLargeFiles(): void {
    if (this.large.size === 0) return;
    const paths = [...this.large];
    this.large.clear();
    for (const path of paths) {
      const e = this.internals.data.get(path);
      if (e === undefined || e.type !== "file" || !("content" in e) || !(e.content instanceof Uint8Array) || !mirrored(path)) continue;
      if (e.content.byteLength <= EMBEDDED.inlineFileBytes) continue;
      this.putStub(path, e.content.byteLength, e.mode, e.mtime);
    }
  }

  /** stat/lstat of a stub, without its bytes; null when `path` is not one. */
  protected stubStat(path: string, follow: boolean): Stat | null {
    let real: string;
    try {
      real = follow ? this.internals.resolvePathWithSymlinks(path) : this.internals.resolveIntermediateSymlinks(path);
    } catch {
      return null;
    }
    const e = this.internals.data.get(real);
    if (e === undefined || e.type !== "file" || !("lazy" in e) || e.size === undefined) return null;
    return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: e.mode, size: e.size, mtime: e.mtime, identity: this.internals.identityFor(e) } as Stat;
  }

  // -------------------------------------------------------------------------------------------- the page's changes

  private deleteTree(path: string): void {
    if (path === "/") return;
    const { data } = this.internals;
    for (const key of [...data.keys()]) if (isUnder(key, path)) this.internals.deleteEntry(key);
  }

  private putEntry(e: FsEntry): void {
    const path = normalizePath(e.path);
    if (path === "/") return;
    const mtime = new Date(e.mtime);
    if (e.kind === "file") {
      this.putFile(path, e.data, e.mode, mtime);
      return;
    }
    if (e.kind === "stub") {
      this.putStub(path, e.size, e.mode, mtime);
      return;
    }
    this.internals.ensureParentDirs(path);
    if (e.kind === "dir") this.internals.setEntry(path, { type: "directory", mode: e.mode, mtime });
    else this.internals.setEntry(path, { type: "symlink", target: e.target, mode: e.mode, mtime });
  }

  /** A file the page sent whole; past this worker's byte bound it stays on the page as a stub. */
  private putFile(path: string, data: Uint8Array, mode: number, mtime: Date): void {
    try {
      this.writeFileSync(path, data, undefined, { mode, mtime });
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("ENOSPC")) throw err;
      this.putStub(path, data.length, mode, mtime);
    }
  }

  /** Applies one change from the page (or a snapshot); reporting is worker-fs.ts's (applyOps mutes it). */
  protected applyOp(op: FsOp): void {
    switch (op.op) {
      case "put":
        for (const e of op.entries) this.putEntry(e);
        break;
      case "append": {
        const p = normalizePath(op.path);
        const cur = this.internals.data.get(p);
        if (cur?.type === "file" && "content" in cur) {
          const old = typeof cur.content === "string" ? new TextEncoder().encode(cur.content) : cur.content;
          const joined = new Uint8Array(old.length + op.data.length);
          joined.set(old);
          joined.set(op.data, old.length);
          this.putFile(p, joined, cur.mode, new Date(op.mtime));
        } else if (cur?.type === "file" && cur.size !== undefined) {
          // a stub: the page's file has the appended bytes already
          cur.size += op.data.length;
          this.setStubBytes(this.stubBytes + op.data.length);
          cur.mtime = new Date(op.mtime);
        } else {
          this.putFile(p, op.data, op.mode, new Date(op.mtime));
        }
        break;
      }
      case "delete":
        this.deleteTree(normalizePath(op.path));
        break;
      case "mkdirs": {
        const p = normalizePath(op.path);
        if (!this.internals.data.has(p)) {
          this.internals.ensureParentDirs(p);
          this.internals.setEntry(p, { type: "directory", mode: 0o755, mtime: new Date(op.mtime) });
        }
        break;
      }
      case "chmod": {
        const e = this.internals.data.get(normalizePath(op.path));
        if (e !== undefined) e.mode = op.mode;
        break;
      }
      case "utimes": {
        const e = this.internals.data.get(normalizePath(op.path));
        if (e !== undefined) e.mtime = new Date(op.mtime);
        break;
      }
      case "sync":
        this.deleteTree(normalizePath(op.path));
        for (const e of op.entries) this.putEntry(e);
        break;
    }
  }
}
