// The node runtime's file system, without check-then-open races.
//
// The file tools check a path (its real path must lie inside the workspace) and then open it. A process of the agent
// can swap a folder on that path for a symlink in between, and a plain open would follow it out of the workspace
// (write_file landed outside, read_file returned /etc/hostname). So every operation here takes the path as the real
// path it was checked as, and works on its last component only inside a folder it has verified is exactly the
// folder that path names, never by the path again. Two ways to verify, one for each kind of host:
//
//   "proc-fd" (Linux): opens the parent folder with O_DIRECTORY | O_NOFOLLOW and checks that /proc/self/fd/N names
//      exactly that folder (a symlink anywhere on the way would make it name another one: ELOOP); then works through
//      /proc/self/fd/N/NAME, i.e. relative to the verified descriptor, with O_NOFOLLOW where it opens a file.
//   "cwd-helper" (no /proc/self/fd: macOS): a helper process enters the folder and asks the kernel where it is
//      (getcwd), then works relative to its working directory (fs-helper.ts says why a process).
//
// Either way a whole file is written through a temporary file in the verified folder, renamed over the name. A symlink
// on a path given here is therefore refused (ELOOP), not followed: callers resolve paths first (runtime.fs.realpath),
// which is what the file tools do.

import { randomBytes } from "node:crypto";
import { constants, existsSync, type Dirent, type Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import { posix } from "node:path";
import { helperCall } from "./fs-helper.ts";
import type { DirEntry, FileStat, RuntimeFs } from "../types.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_APPEND, O_NONBLOCK } = constants;

/** How a folder is verified before a name in it is touched (see the top of this file). */
export type NodeFsAccess = "proc-fd" | "cwd-helper";

/** Linux: paths relative to an open folder are spelled /proc/self/fd/N/NAME. Elsewhere: the helper process. */
export const NODE_FS_ACCESS: NodeFsAccess = process.platform === "linux" && existsSync("/proc/self/fd") ? "proc-fd" : "cwd-helper";

function errnoError(err: unknown): Error {
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string") return err;
  const e = new Error(String(err)) as NodeJS.ErrnoException;
  e.code = "EIO";
  return e;
}

function coded(code: string, message: string): Error {
  const e = new Error(`${code}: ${message}`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

/** Runs a node:fs call, turning its error into the runtime's errno error. */
async function errno<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw errnoError(err);
  }
}

function typeOf(s: Stats | Dirent): DirEntry["type"] {
  if (s.isSymbolicLink()) return "symlink";
  if (s.isDirectory()) return "dir";
  if (s.isFile()) return "file";
  return "other";
}

/** `/a/b/../c/` → { dir: "/a/c"'s parent, name }; the root has name "". */
function split(path: string): { dir: string; name: string; path: string } {
  if (!path.startsWith("/")) throw coded("EINVAL", `not an absolute path: ${path}`);
  const norm = posix.normalize(path).replace(/\/+$/, "") || "/";
  if (norm === "/") return { dir: "/", name: "", path: "/" };
  const i = norm.lastIndexOf("/");
  return { dir: i === 0 ? "/" : norm.slice(0, i), name: norm.slice(i + 1), path: norm };
}

/** Opens a folder without following a symlink and checks that what was opened is exactly `dir`. */
async function openDir(dir: string): Promise<fsp.FileHandle> {
  const handle = await fsp.open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  let real: string;
  try {
    real = await fsp.readlink(`/proc/self/fd/${handle.fd}`);
  } catch (err) {
    await handle.close();
    throw err;
  }
  if (real !== dir) {
    await handle.close();
    throw coded("ELOOP", `${dir} is not a plain folder path (it leads to ${real}, through a symlink); nothing was done`);
  }
  return handle;
}

/** Calls `fn` with a spelling of `path` relative to its verified parent folder. */
async function inDir<T>(path: string, fn: (at: string, parts: { dir: string; name: string; path: string }) => Promise<T>): Promise<T> {
  const parts = split(path);
  if (parts.name === "") {
    const h = await openDir("/");
    try {
      return await fn(`/proc/self/fd/${h.fd}`, parts);
    } finally {
      await h.close();
    }
  }
  const h = await openDir(parts.dir);
  try {
    return await fn(`/proc/self/fd/${h.fd}/${parts.name}`, parts);
  } finally {
    await h.close();
  }
}

/** A file past a ReadLimit's maxBytes: EFBIG, with its size (as the opened file said, or at least what was read). */
export function tooLarge(path: string, size: number, max: number): Error {
  const e = coded("EFBIG", `${path} is ${size} bytes, more than the ${max} taken`) as NodeJS.ErrnoException & { size: number };
  e.size = size;
  return e;
}

/** Reads an opened file to its end, or to `max` + 1 bytes, whichever comes first; `size` is its size when opened. */
async function readAtMost(h: fsp.FileHandle, size: number, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const want = Math.min(Math.max(size - total, 64 * 1024), max + 1 - total);
    if (want <= 0) break;
    const buf = Buffer.allocUnsafe(want);
    const { bytesRead } = await h.read(buf, 0, want, null);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

async function readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
  return inDir(path, async (at) => {
    // O_NONBLOCK: a FIFO swapped in must not hang the call; it is refused below as not a regular file.
    const h = await fsp.open(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      // The size of the file that was opened, not of whatever the name held when a caller looked before.
      const st = await h.stat();
      if (st.isDirectory()) throw coded("EISDIR", `${path} is a folder`);
      if (!st.isFile()) throw coded("EINVAL", `${path} is not a regular file`);
      if (maxBytes !== undefined && st.size > maxBytes) throw tooLarge(path, st.size, maxBytes);
      const buf = maxBytes === undefined ? await h.readFile() : await readAtMost(h, st.size, maxBytes);
      if (maxBytes !== undefined && buf.length > maxBytes) throw tooLarge(path, buf.length, maxBytes); // it grew meanwhile
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } finally {
      await h.close();
    }
  });
}

/** Writes the whole file through a temporary file in the same (verified) folder, renamed over the name. */
async function writeFile(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
  await inDir(path, async (at, parts) => {
    if (parts.name === "") throw coded("EISDIR", "/ is a folder");
    const old = await fsp.lstat(at).catch(() => null);
    if (old?.isDirectory()) throw coded("EISDIR", `${path} is a folder`);
    const temp = `${at.slice(0, at.length - parts.name.length)}.${parts.name.slice(0, 100)}.${randomBytes(6).toString("hex")}.sandshell-tmp`;
    const h = await fsp.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666);
    try {
      try {
        await h.writeFile(data);
        if (mode !== undefined) await h.chmod(mode);
        else if (old?.isFile()) await h.chmod(old.mode & 0o7777);
      } finally {
        await h.close();
      }
      await fsp.rename(temp, at);
    } catch (err) {
      await fsp.unlink(temp).catch(() => undefined);
      throw err;
    }
  });
}

