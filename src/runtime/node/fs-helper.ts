// The node runtime's file system where /proc/self/fd does not exist (macOS): one helper process per host process
// that works in a folder only after entering it and asking the kernel where it is.
//
// Node has no openat(), so without /proc/self/fd a path cannot be opened relative to a folder descriptor, and any
// check made by path (lstat, realpath) before or after an open can be raced: a process of the agent swaps a folder on
// the path for a symlink in between, as often as it likes. What Node does have is a working directory, and getcwd()
// (process.cwd()), which the kernel answers from the folder the process is in, not from a path. So the helper, for
// each call: chdir(dir) (which may follow a symlink), then process.cwd() must be exactly `dir`, the real path the
// caller checked; only then does it act on the one name inside, relative to that folder, never following a symlink
// (O_NOFOLLOW for opens; a whole-file write goes through a new temporary file renamed over the name in the same
// folder). A folder entered is the folder acted in, whatever is swapped afterwards: the same guarantee a folder
// descriptor gives. The working directory is per process, which is why this is a child process and not the host's
// own: a chdir in the host would move every other caller's relative paths. Calls are handled one at a time, with
// synchronous file calls, so no two share a working directory.

import { spawn, type ChildProcess } from "node:child_process";

/** The helper's code (CommonJS, run with `node -e`). Its answers: { id, ok } or { id, error: { code, message } }. */
const HELPER = String.raw`"use strict";
const fs = require("node:fs");
const { randomBytes } = require("node:crypto");
const C = fs.constants;
function coded(code, message) { const e = new Error(code + ": " + message); e.code = code; return e; }
function enter(dir) {
  process.chdir(dir);
  const here = process.cwd();
  if (here !== dir) throw coded("ELOOP", dir + " is not a plain folder path (it leads to " + here + ", through a symlink); nothing was done");
}
function tooLarge(path, size, max) { const e = coded("EFBIG", path + " is " + size + " bytes, more than the " + max + " taken"); e.size = size; return e; }
function readAtMost(fd, size, max) {
  const chunks = [];
  let total = 0;
  for (;;) {
    const want = Math.min(Math.max(size - total, 65536), max + 1 - total);
    if (want <= 0) break;
    const buf = Buffer.allocUnsafe(want);
    const n = fs.readSync(fd, buf, 0, want, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}
function typeOf(s) { return s.isSymbolicLink() ? "symlink" : s.isDirectory() ? "dir" : s.isFile() ? "file" : "other"; }
const ops = {
  read({ dir, name, path, maxBytes }) {
    enter(dir);
    const fd = fs.openSync(name === "" ? "." : name, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
    try {
      const st = fs.fstatSync(fd);
      if (st.isDirectory()) throw coded("EISDIR", path + " is a folder");
      if (!st.isFile()) throw coded("EINVAL", path + " is not a regular file");
      if (maxBytes === undefined) return fs.readFileSync(fd);
      if (st.size > maxBytes) throw tooLarge(path, st.size, maxBytes);
      const buf = readAtMost(fd, st.size, maxBytes);
      if (buf.length > maxBytes) throw tooLarge(path, buf.length, maxBytes);
      return buf;
    } finally { fs.closeSync(fd); }
  },
  write({ dir, name, path, data, mode }) {
    if (name === "") throw coded("EISDIR", "/ is a folder");
    enter(dir);
    let old = null;
    try { old = fs.lstatSync(name); } catch {}
    if (old !== null && old.isDirectory()) throw coded("EISDIR", path + " is a folder");
    const temp = "." + name.slice(0, 100) + "." + randomBytes(6).toString("hex") + ".sandshell-tmp";
    const fd = fs.openSync(temp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode === undefined ? 0o666 : mode);
    try {
      try {
        fs.writeFileSync(fd, data);
        if (mode !== undefined) fs.fchmodSync(fd, mode);
        else if (old !== null && old.isFile()) fs.fchmodSync(fd, old.mode & 0o7777);
      } finally { fs.closeSync(fd); }
      fs.renameSync(temp, name);
    } catch (e) {
      try { fs.unlinkSync(temp); } catch {}
      throw e;
    }
  },
  append({ dir, name, data }) {
    enter(dir);
    const fd = fs.openSync(name, C.O_WRONLY | C.O_APPEND | C.O_CREAT | C.O_NOFOLLOW, 0o600);
    try { fs.writeFileSync(fd, data); } finally { fs.closeSync(fd); }
  },
  list({ path, maxEntries }) {
    enter(path);
    let entries;
    if (maxEntries === undefined) entries = fs.readdirSync(".", { withFileTypes: true });
    else {
      entries = [];
      const d = fs.opendirSync(".", { bufferSize: 64 });
      try {
        for (let e = d.readSync(); e !== null; e = d.readSync()) {
          entries.push(e);
          if (entries.length > maxEntries) break;
        }
      } finally { d.closeSync(); }
    }
    return entries.map((e) => {
      const type = typeOf(e);
      let size = 0;
      if (type === "file") { try { size = fs.lstatSync(e.name).size; } catch {} }
      return { name: e.name, type, size };
    });
  },
  lstat({ dir, name }) {
    enter(dir);
    const s = fs.lstatSync(name === "" ? "." : name);
    return { type: typeOf(s), size: s.isFile() ? s.size : 0 };
  },
  mkdir({ dir, name, mode }) {
    if (name === "") throw coded("EEXIST", "/ exists");
    enter(dir);
    fs.mkdirSync(name, mode === undefined ? {} : { mode });
  },
  rm({ dir, name, recursive, force }) {
    if (name === "") throw coded("EPERM", "/ is not removed");
    enter(dir);
    fs.rmSync(name, { recursive, force });
  },
  rename({ dir, name, toDir, toName }) {
    if (name === "" || toName === "") throw coded("EBUSY", "/ is not renamed");
    if (dir !== toDir) throw coded("EXDEV", "renames move within one folder here");
    enter(dir);
    fs.renameSync(name, toName);
  },
};
process.on("message", (m) => {
  let reply;
  try { reply = { id: m.id, ok: ops[m.op](m) }; }
  catch (e) { reply = { id: m.id, error: { code: typeof e.code === "string" ? e.code : "EIO", message: String(e.message), size: e.size } }; }
  try { process.chdir("/"); } catch {}
  process.send(reply);
});
process.on("disconnect", () => process.exit(0));
`;

