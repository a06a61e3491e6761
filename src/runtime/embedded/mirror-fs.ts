// The Runtime's fs methods (RuntimeFs) of the embedded runtime, served from the page's copy of the file system
// (mirror-store.ts) with node-like semantics and errno-coded errors: they answer even while a worker is busy, and every
// change they make goes to the workers.

import type { DirEntry, FileStat, RuntimeFs } from "../types.ts";
import { baseName, isInside as isUnder, joinPath, normalizePath, parentOf } from "../../lib/paths.ts";
import { FsError } from "./fs-errors.ts";
import { type Entry, FILE_MODE, type MirrorStore } from "./mirror-store.ts";
import type { FsOp } from "./protocol.ts";

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
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
    // every path under it gets `dest` for `src`: each must fit Linux's limits, and the longer names the bound on bytes
    this.store.assertNames(moved, (dest.length - src.length) * moved.length, "rename", to);
    this.change({ op: "delete", path: src });
    this.change({ op: "sync", path: dest, entries: moved });
  }

  async realpath(path: string): Promise<string> {
    const real = this.store.resolve(path, "realpath");
    if (this.store.get(real) === undefined) throw new FsError("ENOENT", "realpath", path);
    return real;
  }
}