async function appendFile(path: string, data: string): Promise<void> {
  await inDir(path, async (at) => {
    const h = await fsp.open(at, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
    try {
      await h.writeFile(data);
    } finally {
      await h.close();
    }
  });
}

async function readdir(path: string, maxEntries?: number): Promise<DirEntry[]> {
  const { path: dir } = split(path);
  const list = async (at: string): Promise<DirEntry[]> => {
    let entries: Dirent[];
    if (maxEntries === undefined) entries = await fsp.readdir(at, { withFileTypes: true });
    else {
      // Streamed, and no further than one entry past the limit: a folder of 200,000 names costs what 500 do.
      entries = [];
      for await (const entry of await fsp.opendir(at, { bufferSize: 64 })) {
        entries.push(entry);
        if (entries.length > maxEntries) break; // leaving the loop closes the folder
      }
    }
    return Promise.all(
      entries.map(async (entry): Promise<DirEntry> => {
        const type = typeOf(entry);
        let size = 0;
        if (type === "file") size = await fsp.lstat(`${at}/${entry.name}`).then((s) => s.size, () => 0);
        return { name: entry.name, type, size };
      }),
    );
  };
  const h = await openDir(dir);
  try {
    return await list(`/proc/self/fd/${h.fd}`);
  } finally {
    await h.close();
  }
}

async function stat(path: string): Promise<FileStat | null> {
  try {
    const s = await inDir(path, (at) => fsp.lstat(at));
    const type = typeOf(s);
    return { type, size: type === "file" ? s.size : 0 };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw errnoError(err);
  }
}

async function mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void> {
  const { path: target } = split(path);
  if (options?.recursive !== true) {
    await inDir(target, (at) => fsp.mkdir(at, options?.mode !== undefined ? { mode: options.mode } : {}));
    return;
  }
  // One component at a time, each made in (and then opened as) a verified folder.
  let cur = "";
  for (const part of target.split("/").filter((p) => p !== "")) {
    cur = `${cur}/${part}`;
    try {
      await inDir(cur, (at) => fsp.mkdir(at, options?.mode !== undefined ? { mode: options.mode } : {}));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const s = await inDir(cur, (at) => fsp.lstat(at));
      if (!s.isDirectory()) throw coded(s.isSymbolicLink() ? "ELOOP" : "ENOTDIR", `${cur} is not a folder`);
    }
  }
}

async function rename(from: string, to: string): Promise<void> {
  await inDir(from, (fromAt) => inDir(to, (toAt) => fsp.rename(fromAt, toAt)));
}

/** "proc-fd": descriptor-relative through /proc/self/fd (Linux). */
const procFs: RuntimeFs = {
  readFile: (path, options) => errno(() => readFile(path, options?.maxBytes)),
  writeFile: (path, data, options) => errno(() => writeFile(path, data, options?.mode)),
  appendFile: (path, data) => errno(() => appendFile(path, data)),
  readdir: (path, options) => errno(() => readdir(path, options?.maxEntries)),
  stat,
  mkdir: (path, options) => errno(() => mkdir(path, options)),
  rm: (path, options) =>
    errno(async () => {
      try {
        await inDir(path, (at) => fsp.rm(at, { recursive: options?.recursive ?? false, force: options?.force ?? false }));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (options?.force === true && (code === "ENOENT" || code === "ENOTDIR")) return; // the folder is gone too
        throw err;
      }
    }),
  rename: (from, to) => errno(() => rename(from, to)),
  realpath: (path) => errno(() => fsp.realpath(path)),
};

/** "cwd-helper": the same calls, made by the helper process inside the folder it verified (fs-helper.ts). */
const helperFs: RuntimeFs = {
  readFile: (path, options) =>
    errno(async () => {
      const bytes = await helperCall<Uint8Array>("read", { ...split(path), maxBytes: options?.maxBytes });
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }),
  writeFile: (path, data, options) => errno(() => helperCall<void>("write", { ...split(path), data, mode: options?.mode })),
  appendFile: (path, data) => errno(() => helperCall<void>("append", { ...split(path), data })),
  readdir: (path, options) => errno(() => helperCall<DirEntry[]>("list", { path: split(path).path, maxEntries: options?.maxEntries })),
  async stat(path) {
    try {
      return await helperCall<FileStat>("lstat", split(path));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw errnoError(err);
    }
  },
  mkdir: (path, options) =>
    errno(async () => {
      const { path: target } = split(path);
      if (options?.recursive !== true) return helperCall<void>("mkdir", { ...split(target), mode: options?.mode });
      // One component at a time, each made in (and then entered as) a verified folder.
      let cur = "";
      for (const part of target.split("/").filter((p) => p !== "")) {
        cur = `${cur}/${part}`;
        try {
          await helperCall<void>("mkdir", { ...split(cur), mode: options?.mode });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
          const s = await helperCall<FileStat>("lstat", split(cur));
          if (s.type !== "dir") throw coded(s.type === "symlink" ? "ELOOP" : "ENOTDIR", `${cur} is not a folder`);
        }
      }
    }),
  rm: (path, options) =>
    errno(async () => {
      try {
        await helperCall<void>("rm", { ...split(path), recursive: options?.recursive ?? false, force: options?.force ?? false });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (options?.force === true && (code === "ENOENT" || code === "ENOTDIR")) return;
        throw err;
      }
    }),
  rename: (from, to) =>
    errno(() => {
      const a = split(from);
      const b = split(to);
      return helperCall<void>("rename", { ...a, toDir: b.dir, toName: b.name });
    }),
  realpath: (path) => errno(() => fsp.realpath(path)),
};

/** A node RuntimeFs with the given way of verifying folders (default: what this host offers, NODE_FS_ACCESS). */
export function createNodeFs(access: NodeFsAccess = NODE_FS_ACCESS): RuntimeFs {
  return access === "proc-fd" ? procFs : helperFs;
}

/** The node runtime's RuntimeFs (see the top of this file). */
export const nodeFs: RuntimeFs = createNodeFs();