type Reply = { id: number; ok?: unknown; error?: { code: string; message: string; size?: number } };

let child: ChildProcess | null = null;
let next = 0;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function coded(code: string, message: string): Error {
  const e = new Error(message.startsWith(`${code}:`) ? message : `${code}: ${message}`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

/** Holds the host process open only while a call is pending. */
function hold(c: ChildProcess, on: boolean): void {
  const channel = c.channel as { ref?: () => void; unref?: () => void } | null | undefined;
  if (on) {
    c.ref();
    channel?.ref?.();
  } else {
    c.unref();
    channel?.unref?.();
  }
}

function start(): ChildProcess {
  const c = spawn(process.execPath, ["-e", HELPER], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    serialization: "advanced",
    // Nothing of the host's: no NODE_OPTIONS loaders; ELECTRON_RUN_AS_NODE makes an Electron binary act as node.
    env: { ELECTRON_RUN_AS_NODE: "1" },
    cwd: "/",
  });
  c.on("message", (m: Reply) => {
    const p = pending.get(m.id);
    if (p === undefined) return;
    pending.delete(m.id);
    if (pending.size === 0) hold(c, false);
    if (m.error !== undefined) p.reject(Object.assign(coded(m.error.code, m.error.message), m.error.size !== undefined ? { size: m.error.size } : {}));
    else p.resolve(m.ok);
  });
  const gone = (why: string): void => {
    if (child === c) child = null;
    for (const p of pending.values()) p.reject(coded("EIO", `the file helper process ${why}`));
    pending.clear();
  };
  c.on("exit", (code, signal) => gone(`ended (${signal ?? code})`));
  c.on("error", (err) => gone(`failed: ${err.message}`));
  hold(c, false);
  return c;
}

/** Runs one call in the helper (see the top of this file). `dir` is a real path; `name` one component ("" for /). */
export function helperCall<T>(op: string, args: Record<string, unknown>): Promise<T> {
  const c = (child ??= start());
  const id = ++next;
  return new Promise<T>((resolve, reject) => {
    if (pending.size === 0) hold(c, true);
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    c.send({ id, op, ...args }, (err) => {
      if (err === null || !pending.has(id)) return;
      pending.delete(id);
      if (pending.size === 0) hold(c, false);
      reject(coded("EIO", `the file helper process could not be reached: ${err.message}`));
    });
  });
}
