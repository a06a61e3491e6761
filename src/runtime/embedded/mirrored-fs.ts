// The worker's file system: just-bash's InMemoryFs, with every change reported (as FsOp) to the page the moment it
// is made, so that the page's mirror never lags behind more than one message. Changes the page sends are applied here
// without being reported back. It also hosts the devices of config.ts DEVICES: output appended to the output device
// goes to the terminal, and reading a terminal device waits for what is typed.

import { InMemoryFs } from "just-bash/browser";
import { DEVICES, UNMIRRORED_PREFIXES } from "./config.ts";
import type { FsEntry, FsOp } from "./protocol.ts";
import { isInside as isUnder, normalizePath } from "../../lib/paths.ts";

type RawEntry =
  | { type: "file"; content: Uint8Array | string; mode: number; mtime: Date }
  | { type: "file"; lazy: () => unknown; mode: number; mtime: Date }
  | { type: "directory"; mode: number; mtime: Date }
  | { type: "symlink"; target: string; mode: number; mtime: Date };

/** InMemoryFs's private members this class relies on (just-bash is pinned; `selfCheck` fails loudly if they move). */
interface InMemoryInternals {
  data: Map<string, RawEntry>;
  setEntry(path: string, entry: RawEntry): void;
  deleteEntry(path: string): void;
  ensureParentDirs(path: string): void;
}

/**
 * How a running command reads the terminal: to end of input (C-d), one line, or a count of lines or characters
 * (characters end early at Enter, as `read -n` does). Silent reads are not echoed.
 */
export type TtyKind = "eof" | "line" | "line-silent" | { lines: number } | { chars: number; silent: boolean };

export interface DeviceHooks {
  /** Output of a statement: text (already decoded). */
  output(text: string): void;
  /** Input from the terminal, as text. */
  readTty(kind: TtyKind): Promise<string>;
}

type Enc = string | { encoding?: string | null } | null | undefined;

function encodingOf(options: Enc): string {
  if (typeof options === "string") return options;
  return options?.encoding ?? "utf8";
}

function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

function bytesToLatin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
}

function ttyKind(path: string): TtyKind | null {
  const p = normalizePath(path);
  if (p === DEVICES.tty) return "eof";
  if (p === DEVICES.ttyLine) return "line";
  if (p === DEVICES.ttyLineSilent) return "line-silent";
  if (p.startsWith(DEVICES.ttyCounted)) {
    const m = /^(lines|chars|chars-silent)-([1-9][0-9]{0,8})$/.exec(p.slice(DEVICES.ttyCounted.length));
    if (m === null) return null;
    const n = Number(m[2]);
    return m[1] === "lines" ? { lines: n } : { chars: n, silent: m[1] === "chars-silent" };
  }
  return null;
}

function mirrored(path: string): boolean {
  return !UNMIRRORED_PREFIXES.some((prefix) => path.startsWith(prefix));
}

export class MirroredFs extends InMemoryFs {
  /** Nesting of public calls (mv calls mkdir, rm calls rm…): only the outermost call reports. */
  private depth = 0;
  /** Applying the page's changes: nothing is reported. */
  private muted = 0;
  private readonly decoder = new TextDecoder("utf-8");
  private report: (ops: FsOp[]) => void = () => undefined;
  private hooks: DeviceHooks | null = null;
  /** Rewrites the text of the next read of a file that matches (a script's, interpreter.ts), then disarms. */
  private nextRead: { matches: (path: string) => boolean; rewrite: (text: string) => string } | null = null;

  constructor(options?: { maxTotalBytes?: number }) {
    super(undefined, options);
    const internals = this as unknown as Partial<InMemoryInternals>;
    if (!(internals.data instanceof Map) || typeof internals.setEntry !== "function" || typeof internals.deleteEntry !== "function" || typeof internals.ensureParentDirs !== "function") {
      throw new Error("sandshell: just-bash's InMemoryFs changed shape; the embedded runtime needs just-bash 3.4.2");
    }
  }

  private get internals(): InMemoryInternals {
    return this as unknown as InMemoryInternals;
  }

  /** Starts reporting changes (after the layout and the page's snapshot are in). */
  attach(report: (ops: FsOp[]) => void, hooks: DeviceHooks): void {
    this.report = report;
    this.hooks = hooks;
  }

