// The page's copy of the embedded runtime's file system. Every change a worker makes is posted here as it happens
// (protocol.ts FsOp), so a fresh worker (after C-c had to end one) starts from it and nothing written before is lost;
// the Runtime's fs methods are served from it (mirror-fs.ts), so they work even while a worker is busy in a loop. The
// data model is just-bash's InMemoryFs: a map from normalised path to entry, where a write lands on the literal path
// and missing parents are created as folders; reads follow symlinks the same way.
//
// Bounds (EMBEDDED.limits.maxFileSystemBytes, EMBEDDED.maxFiles) are checked here for the page's own writes; a worker
// checks its own. Workers get small files whole and larger ones as stubs (protocol.ts FsEntry "stub"), whose bytes
// they ask for when a command reads them (fileData).

import { EMBEDDED } from "../../limits.ts";
// just-bash's path normalisation (`ke`: absolute, no `.`/`..`/empty parts, no trailing slash) is the leaf's normalizePath.
import { isInside as isUnder, joinPath, normalizePath, parentOf } from "../../lib/paths.ts";
import { DEFAULT_BOUNDS, FsError, nameBytes, nameTooLong, spaceDetail } from "./fs-errors.ts";
import type { FsBounds, FsEntry, FsOp } from "./protocol.ts";

export const DIR_MODE = 0o755;
export const FILE_MODE = 0o644;
const MAX_SYMLINK_HOPS = 40;

export type Entry =
  | { kind: "dir"; mode: number; mtime: number }
  | { kind: "file"; mode: number; mtime: number; buf: Uint8Array; size: number }
  | { kind: "symlink"; mode: number; mtime: number; target: string };

/** Where a symlink at `link` pointing to `target` leads (just-bash's `ca`). */
function linkTarget(link: string, target: string): string {
  return target.startsWith("/") ? normalizePath(target) : normalizePath(joinPath(parentOf(link), target));
}

/** What an entry costs: a file's bytes, and every entry's path and a link's target. */
function costOf(path: string, e: Entry): number {
  return (e.kind === "file" ? e.size : 0) + nameBytes(path, e.kind === "symlink" ? e.target : undefined);
}

export class MirrorStore {
  private readonly entries = new Map<string, Entry>();
  /** Bytes of all files, with every entry's path and every link's target (what they cost here). */
  private totalBytes = 0;

