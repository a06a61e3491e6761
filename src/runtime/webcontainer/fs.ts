// RuntimeFs on WebContainer. `wc.fs` is scoped to the workdir ("All paths are resolved with respect to this working
// directory") and has no stat, exists, appendFile, realpath or symlink calls, and its errors cross a postMessage
// boundary as plain Errors (the `code` property is lost; the message keeps "ENOENT: …"). So:
//
// - Inside the workdir: wc.fs, called with workdir-relative paths. stat = readdir(parent, withFileTypes) + the name,
//   and for a file its size by reading it; appendFile = read + write (not atomic, and O(file size) per call);
//   realpath = normalising plus an existence check (symlinks are not resolved: the API cannot see them, and
//   readdir reports a symlink as neither file nor dir, i.e. type "other"); readdir reports size 0.
// - Outside the workdir (/tmp, where spilled output goes): a `node -e` helper process in the container does the
//   operation with Node's fs (one process per call, slower; real lstat, realpath and appendFile there). Data goes in
//   base64 through its environment, WEBCONTAINER.fsHelperChunkBytes per process; its answer comes back base64
//   between sentinels on its output.
//
// Errors are Errors with an errno `code` (ENOENT, EEXIST, ENOTDIR, EISDIR, ENOTEMPTY, EACCES, …; EIO when unknown).

import { WEBCONTAINER } from "../../limits.ts";
import type { DirEntry, FileStat, RuntimeFs } from "../types.ts";
import type { WcInstance, WcProcess } from "./api.ts";
import { readOutput } from "./process.ts";
import { normalizePath } from "../../lib/paths.ts";

const DESCRIPTIONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "file already exists",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  ENOTEMPTY: "directory not empty",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EINVAL: "invalid argument",
  EBUSY: "resource busy or locked",
  ETIMEDOUT: "timed out",
  EIO: "i/o error",
};

export type ErrnoError = Error & { code: string; path?: string; syscall?: string };

export function errnoError(code: string, syscall: string, path: string, detail?: string): ErrnoError {
  const what = DESCRIPTIONS[code] ?? detail ?? "error";
  const e = new Error(`${code}: ${what}, ${syscall} '${path}'${detail && DESCRIPTIONS[code] ? ` (${detail})` : ""}`) as ErrnoError;
  e.code = code;
  e.path = path;
  e.syscall = syscall;
  return e;
}

/** The errno name of an error from wc.fs: its `code` when it survived, else the first E… word of its message. */
export function errnoOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return code;
  const message = err instanceof Error ? err.message : String(err);
  const m = /\b(E[A-Z][A-Z0-9]{2,})\b/.exec(message);
  return m ? m[1]! : "EIO";
}