  // -------------------------------------------------------------------------------------------- reporting

  private async track<T>(run: () => Promise<T>, after: () => FsOp[] | null): Promise<T> {
    this.depth++;
    let result: T;
    try {
      result = await run();
    } finally {
      this.depth--;
    }
    if (this.depth === 0 && this.muted === 0) {
      const ops = after();
      if (ops !== null && ops.length > 0) this.report(ops);
    }
    return result;
  }

  private exportEntry(path: string, e: RawEntry): FsEntry | null {
    const mtime = e.mtime instanceof Date ? e.mtime.getTime() : Date.now();
    if (e.type === "directory") return { path, kind: "dir", mode: e.mode, mtime };
    if (e.type === "symlink") return { path, kind: "symlink", mode: e.mode, mtime, target: e.target };
    if ("content" in e) {
      const data = typeof e.content === "string" ? new TextEncoder().encode(e.content) : e.content.slice();
      return { path, kind: "file", mode: e.mode, mtime, data };
    }
    return null; // a lazy file (only /proc/self/status): never mirrored
  }

  private subtreeOf(path: string): FsEntry[] {
    const out: FsEntry[] = [];
    for (const [p, e] of this.internals.data) {
      if (!isUnder(p, path) || !mirrored(p)) continue;
      const x = this.exportEntry(p, e);
      if (x !== null) out.push(x);
    }
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  private putOf(path: string): FsOp[] | null {
    if (!mirrored(path)) return null;
    const entries = this.subtreeOf(path);
    return entries.length > 0 ? [{ op: "put", entries }] : null;
  }

  // -------------------------------------------------------------------------------------------- devices

  private deviceWrite(path: string, content: Uint8Array | string, options: Enc): boolean {
    const p = normalizePath(path);
    if (p !== DEVICES.out && p !== DEVICES.tty) return false; // writing to /dev/tty is writing to the terminal
    if (this.hooks === null) return true;
    let text: string;
    if (typeof content !== "string") text = this.decoder.decode(content, { stream: true });
    else {
      const enc = encodingOf(options);
      text = enc === "binary" || enc === "latin1" ? this.decoder.decode(latin1ToBytes(content), { stream: true }) : content;
    }
    if (text !== "") this.hooks.output(text);
    return true;
  }

  private async ttyRead(path: string): Promise<string | null> {
    const kind = ttyKind(path);
    if (kind === null) return null;
    return this.hooks === null ? "" : this.hooks.readTty(kind);
  }

  /** The next successful read as text of a file whose path `matches` gets `rewrite(text)` instead (null: none). */
  rewriteNextRead(matches: ((path: string) => boolean) | null, rewrite: ((text: string) => string) | null): void {
    this.nextRead = matches !== null && rewrite !== null ? { matches, rewrite } : null;
  }

  override async readFile(path: string, options?: Parameters<InMemoryFs["readFile"]>[1]): Promise<string> {
    const tty = await this.ttyRead(path);
    if (tty !== null) return tty;
    const text = await super.readFile(path, options);
    const next = this.nextRead;
    if (next === null || !next.matches(normalizePath(path))) return text;
    this.nextRead = null;
    return next.rewrite(text);
  }

  override async readFileBytes(path: string): Promise<Awaited<ReturnType<InMemoryFs["readFileBytes"]>>> {
    const tty = await this.ttyRead(path);
    if (tty !== null) return bytesToLatin1(new TextEncoder().encode(tty)) as unknown as Awaited<ReturnType<InMemoryFs["readFileBytes"]>>;
    return super.readFileBytes(path);
  }

  override async readFileBuffer(path: string): Promise<Uint8Array> {
    const tty = await this.ttyRead(path);
    if (tty !== null) return new TextEncoder().encode(tty);
    return super.readFileBuffer(path);
  }

  override async exists(path: string): Promise<boolean> {
    if (ttyKind(path) !== null) return true;
    return super.exists(path);
  }

  override async stat(path: string): Promise<Awaited<ReturnType<InMemoryFs["stat"]>>> {
    if (ttyKind(path) !== null) return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: new Date() };
    return super.stat(path);
  }

  // -------------------------------------------------------------------------------------------- changes