  constructor(
    folders: readonly string[] = [],
    readonly bounds: FsBounds = DEFAULT_BOUNDS,
  ) {
    this.entries.set("/", { kind: "dir", mode: DIR_MODE, mtime: Date.now() });
    for (const f of folders) this.mkdirs(normalizePath(f), Date.now());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes of all files together, with their names and links' targets (EMBEDDED.limits.maxFileSystemBytes). */
  get bytes(): number {
    return this.totalBytes;
  }

  // -------------------------------------------------------------------------------------------- bounds

  /**
   * Throws ENAMETOOLONG when `path` is longer than Linux allows, and ENOSPC when a write of `path` that leaves it
   * `newSize` bytes long, creating `newEntries` entries (the path's name counts for a new one), would pass a bound.
   */
  assertRoom(path: string, newSize: number, newEntries: number, syscall: string): void {
    const tooLong = nameTooLong(path);
    if (tooLong !== null) throw new FsError("ENAMETOOLONG", syscall, path, tooLong);
    const old = this.entries.get(path);
    const oldSize = old?.kind === "file" ? old.size : 0;
    const grows = newSize - oldSize + (newEntries > 0 ? nameBytes(path) : 0);
    if (grows > 0 && this.totalBytes + grows > this.bounds.bytes) {
      throw new FsError("ENOSPC", syscall, path, spaceDetail("bytes", this.totalBytes, this.bounds));
    }
    if (newEntries > 0 && this.entries.size + newEntries > this.bounds.files + 1) {
      throw new FsError("ENOSPC", syscall, path, spaceDetail("files", this.entries.size - 1, this.bounds));
    }
  }

  /**
   * Throws ENAMETOOLONG when one of `paths` (a tree's new paths) is longer than Linux allows, and ENOSPC when their
   * names, `grows` characters longer in all than before, would pass the bound on bytes.
   */
  assertNames(paths: Array<{ path: string; target?: string }>, grows: number, syscall: string, shown: string): void {
    for (const { path, target } of paths) {
      const tooLong = nameTooLong(path, target);
      if (tooLong !== null) throw new FsError("ENAMETOOLONG", syscall, shown, tooLong);
    }
    if (grows > 0 && this.totalBytes + grows > this.bounds.bytes) {
      throw new FsError("ENOSPC", syscall, shown, spaceDetail("bytes", this.totalBytes, this.bounds));
    }
  }

  // -------------------------------------------------------------------------------------------- applying changes

  /**
   * Applies a change. `owned`: the op's buffers are the mirror's to keep (they came from a worker, moved with its
   * message), so they are not copied.
   */
  apply(op: FsOp, owned = false): void {
    switch (op.op) {
      case "put":
        for (const e of op.entries) this.put(e, owned);
        break;
      case "append": {
        const path = normalizePath(op.path);
        const cur = this.entries.get(path);
        if (cur?.kind === "file") {
          this.appendTo(cur, op.data);
          cur.mtime = op.mtime;
        } else {
          this.ensureParents(path);
          this.setFile(path, { kind: "file", mode: op.mode, mtime: op.mtime, buf: owned ? op.data : op.data.slice(), size: op.data.length });
        }
        break;
      }
      case "delete":
        this.deleteTree(normalizePath(op.path));
        break;
      case "mkdirs":
        this.mkdirs(normalizePath(op.path), op.mtime);
        break;
      case "chmod": {
        const e = this.entries.get(normalizePath(op.path));
        if (e !== undefined) e.mode = op.mode;
        break;
      }
      case "utimes": {
        const e = this.entries.get(normalizePath(op.path));
        if (e !== undefined) e.mtime = op.mtime;
        break;
      }
      case "sync":
        this.deleteTree(normalizePath(op.path));
        for (const e of op.entries) this.put(e, owned);
        break;
    }
  }

  /** Sets an entry, keeping the byte count (its content, its path and a link's target). */
  private setFile(path: string, entry: Entry): void {
    const old = this.entries.get(path);
    if (old !== undefined) this.totalBytes -= costOf(path, old);
    this.totalBytes += costOf(path, entry);
    this.entries.set(path, entry);
  }

  private put(e: FsEntry, owned: boolean): void {
    const path = normalizePath(e.path);
    if (path === "/") return;
    this.ensureParents(path);
    if (e.kind === "file") this.setFile(path, { kind: "file", mode: e.mode, mtime: e.mtime, buf: owned ? e.data : e.data.slice(), size: e.data.length });
    else if (e.kind === "dir") this.setFile(path, { kind: "dir", mode: e.mode, mtime: e.mtime });
    else if (e.kind === "symlink") this.setFile(path, { kind: "symlink", mode: e.mode, mtime: e.mtime, target: e.target });
    else {
      // a worker copied or moved a file it had not read: the bytes are the page's file at `from`
      const from = e.from === undefined ? undefined : this.entries.get(normalizePath(e.from));
      const cur = this.entries.get(path);
      const source = from?.kind === "file" ? from : cur?.kind === "file" ? cur : undefined;
      const buf = source === undefined ? new Uint8Array(0) : source === cur ? source.buf : source.buf.slice(0, source.size);
      this.setFile(path, { kind: "file", mode: e.mode, mtime: e.mtime, buf, size: source?.size ?? 0 });
    }
  }

  private appendTo(file: Extract<Entry, { kind: "file" }>, data: Uint8Array): void {
    const need = file.size + data.length;
    if (need > file.buf.length) {
      // Grow geometrically: a file appended to chunk by chunk (spilled output) costs linear time, not quadratic.
      const grown = new Uint8Array(Math.max(need, Math.min(file.buf.length * 2, need + 64 * 1024 * 1024), 256));
      grown.set(file.buf.subarray(0, file.size));
      file.buf = grown;
    }
    file.buf.set(data, file.size);
    this.totalBytes += data.length;
    file.size = need;
  }

  private ensureParents(path: string): void {
    const parent = parentOf(path);
    if (parent === "/" || this.entries.has(parent)) return;
    this.ensureParents(parent);
    this.setFile(parent, { kind: "dir", mode: DIR_MODE, mtime: Date.now() });
  }

  private mkdirs(path: string, mtime: number): void {
    if (this.entries.has(path)) return;
    this.ensureParents(path);
    this.setFile(path, { kind: "dir", mode: DIR_MODE, mtime });
  }

  private deleteTree(path: string): void {
    if (path === "/") return;
    this.deleteOne(path);
    const prefix = `${path}/`;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.deleteOne(key);
  }

  private deleteOne(path: string): void {
    const e = this.entries.get(path);
    if (e !== undefined) this.totalBytes -= costOf(path, e);
    this.entries.delete(path);
  }

  // -------------------------------------------------------------------------------------------- reading

  /**
   * Every entry, parents before children: what a fresh worker starts from. Files larger than `inlineBytes`, and
   * small ones once `budget` bytes have been sent whole, go as stubs.
   */
  snapshot(inlineBytes: number = EMBEDDED.inlineFileBytes, budget: number = EMBEDDED.inlineSnapshotBytes): FsEntry[] {
    let left = budget;
    return this.subtree("/", (size) => {
      if (size > inlineBytes || size > left) return false;
      left -= size;
      return true;
    }).filter((e) => e.path !== "/");
  }

  /** The entries at and under `path` (literal path), parents first; a file goes whole when `inline(size)` says so. */
  subtree(path: string, inline: (size: number) => boolean = () => true): FsEntry[] {
    const root = normalizePath(path);
    const paths: string[] = [];
    for (const p of this.entries.keys()) if (isUnder(p, root)) paths.push(p);
    paths.sort();
    return paths.map((p) => this.export(p, this.entries.get(p) as Entry, inline));
  }

  private export(path: string, e: Entry, inline: (size: number) => boolean): FsEntry {
    if (e.kind === "file") {
      if (inline(e.size)) return { path, kind: "file", mode: e.mode, mtime: e.mtime, data: e.buf.slice(0, e.size) };
      return { path, kind: "stub", mode: e.mode, mtime: e.mtime, size: e.size };
    }
    if (e.kind === "dir") return { path, kind: "dir", mode: e.mode, mtime: e.mtime };
    return { path, kind: "symlink", mode: e.mode, mtime: e.mtime, target: e.target };
  }

  /** A copy of the bytes of the file at `path` (literal), for a worker that reads it; null when it is not a file. */
  fileData(path: string): Uint8Array | null {
    const e = this.entries.get(normalizePath(path));
    return e?.kind === "file" ? e.buf.slice(0, e.size) : null;
  }

  /** The size of the file at `path` (literal), or null. */
  fileSize(path: string): number | null {
    const e = this.entries.get(normalizePath(path));
    return e?.kind === "file" ? e.size : null;
  }

  /** The path with every symlink followed (InMemoryFs.resolvePathWithSymlinks). */
  resolve(path: string, syscall: string, followFinal = true): string {
    const parts = normalizePath(path).split("/").filter((p) => p !== "");
    let cur = "/";
    for (let i = 0; i < parts.length; i++) {
      cur = joinPath(cur, parts[i] ?? "");
      if (!followFinal && i === parts.length - 1) break;
      let hops = 0;
      let e = this.entries.get(cur);
      while (e !== undefined && e.kind === "symlink") {
        if (++hops > MAX_SYMLINK_HOPS) throw new FsError("ELOOP", syscall, path);
        cur = linkTarget(cur, e.target);
        e = this.entries.get(cur);
      }
    }
    return cur;
  }

  get(path: string): Entry | undefined {
    return this.entries.get(path);
  }

  /** Names in a folder (literal path of the folder), with their entries. */
  children(dir: string): Array<[string, Entry]> {
    const prefix = dir === "/" ? "/" : `${dir}/`;
    const out: Array<[string, Entry]> = [];
    for (const [p, e] of this.entries) {
      if (p === dir || !p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      if (rest !== "" && !rest.includes("/")) out.push([rest, e]);
    }
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }

  fileBytes(e: Extract<Entry, { kind: "file" }>): Uint8Array {
    return e.buf.slice(0, e.size);
  }
}
