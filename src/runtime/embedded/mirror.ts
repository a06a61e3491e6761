// The page's copy of the embedded runtime's file system. Every change a worker makes is posted here as it happens
// (protocol.ts FsOp), so a fresh worker (after C-c had to end one) starts from it and nothing written before is lost;
// the Runtime's fs methods are served from it, so they work even while a worker is busy in a loop. The data model is
// just-bash's InMemoryFs: a map from normalised path to entry, where a write lands on the literal path and missing
// parents are created as folders; reads follow symlinks the same way.

import type { DirEntry, FileStat, RuntimeFs } from "../types.ts";
import type { FsEntry, FsOp } from "./protocol.ts";
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

export class MirrorStore {
  private readonly entries = new Map<string, Entry>();

  constructor(folders: readonly string[] = []) {
    this.entries.set("/", { kind: "dir", mode: DIR_MODE, mtime: Date.now() });
    for (const f of folders) this.mkdirs(normalizePath(f), Date.now());
  }

  get size(): number {
    return this.entries.size;
  }

  // -------------------------------------------------------------------------------------------- applying changes

  apply(op: FsOp): void {
    switch (op.op) {
      case "put":
        for (const e of op.entries) this.put(e);
        break;
      case "append": {
        const path = normalizePath(op.path);
        const cur = this.entries.get(path);
        if (cur?.kind === "file") {
          this.appendTo(cur, op.data);
          cur.mtime = op.mtime;
        } else {
          this.ensureParents(path);
          this.entries.set(path, { kind: "file", mode: op.mode, mtime: op.mtime, buf: op.data.slice(), size: op.data.length });
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
        for (const e of op.entries) this.put(e);
        break;
    }
  }

  private put(e: FsEntry): void {
    const path = normalizePath(e.path);
    if (path === "/") return;
    this.ensureParents(path);
    if (e.kind === "file") this.entries.set(path, { kind: "file", mode: e.mode, mtime: e.mtime, buf: e.data.slice(), size: e.data.length });
    else if (e.kind === "dir") this.entries.set(path, { kind: "dir", mode: e.mode, mtime: e.mtime });
    else this.entries.set(path, { kind: "symlink", mode: e.mode, mtime: e.mtime, target: e.target });
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
    this.entries.delete(path);
    const prefix = `${path}/`;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  // -------------------------------------------------------------------------------------------- reading

  /** Every entry, parents before children: what a fresh worker starts from. */
  snapshot(): FsEntry[] {
    return this.subtree("/").filter((e) => e.path !== "/");
  }

  /** The entries at and under `path` (literal path), parents first. */
  subtree(path: string): FsEntry[] {
    const root = normalizePath(path);
    const out: FsEntry[] = [];
    for (const [p, e] of this.entries) if (isUnder(p, root)) out.push(this.export(p, e));
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  private export(path: string, e: Entry): FsEntry {
    if (e.kind === "file") return { path, kind: "file", mode: e.mode, mtime: e.mtime, data: e.buf.slice(0, e.size) };
    if (e.kind === "dir") return { path, kind: "dir", mode: e.mode, mtime: e.mtime };
    return { path, kind: "symlink", mode: e.mode, mtime: e.mtime, target: e.target };
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
    this.change({ op: "put", entries: [{ path: target, kind: "file", mode, mtime: Date.now(), data: toBytes(data) }] });
  }

  async appendFile(path: string, data: string): Promise<void> {
    const target = this.writeTarget(path, "open");
    const old = this.store.get(target);
    const mode = old?.kind === "file" ? old.mode : FILE_MODE;
    this.change({ op: "append", path: target, data: toBytes(data), mode, mtime: Date.now() });
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