  override async writeFile(path: string, content: Uint8Array | string, options?: Parameters<InMemoryFs["writeFile"]>[2]): Promise<void> {
    if (this.deviceWrite(path, content, options as Enc)) return;
    const p = normalizePath(path);
    await this.track(() => super.writeFile(path, content, options), () => this.putOf(p));
  }

  override async appendFile(path: string, content: Uint8Array | string, options?: Parameters<InMemoryFs["appendFile"]>[2]): Promise<void> {
    if (this.deviceWrite(path, content, options as Enc)) return;
    const p = normalizePath(path);
    const before = this.internals.data.get(p);
    const prevLen = before?.type === "file" && "content" in before && before.content instanceof Uint8Array ? before.content.length : null;
    await this.track(
      () => super.appendFile(path, content, options),
      () => {
        if (!mirrored(p)) return null;
        const after = this.internals.data.get(p);
        if (after?.type !== "file" || !("content" in after) || !(after.content instanceof Uint8Array)) return this.putOf(p);
        if (prevLen === null) return this.putOf(p);
        const data = after.content.slice(prevLen);
        if (data.length === 0) return null;
        return [{ op: "append", path: p, data, mode: after.mode, mtime: after.mtime.getTime() }];
      },
    );
  }

  override async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    const p = normalizePath(path);
    const existed = this.internals.data.has(p);
    await this.track(
      () => super.mkdir(path, options),
      () => (existed || !mirrored(p) ? null : [{ op: "mkdirs", path: p, mtime: Date.now() }]),
    );
  }

  override async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    const p = normalizePath(path);
    const existed = this.internals.data.has(p);
    await this.track(
      () => super.rm(path, options),
      () => (existed && mirrored(p) ? [{ op: "delete", path: p }] : null),
    );
  }

  override async cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void> {
    const d = normalizePath(dest);
    await this.track(() => super.cp(src, dest, options), () => this.putOf(d));
  }

  override async mv(src: string, dest: string): Promise<void> {
    const s = normalizePath(src);
    const d = normalizePath(dest);
    await this.track(
      () => super.mv(src, dest),
      () => {
        if (s === d) return null;
        const ops: FsOp[] = [];
        if (mirrored(s)) ops.push({ op: "delete", path: s });
        ops.push(...(this.putOf(d) ?? []));
        return ops;
      },
    );
  }

  override async chmod(path: string, mode: number): Promise<void> {
    const p = normalizePath(path);
    await this.track(() => super.chmod(path, mode), () => (mirrored(p) ? [{ op: "chmod", path: p, mode }] : null));
  }

  override async symlink(target: string, linkPath: string): Promise<void> {
    const p = normalizePath(linkPath);
    await this.track(() => super.symlink(target, linkPath), () => this.putOf(p));
  }

  override async link(existingPath: string, newPath: string): Promise<void> {
    const p = normalizePath(newPath);
    await this.track(() => super.link(existingPath, newPath), () => this.putOf(p));
  }

  override async utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    let real: string | null = null;
    await this.track(
      async () => {
        await super.utimes(path, atime, mtime);
        real = await super.realpath(path);
      },
      () => (real !== null && mirrored(real) ? [{ op: "utimes", path: real, mtime: mtime.getTime() }] : null),
    );
  }

  // -------------------------------------------------------------------------------------------- the page's changes

  /** Applies changes from the page (or a snapshot) without reporting them. */
  applyOps(ops: readonly FsOp[]): void {
    this.muted++;
    try {
      for (const op of ops) this.applyOp(op);
    } finally {
      this.muted--;
    }
  }

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
      this.writeFileSync(path, e.data, undefined, { mode: e.mode, mtime });
      return;
    }
    this.internals.ensureParentDirs(path);
    if (e.kind === "dir") this.internals.setEntry(path, { type: "directory", mode: e.mode, mtime });
    else this.internals.setEntry(path, { type: "symlink", target: e.target, mode: e.mode, mtime });
  }

  private applyOp(op: FsOp): void {
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
          this.writeFileSync(p, joined, undefined, { mode: cur.mode, mtime: new Date(op.mtime) });
        } else {
          this.writeFileSync(p, op.data, undefined, { mode: op.mode, mtime: new Date(op.mtime) });
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