function wrap(err: unknown, syscall: string, path: string): ErrnoError {
  const code = errnoOf(err);
  const message = err instanceof Error ? err.message : String(err);
  return errnoError(code, syscall, path, DESCRIPTIONS[code] ? undefined : message);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// ------------------------------------------------------------------------------------------------------------
// The helper: a CommonJS script for `node -e`, in the container. Request in SANDSHELL_FS_REQUEST (base64 JSON),
// answer on stdout as `@@SANDSHELL-FS <base64 JSON> SANDSHELL-FS@@`.

export const HELPER_SCRIPT = [
  "const fs=require('fs');",
  "const out=(o)=>process.stdout.write('\\n@@SANDSHELL-FS '+Buffer.from(JSON.stringify(o)).toString('base64')+' SANDSHELL-FS@@\\n');",
  "const kind=(s)=>s.isSymbolicLink()?'symlink':s.isDirectory()?'dir':s.isFile()?'file':'other';",
  "try{",
  " const a=JSON.parse(Buffer.from(process.env.SANDSHELL_FS_REQUEST||'','base64').toString('utf8'));",
  " let r=null;",
  " switch(a.op){",
  "  case 'read':r=fs.readFileSync(a.path).toString('base64');break;",
  "  case 'write':(a.append?fs.appendFileSync:fs.writeFileSync)(a.path,Buffer.from(a.data,'base64'));break;",
  "  case 'readdir':r=fs.readdirSync(a.path,{withFileTypes:true}).map((d)=>{const t=kind(d);let size=0;",
  "   if(t==='file'){try{size=fs.lstatSync(a.path.replace(/\\/$/,'')+'/'+d.name).size}catch(e){}}return{name:d.name,type:t,size}});break;",
  "  case 'stat':try{const s=fs.lstatSync(a.path);r={type:kind(s),size:s.isFile()?s.size:0}}",
  "   catch(e){if(e.code==='ENOENT'||e.code==='ENOTDIR')r=null;else throw e}break;",
  "  case 'mkdir':fs.mkdirSync(a.path,{recursive:!!a.recursive});break;",
  "  case 'rm':fs.rmSync(a.path,{recursive:!!a.recursive,force:!!a.force});break;",
  "  case 'rename':fs.renameSync(a.from,a.to);break;",
  "  case 'realpath':r=fs.realpathSync(a.path);break;",
  "  default:throw Object.assign(new Error('unknown operation'),{code:'EINVAL'});",
  " }",
  " out({ok:true,r});",
  "}catch(e){out({ok:false,code:String((e&&e.code)||'EIO'),message:String((e&&e.message)||e)})}",
].join("\n");

type HelperRequest =
  | { op: "read" | "readdir" | "stat" | "realpath"; path: string }
  | { op: "write"; path: string; data: string; append: boolean }
  | { op: "mkdir"; path: string; recursive: boolean }
  | { op: "rm"; path: string; recursive: boolean; force: boolean }
  | { op: "rename"; from: string; to: string };

const SENTINEL = /@@SANDSHELL-FS\s+([A-Za-z0-9+/=\s]*?)\s+SANDSHELL-FS@@/;

async function collect(proc: WcProcess, timeoutMs: number, answerMs: number): Promise<{ output: string; code: number | null }> {
  let output = "";
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const reading = readOutput(proc, (chunk) => {
    output += chunk;
    if (SENTINEL.test(output)) answered();
  });
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const after = (ms: number) => new Promise<null>((resolve) => timers.push(setTimeout(() => resolve(null), ms)));
  const code = await Promise.race([proc.exit.catch(() => 1), after(timeoutMs)]);
  if (code === null) {
    try {
      proc.kill();
    } catch {
      // gone
    }
  } else {
    // exit and output are separate messages in no set order: the answer may still be on its way
    await Promise.race([answer, after(answerMs)]);
  }
  for (const t of timers) clearTimeout(t);
  await reading.stop();
  return { output, code };
}

export interface WcFsOptions {
  helperTimeoutMs?: number;
  /** After the helper's exit, how long its answer may still take (default WEBCONTAINER.fsHelperAnswerMs). */
  helperAnswerMs?: number;
  helperChunkBytes?: number;
}

export function createWcFs(wc: WcInstance, options: WcFsOptions = {}): RuntimeFs & { toWorkdirRelative(path: string): string | null } {
  const workdir = normalizePath(wc.workdir);
  const helperTimeoutMs = options.helperTimeoutMs ?? WEBCONTAINER.fsHelperTimeoutMs;
  const helperAnswerMs = options.helperAnswerMs ?? WEBCONTAINER.fsHelperAnswerMs;
  const chunkBytes = options.helperChunkBytes ?? WEBCONTAINER.fsHelperChunkBytes;

  const abs = (path: string): string => normalizePath(path.startsWith("/") ? path : `${workdir}/${path}`);
  /** The workdir-relative path wc.fs takes ("." for the workdir itself), or null outside it. */
  const rel = (absolute: string): string | null => {
    if (absolute === workdir) return ".";
    if (workdir === "/") return absolute.slice(1);
    return absolute.startsWith(`${workdir}/`) ? absolute.slice(workdir.length + 1) : null;
  };

  async function helper(req: HelperRequest, syscall: string, shown: string): Promise<unknown> {
    const env = { SANDSHELL_FS_REQUEST: toBase64(encoder.encode(JSON.stringify(req))) };
    let proc: WcProcess;
    try {
      proc = await wc.spawn("node", ["-e", HELPER_SCRIPT], { env });
    } catch (err) {
      throw errnoError("EIO", syscall, shown, `the file helper process could not start: ${String(err)}`);
    }
    const { output, code } = await collect(proc, helperTimeoutMs, helperAnswerMs);
    if (code === null) throw errnoError("ETIMEDOUT", syscall, shown, `the file helper did not answer within ${helperTimeoutMs} ms`);
    const m = SENTINEL.exec(output);
    if (!m) throw errnoError("EIO", syscall, shown, `the file helper gave no answer (exit code ${code}): ${output.slice(-200)}`);
    let answer: { ok: boolean; r?: unknown; code?: string; message?: string };
    try {
      answer = JSON.parse(decoder.decode(fromBase64(m[1]!.replace(/\s+/g, ""))));
    } catch {
      throw errnoError("EIO", syscall, shown, "the file helper's answer could not be read");
    }
    if (!answer.ok) throw errnoError(answer.code ?? "EIO", syscall, shown, answer.message);
    return answer.r;
  }

  async function helperWrite(path: string, bytes: Uint8Array, append: boolean): Promise<void> {
    let first = true;
    for (let at = 0; first || at < bytes.length; at += chunkBytes) {
      const piece = bytes.subarray(at, at + chunkBytes);
      await helper({ op: "write", path, data: toBase64(piece), append: append || !first }, append ? "appendfile" : "open", path);
      first = false;
    }
  }

  async function wcStat(a: string, r: string): Promise<FileStat | null> {
    if (r === ".") return { type: "dir", size: 0 };
    const slash = a.lastIndexOf("/");
    const parent = a.slice(0, slash) || "/";
    const name = a.slice(slash + 1);
    const parentRel = rel(parent);
    if (parentRel === null) return { type: "dir", size: 0 }; // (only the workdir itself has a parent outside)
    let entries;
    try {
      entries = await wc.fs.readdir(parentRel, { withFileTypes: true });
    } catch (err) {
      const code = errnoOf(err);
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw wrap(err, "stat", a);
    }
    const entry = entries.find((e) => e.name === name);
    if (!entry) return null;
    if (entry.isDirectory()) return { type: "dir", size: 0 };
    if (!entry.isFile()) return { type: "other", size: 0 };
    const size = await wc.fs.readFile(r).then((b) => b.byteLength, () => 0);
    return { type: "file", size };
  }

  return {
    toWorkdirRelative(path: string): string | null {
      return rel(abs(path));
    },

    async readFile(path) {
      const a = abs(path);
      const r = rel(a);
      if (r === null) return fromBase64(String(await helper({ op: "read", path: a }, "open", a)));
      try {
        const data = await wc.fs.readFile(r);
        return data instanceof Uint8Array ? data : new Uint8Array(data as ArrayLike<number>);
      } catch (err) {
        throw wrap(err, "open", a);
      }
    },

    async writeFile(path, data) {
      const a = abs(path);
      const r = rel(a);
      if (r === null) return helperWrite(a, typeof data === "string" ? encoder.encode(data) : data, false);
      try {
        await wc.fs.writeFile(r, data);
      } catch (err) {
        throw wrap(err, "open", a);
      }
    },

    async appendFile(path, data) {
      const a = abs(path);
      const r = rel(a);
      const added = encoder.encode(data);
      if (r === null) return helperWrite(a, added, true);
      let before: Uint8Array;
      try {
        before = await wc.fs.readFile(r);
      } catch (err) {
        if (errnoOf(err) !== "ENOENT") throw wrap(err, "open", a);
        before = new Uint8Array(0);
      }
      const joined = new Uint8Array(before.byteLength + added.byteLength);
      joined.set(before, 0);
      joined.set(added, before.byteLength);
      try {
        await wc.fs.writeFile(r, joined);
      } catch (err) {
        throw wrap(err, "open", a);
      }
    },

    async readdir(path): Promise<DirEntry[]> {
      const a = abs(path);
      const r = rel(a);
      if (r === null) return (await helper({ op: "readdir", path: a }, "scandir", a)) as DirEntry[];
      try {
        const entries = await wc.fs.readdir(r, { withFileTypes: true });
        return entries.map((e) => ({ name: e.name, type: e.isDirectory() ? "dir" : e.isFile() ? "file" : "other", size: 0 }));
      } catch (err) {
        throw wrap(err, "scandir", a);
      }
    },

    async stat(path) {
      const a = abs(path);
      const r = rel(a);
      if (r === null) return (await helper({ op: "stat", path: a }, "lstat", a)) as FileStat | null;
      return wcStat(a, r);
    },

    async mkdir(path, opts) {
      const a = abs(path);
      const r = rel(a);
      const recursive = opts?.recursive ?? false;
      if (r === null) {
        await helper({ op: "mkdir", path: a, recursive }, "mkdir", a);
        return;
      }
      if (r === ".") {
        if (recursive) return;
        throw errnoError("EEXIST", "mkdir", a);
      }
      try {
        if (recursive) await wc.fs.mkdir(r, { recursive: true });
        else await wc.fs.mkdir(r);
      } catch (err) {
        throw wrap(err, "mkdir", a);
      }
    },

    async rm(path, opts) {
      const a = abs(path);
      const r = rel(a);
      const recursive = opts?.recursive ?? false;
      const force = opts?.force ?? false;
      if (r === null) {
        await helper({ op: "rm", path: a, recursive, force }, "rm", a);
        return;
      }
      try {
        await wc.fs.rm(r, { recursive, force });
      } catch (err) {
        const code = errnoOf(err);
        if (force && code === "ENOENT") return;
        throw wrap(err, "rm", a);
      }
    },

    async rename(from, to) {
      const af = abs(from);
      const at = abs(to);
      const rf = rel(af);
      const rt = rel(at);
      if (rf === null || rt === null) {
        await helper({ op: "rename", from: af, to: at }, "rename", af);
        return;
      }
      try {
        await wc.fs.rename(rf, rt);
      } catch (err) {
        throw wrap(err, "rename", af);
      }
    },

    async realpath(path) {
      const a = abs(path);
      const r = rel(a);
      if (r === null) return String(await helper({ op: "realpath", path: a }, "realpath", a));
      if ((await wcStat(a, r)) === null) throw errnoError("ENOENT", "realpath", a);
      return a;
    },
  };
}
