// The page's copy of the embedded runtime's file system. Every change a worker makes is posted here as it happens
// (protocol.ts FsOp), so a fresh worker (after C-c had to end one) starts from it and nothing written before is lost;
// the Runtime's fs methods are served from it, so they work even while a worker is busy in a loop. The data model is
// just-bash's InMemoryFs: a map from normalised path to entry, where a write lands on the literal path and missing
// parents are created as folders; reads follow symlinks the same way.
//
// Bounds (EMBEDDED.limits.maxFileSystemBytes, EMBEDDED.maxFiles) are checked here for the page's own writes; a worker
// checks its own. Workers get small files whole and larger ones as stubs (protocol.ts FsEntry "stub"), whose bytes
// they ask for when a command reads them (fileBytes).

import { EMBEDDED } from "../../limits.ts";
import type { DirEntry, FileStat, RuntimeFs } from "../types.ts";
import type { FsBounds, FsEntry, FsOp } from "./protocol.ts";
// just-bash's path normalisation (`ke`: absolute, no `.`/`..`/empty parts, no trailing slash) is the leaf's normalizePath.
import { baseName, isInside as isUnder, joinPath, normalizePath, parentOf } from "../../lib/paths.ts";

const DIR_MODE = 0o755;
const FILE_MODE = 0o644;
const SYMLINK_MODE = 0o777;
const MAX_SYMLINK_HOPS = 40;

type Entry =
  | { kind: "dir"; mode: number; mtime: number }
  | { kind: "file"; mode: number; mtime: number; buf: Uint8Array; size: number }
  | { kind: "symlink"; mode: number; mtime: number; target: string };

/** Where a symlink at `link` pointing to `target` leads (just-bash's `ca`). */
function linkTarget(link: string, target: string): string {
  return target.startsWith("/") ? normalizePath(target) : normalizePath(joinPath(parentOf(link), target));
}

export class FsError extends Error {
  readonly code: string;
  readonly syscall: string;
  readonly path: string;
  constructor(code: string, syscall: string, path: string, detail?: string) {
    const text: Record<string, string> = {
      ENOENT: "no such file or directory",
      EEXIST: "file already exists",
      ENOTDIR: "not a directory",
      EISDIR: "illegal operation on a directory",
      ENOTEMPTY: "directory not empty",
      ELOOP: "too many levels of symbolic links",
      EINVAL: "invalid argument",
      ENOSPC: "no space left on device",
    };
    super(`${code}: ${detail ?? text[code] ?? "error"}, ${syscall} '${path}'`);
    this.name = "FsError";
    this.code = code;
    this.syscall = syscall;
    this.path = path;
  }
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

/** Bytes as people read them: "128 MiB", "3.5 MiB", "812 KiB". */
export function sizeText(bytes: number): string {
  const units: Array<[number, string]> = [[1024 * 1024 * 1024, "GiB"], [1024 * 1024, "MiB"], [1024, "KiB"]];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1)).toLocaleString("en-US")} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The bounds of EMBEDDED in src/limits.ts. */
export const DEFAULT_BOUNDS: FsBounds = { bytes: EMBEDDED.limits.maxFileSystemBytes, files: EMBEDDED.maxFiles };

/** What a bound's ENOSPC error says: the bound, and what to do instead. */
export function spaceDetail(kind: "bytes" | "files", used: number, bounds: FsBounds): string {
  if (kind === "bytes") {
    return (
      `no space left: the embedded shell's files (workspace and /tmp together) may hold ${sizeText(bounds.bytes)}` +
      ` and ${sizeText(used)} are in use; delete files you no longer need (rm), or write less`
    );
  }
  return (
    `no space left: the embedded shell's file system may hold ${bounds.files.toLocaleString("en-US")} files, folders and links` +
    ` and ${used.toLocaleString("en-US")} exist; delete some (rm -r), or keep many small pieces in one file`
  );
}

export class MirrorStore {
  private readonly entries = new Map<string, Entry>();
  /** Bytes of all files. */
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

  /** Bytes of all files together. */
  get bytes(): number {
    return this.totalBytes;
  }

  // -------------------------------------------------------------------------------------------- bounds

  /**
   * Throws ENOSPC when a write of `path` that leaves it `newSize` bytes long, creating `newEntries` entries, would
   * pass a bound.
   */
  assertRoom(path: string, newSize: number, newEntries: number, syscall: string): void {
    const old = this.entries.get(path);
    const oldSize = old?.kind === "file" ? old.size : 0;
    if (newSize > oldSize && this.totalBytes - oldSize + newSize > this.bounds.bytes) {
      throw new FsError("ENOSPC", syscall, path, spaceDetail("bytes", this.totalBytes, this.bounds));
    }
    if (newEntries > 0 && this.entries.size + newEntries > this.bounds.files + 1) {
      throw new FsError("ENOSPC", syscall, path, spaceDetail("files", this.entries.size - 1, this.bounds));
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

  /** Sets an entry, keeping the byte count. */
  private setFile(path: string, entry: Entry): void {
    const old = this.entries.get(path);
    if (old?.kind === "file") this.totalBytes -= old.size;
    if (entry.kind === "file") this.totalBytes += entry.size;
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
    this.entries.set(parent, { kind: "dir", mode: DIR_MODE, mtime: Date.now() });
  }

  private mkdirs(path: string, mtime: number): void {
    if (this.entries.has(path)) return;
    this.ensureParents(path);
    this.entries.set(path, { kind: "dir", mode: DIR_MODE, mtime });
  }

  private deleteTree(path: string): void {
    if (path === "/") return;
    this.deleteOne(path);
    const prefix = `${path}/`;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.deleteOne(key);
  }

  private deleteOne(path: string): void {
    const e = this.entries.get(path);
    if (e?.kind === "file") this.totalBytes -= e.size;
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

function entryType(e: Entry): DirEntry["type"] {
  return e.kind === "dir" ? "dir" : e.kind;
}

function entrySize(e: Entry): number {
  return e.kind === "file" ? e.size : 0;
}

/**
 * RuntimeFs over the mirror, with node-like semantics (errno-coded errors). Every change is applied to the mirror at
 * once and handed to `commit`, which sends it to the workers.
 */
export class MirrorFs implements RuntimeFs {
  constructor(
    private readonly store: MirrorStore,
    private readonly commit: (op: FsOp) => void,
  ) {}

  private change(op: FsOp): void {
    this.store.apply(op);
    this.commit(op);
  }

  /** The target of a write: the final symlink followed, parents resolved; its folder must exist. */
  private writeTarget(path: string, syscall: string): string {
    const abs = normalizePath(path);
    if (abs === "/") throw new FsError("EISDIR", syscall, path);
    const dir = this.store.resolve(parentOf(abs), syscall);
    const parent = this.store.get(dir);
    if (parent === undefined) throw new FsError("ENOENT", syscall, path);
    if (parent.kind !== "dir") throw new FsError("ENOTDIR", syscall, path);
    const target = this.store.resolve(joinPath(dir, baseName(abs)), syscall);
    const existing = this.store.get(target);
    if (existing?.kind === "dir") throw new FsError("EISDIR", syscall, path);
    if (target !== joinPath(dir, baseName(abs))) {
      // a symlink to somewhere whose folder must exist too
      const tdir = this.store.get(parentOf(target));
      if (tdir === undefined) throw new FsError("ENOENT", syscall, path);
    }
    return target;
  }

  async readFile(path: string): Promise<Uint8Array> {
    const real = this.store.resolve(path, "open");
    const e = this.store.get(real);
    if (e === undefined) throw new FsError("ENOENT", "open", path);
    if (e.kind !== "file") throw new FsError("EISDIR", "read", path);
    return this.store.fileBytes(e);
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const target = this.writeTarget(path, "open");
    const old = this.store.get(target);
    const mode = old?.kind === "file" ? old.mode : FILE_MODE;
    const bytes = toBytes(data);
    this.store.assertRoom(target, bytes.length, old === undefined ? 1 : 0, "open");
    this.change({ op: "put", entries: [{ path: target, kind: "file", mode, mtime: Date.now(), data: bytes }] });
  }

  async appendFile(path: string, data: string): Promise<void> {
    const target = this.writeTarget(path, "open");
    const old = this.store.get(target);
    const mode = old?.kind === "file" ? old.mode : FILE_MODE;
    const bytes = toBytes(data);
    this.store.assertRoom(target, (old?.kind === "file" ? old.size : 0) + bytes.length, old === undefined ? 1 : 0, "open");
    this.change({ op: "append", path: target, data: bytes, mode, mtime: Date.now() });
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const real = this.store.resolve(path, "scandir");
    const e = this.store.get(real);
    if (e === undefined) throw new FsError("ENOENT", "scandir", path);
    if (e.kind !== "dir") throw new FsError("ENOTDIR", "scandir", path);
    return this.store.children(real).map(([name, c]) => ({ name, type: entryType(c), size: entrySize(c) }));
  }

  async stat(path: string): Promise<FileStat | null> {
    let real: string;
    try {
      real = this.store.resolve(path, "lstat", false);
    } catch {
      return null;
    }
    const e = this.store.get(real);
    if (e === undefined) return null;
    // a path through a file (`/file/x`) does not exist either
    return { type: entryType(e), size: entrySize(e) };
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    const abs = normalizePath(path);
    if (options?.recursive) {
      // every existing prefix must be a folder (or lead to one)
      const parts = abs.split("/").filter((p) => p !== "");
      let cur = "/";
      for (const part of parts) {
        cur = this.store.resolve(joinPath(cur, part), "mkdir");
        const e = this.store.get(cur);
        if (e === undefined) {
          this.store.assertRoom(cur, 0, 1, "mkdir");
          this.change({ op: "mkdirs", path: cur, mtime: Date.now() });
        } else if (e.kind !== "dir") {
          throw new FsError(cur === this.store.resolve(abs, "mkdir") ? "EEXIST" : "ENOTDIR", "mkdir", path);
        }
      }
      return;
    }
    const dir = this.store.resolve(parentOf(abs), "mkdir");
    const parent = this.store.get(dir);
    if (parent === undefined) throw new FsError("ENOENT", "mkdir", path);
    if (parent.kind !== "dir") throw new FsError("ENOTDIR", "mkdir", path);
    const target = joinPath(dir, baseName(abs));
    if (abs === "/" || this.store.get(target) !== undefined) throw new FsError("EEXIST", "mkdir", path);
    this.store.assertRoom(target, 0, 1, "mkdir");
    this.change({ op: "mkdirs", path: target, mtime: Date.now() });
  }

  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    const abs = normalizePath(path);
    let target: string;
    try {
      target = this.store.resolve(abs, "rm", false);
    } catch (err) {
      if (options?.force) return;
      throw err;
    }
    const e = this.store.get(target);
    if (e === undefined) {
      if (options?.force) return;
      throw new FsError("ENOENT", "rm", path);
    }
    if (target === "/") throw new FsError("EINVAL", "rm", path, "refusing to remove the root folder");
    if (e.kind === "dir" && !options?.recursive) {
      throw new FsError("EISDIR", "rm", path, "is a directory (use recursive)");
    }
    this.change({ op: "delete", path: target });
  }

  async rename(from: string, to: string): Promise<void> {
    const src = this.store.resolve(from, "rename", false);
    const e = this.store.get(src);
    if (e === undefined) throw new FsError("ENOENT", "rename", from);
    const destAbs = normalizePath(to);
    const destDir = this.store.resolve(parentOf(destAbs), "rename");
    const dirEntry = this.store.get(destDir);
    if (dirEntry === undefined) throw new FsError("ENOENT", "rename", to);
    if (dirEntry.kind !== "dir") throw new FsError("ENOTDIR", "rename", to);
    const dest = joinPath(destDir, baseName(destAbs));
    if (dest === src) return;
    if (e.kind === "dir" && isUnder(dest, src)) throw new FsError("EINVAL", "rename", from);
    const existing = this.store.get(dest);
    if (existing !== undefined) {
      if (existing.kind === "dir" && e.kind !== "dir") throw new FsError("EISDIR", "rename", to);
      if (existing.kind !== "dir" && e.kind === "dir") throw new FsError("ENOTDIR", "rename", to);
      if (existing.kind === "dir" && this.store.children(dest).length > 0) throw new FsError("ENOTEMPTY", "rename", to);
    }
    const moved = this.store.subtree(src).map((x) => ({ ...x, path: dest + x.path.slice(src.length) }));
    this.change({ op: "delete", path: src });
    this.change({ op: "sync", path: dest, entries: moved });
  }

  async realpath(path: string): Promise<string> {
    const real = this.store.resolve(path, "realpath");
    if (this.store.get(real) === undefined) throw new FsError("ENOENT", "realpath", path);
    return real;
  }
}

export const MODES = { DIR_MODE, FILE_MODE, SYMLINK_MODE } as const;
