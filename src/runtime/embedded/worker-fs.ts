// The worker's file system: just-bash's InMemoryFs, with every change reported (as FsOp) to the page the moment it
// is made, so that the page's mirror never lags behind more than one message. Changes the page sends are applied here
// without being reported back. It also hosts the devices of config.ts DEVICES: output appended to the output device
// goes to the terminal, and reading a terminal device waits for what is typed.
//
// Larger files arrive as stubs (protocol.ts FsEntry "stub"): InMemoryFs lazy entries that know their size (so `ls -l`
// and `stat` need no bytes) and ask the page for the bytes when a command reads them. A stub copied or moved here is
// reported as a stub `from` the page's file that holds its bytes. Bounds: EMBEDDED.limits.maxFileSystemBytes (the
// bytes this worker holds) and EMBEDDED.maxFiles; past one a write fails with ENOSPC and says what to do instead.

import { InMemoryFs } from "just-bash/browser";
import { EMBEDDED, UNMIRRORED_PREFIXES } from "./config.ts";
import { bytesToLatin1, type DeviceHooks, Devices, type Enc, encodingOf, ttyKind } from "./devices.ts";
import { nameBytes, nameTooLong, shortPath, spaceDetail } from "./fs-errors.ts";
import type { FsBounds, FsEntry, FsOp } from "./protocol.ts";
import { isInside as isUnder, normalizePath } from "../../lib/paths.ts";

type RawEntry =
  | { type: "file"; content: Uint8Array | string; mode: number; mtime: Date }
  /** `remote` and `size`: a stub whose bytes are the page's file at `remote` (see load()). */
  | { type: "file"; lazy: () => unknown; mode: number; mtime: Date; remote?: string; size?: number }
  | { type: "directory"; mode: number; mtime: Date }
  | { type: "symlink"; target: string; mode: number; mtime: Date };

/** InMemoryFs's private members this class relies on (just-bash is pinned; `selfCheck` fails loudly if they move). */
interface InMemoryInternals {
  data: Map<string, RawEntry>;
  retainedBytes: number;
  maxTotalBytes: number;
  setEntry(path: string, entry: RawEntry): void;
  deleteEntry(path: string): void;
  ensureParentDirs(path: string): void;
  resolvePathWithSymlinks(path: string): string;
  resolveIntermediateSymlinks(path: string): string;
  identityFor(entry: RawEntry): unknown;
}

type Stat = Awaited<ReturnType<InMemoryFs["stat"]>>;

const entryNameBytes = (path: string, e: RawEntry): number => nameBytes(path, e.type === "symlink" ? e.target : undefined);

/**
 * InMemoryFs's map of entries, counting what its keys and links' targets cost (EMBEDDED.limits.maxFileSystemBytes
 * counts them as it counts files' bytes): just-bash makes folders and links with `data.set` itself, past setEntry.
 */
class NamedEntries extends Map<string, RawEntry> {
  bytes = 0;
  onChange: () => void = () => undefined;

  override set(path: string, entry: RawEntry): this {
    // (made empty: Map's own constructor would call this before the fields exist)
    const old = super.get(path);
    super.set(path, entry);
    this.bytes += entryNameBytes(path, entry) - (old === undefined ? 0 : entryNameBytes(path, old));
    this.onChange();
    return this;
  }

  override delete(path: string): boolean {
    const old = super.get(path);
    if (old === undefined) return false;
    this.bytes -= entryNameBytes(path, old);
    super.delete(path);
    this.onChange();
    return true;
  }

  override clear(): void {
    this.bytes = 0;
    super.clear();
    this.onChange();
  }
}

/** Throws ENAMETOOLONG (Linux's words) when `path` or a link's `target` is longer than Linux allows. */
function assertNameFits(path: string, syscall: string, target?: string): void {
  const why = nameTooLong(path, target);
  if (why !== null) throw new Error(`ENAMETOOLONG: ${why}, ${syscall} '${shortPath(path)}'`);
}

function mirrored(path: string): boolean {
  return !UNMIRRORED_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** just-bash's ENOSPC, said with the bound and what to do instead. */
function clearerSpaceError(err: unknown, used: number, bounds: FsBounds): unknown {
  if (!(err instanceof Error) || !err.message.startsWith("ENOSPC: in-memory filesystem byte limit")) return err;
  return new Error(`ENOSPC: ${spaceDetail("bytes", used, bounds)}`);
}

export class WorkerFs extends InMemoryFs {
  /** Nesting of public calls (mv calls mkdir, rm calls rm…): only the outermost call reports. */
  private depth = 0;
  /** Applying the page's changes: nothing is reported. */
  private muted = 0;
  private report: (ops: FsOp[]) => void = () => undefined;
  private hooks: DeviceHooks | null = null;
  /** The terminal devices (config.ts DEVICES) and /dev/null. */
  private readonly devices = new Devices(() => this.hooks);
  /** Entries of the interpreter's own layout (/bin, /dev, /proc…), which do not count toward EMBEDDED.maxFiles. */
  private layoutEntries = 0;
  /** Rewrites the text of the next read of a file that matches (a script's, interpreter.ts), then disarms. */
  private nextRead: { matches: (path: string) => boolean; rewrite: (text: string) => string } | null = null;

  constructor(private readonly bounds: FsBounds) {
    super(undefined, { maxTotalBytes: bounds.bytes });
    const internals = this as unknown as Partial<InMemoryInternals>;
    const methods = ["setEntry", "deleteEntry", "ensureParentDirs", "resolvePathWithSymlinks", "resolveIntermediateSymlinks", "identityFor"] as const;
    if (!(internals.data instanceof Map) || typeof internals.retainedBytes !== "number" || internals.maxTotalBytes !== bounds.bytes || methods.some((m) => typeof internals[m] !== "function")) {
      throw new Error("sandshell: just-bash's InMemoryFs changed shape; the embedded runtime needs just-bash 3.4.2");
    }
    // Stubs hold no bytes here but count toward the bound, as their files do on the page, and so do names and links'
    // targets: just-bash's own byte bound is kept at what they leave (setEntry and deleteEntry see every file that
    // comes and goes, NamedEntries every entry).
    const inner = this.internals;
    const named = new NamedEntries();
    for (const [path, entry] of inner.data) named.set(path, entry);
    named.onChange = () => this.updateByteBound();
    inner.data = named;
    this.names = named;
    const setEntry = inner.setEntry.bind(this);
    const deleteEntry = inner.deleteEntry.bind(this);
    inner.setEntry = (path, entry) => {
      const old = inner.data.get(path);
      setEntry(path, entry);
      this.countStub(old, -1);
      this.countStub(entry, 1);
      if (entry.type === "file" && "content" in entry && typeof entry.content !== "string" && entry.content.byteLength > EMBEDDED.inlineFileBytes) this.large.add(path);
    };
    inner.deleteEntry = (path) => {
      const old = inner.data.get(path);
      deleteEntry(path);
      this.countStub(old, -1);
    };
  }

  /** Paths where a larger file's bytes were put (some may have gone since): what releaseLargeFiles looks at. */
  private readonly large = new Set<string>();

  /** Bytes of the stubs here (their files' sizes on the page). */
  private stubBytes = 0;

  private countStub(entry: RawEntry | undefined, sign: 1 | -1): void {
    if (entry === undefined || entry.type !== "file" || !("lazy" in entry) || entry.size === undefined) return;
    this.setStubBytes(this.stubBytes + sign * entry.size);
  }

  private setStubBytes(bytes: number): void {
    this.stubBytes = Math.max(0, bytes);
    this.updateByteBound();
  }

  /** Names and links' targets of every entry here (the interpreter's own layout among them, until attach). */
  private readonly names: NamedEntries;
  /** What the interpreter's own layout's names cost: not counted (see attach). */
  private layoutNameBytes = 0;

  private get entryNameBytes(): number {
    return Math.max(0, this.names.bytes - this.layoutNameBytes);
  }

  private updateByteBound(): void {
    this.internals.maxTotalBytes = Math.max(0, this.bounds.bytes - this.stubBytes - this.entryNameBytes);
  }

  /** Bytes of all files as this worker knows them (what it holds, its stubs' sizes, every entry's name). */
  private get usedBytes(): number {
    return this.internals.retainedBytes + this.stubBytes + this.entryNameBytes;
  }

  private get internals(): InMemoryInternals {
    return this as unknown as InMemoryInternals;
  }

  /**
   * Starts reporting changes (after the page's snapshot of `pageEntries` entries and the interpreter's layout are in):
   * what is here beyond the page's entries is the interpreter's own and does not count toward the bound on files.
   */
  attach(report: (ops: FsOp[]) => void, hooks: DeviceHooks, pageEntries: number, pageNameBytes = 0): void {
    this.report = report;
    this.hooks = hooks;
    this.layoutEntries = this.internals.data.size - pageEntries;
    this.layoutNameBytes = Math.max(0, this.names.bytes - pageNameBytes);
    this.updateByteBound();
  }

  // -------------------------------------------------------------------------------------------- bounds

  /**
   * Throws ENAMETOOLONG when `path` (or a link's `target`) is longer than Linux allows, and ENOSPC when creating it
   * and the folders missing above it would pass the bound on files or on bytes (their names count).
   */
  private assertCanCreate(path: string, syscall: string, target?: string): void {
    const data = this.internals.data;
    const p = normalizePath(path);
    assertNameFits(p, syscall, target);
    if (data.has(p)) return;
    let count = 0;
    let bytes = 0;
    for (let cur = p; cur !== "/" && !data.has(cur); cur = cur.slice(0, Math.max(1, cur.lastIndexOf("/")))) {
      count++;
      bytes += nameBytes(cur, cur === p ? target : undefined);
    }
    this.assertRoomFor(count, bytes);
  }

  /** Throws ENOSPC when `count` more entries whose names cost `bytes` would pass a bound. */
  private assertRoomFor(count: number, bytes: number): void {
    const used = this.internals.data.size - this.layoutEntries;
    if (count > 0 && used + count > this.bounds.files) throw new Error(`ENOSPC: ${spaceDetail("files", used, this.bounds)}`);
    if (bytes > 0 && this.usedBytes + bytes > this.bounds.bytes) throw new Error(`ENOSPC: ${spaceDetail("bytes", this.usedBytes, this.bounds)}`);
  }

  /**
   * A copy (`keep`) or move of the tree at `src` to `dest`: every path under it gets `dest` for `src`, so the names
   * must fit Linux's limits and, with the entries a copy adds, the bounds (files' bytes are just-bash's to check).
   */
  private assertTreeFits(src: string, dest: string, syscall: string, keep: boolean): void {
    const s = normalizePath(src);
    const d = normalizePath(dest);
    const data = this.internals.data;
    let count = 0;
    let bytes = 0;
    let longest = "";
    for (const [path, entry] of data) {
      if (!isUnder(path, s)) continue;
      const moved = d + path.slice(s.length);
      if (moved.length > longest.length) longest = moved;
      assertNameFits(moved, syscall, entry.type === "symlink" ? entry.target : undefined);
      if (data.has(moved)) continue;
      count++;
      bytes += moved.length - (keep ? 0 : path.length) + (keep && entry.type === "symlink" ? entry.target.length : 0);
    }
    if (longest !== "") assertNameFits(longest, syscall);
    this.assertRoomFor(keep ? count : 0, bytes);
  }

  /** Runs a change; just-bash's ENOSPC comes out with the bound and what to do instead. */
  private async bounded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw clearerSpaceError(err, this.usedBytes, this.bounds);
    }
  }

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
  private stubStat(path: string, follow: boolean): Stat | null {
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
    if (e.remote !== undefined && e.size !== undefined) {
      // a stub copied or moved here: the page copies its bytes from where they are, and from then on has them here
      const out: FsEntry = { path, kind: "stub", mode: e.mode, mtime, size: e.size, from: e.remote };
      e.remote = path;
      return out;
    }
    return null; // a lazy file of the interpreter (/proc/self/status): never mirrored
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

  // -------------------------------------------------------------------------------------------- devices and reads

  /** The next successful read as text of a file whose path `matches` gets `rewrite(text)` instead (null: none). */
  rewriteNextRead(matches: ((path: string) => boolean) | null, rewrite: ((text: string) => string) | null): void {
    this.nextRead = matches !== null && rewrite !== null ? { matches, rewrite } : null;
  }

  override async readFile(path: string, options?: Parameters<InMemoryFs["readFile"]>[1]): Promise<string> {
    const tty = await this.devices.read(path);
    if (tty !== null) return tty;
    // just-bash turns bytes into a binary string 65,536 arguments at a time, which overflows a browser worker's
    // stack: a file over 64 KiB could not be read as bytes there (`wc`, `head -c` said "No such file")
    const enc = encodingOf(options as Enc);
    if (enc === "binary" || enc === "latin1") return bytesToLatin1(await this.readFileBuffer(path));
    if (enc === "base64") return btoa(bytesToLatin1(await this.readFileBuffer(path)));
    const text = await super.readFile(path, options);
    const next = this.nextRead;
    if (next === null || !next.matches(normalizePath(path))) return text;
    this.nextRead = null;
    return next.rewrite(text);
  }

  override async readFileBytes(path: string): Promise<Awaited<ReturnType<InMemoryFs["readFileBytes"]>>> {
    const tty = await this.devices.read(path);
    if (tty !== null) return bytesToLatin1(new TextEncoder().encode(tty)) as unknown as Awaited<ReturnType<InMemoryFs["readFileBytes"]>>;
    return bytesToLatin1(await this.readFileBuffer(path)) as unknown as Awaited<ReturnType<InMemoryFs["readFileBytes"]>>;
  }

  override async readFileBuffer(path: string): Promise<Uint8Array> {
    const tty = await this.devices.read(path);
    if (tty !== null) return new TextEncoder().encode(tty);
    return super.readFileBuffer(path);
  }

  override async exists(path: string): Promise<boolean> {
    if (ttyKind(path) !== null) return true;
    return super.exists(path);
  }

  override async stat(path: string): Promise<Stat> {
    if (ttyKind(path) !== null) return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: new Date() };
    return this.stubStat(path, true) ?? super.stat(path);
  }

  override async lstat(path: string): Promise<Stat> {
    return this.stubStat(path, false) ?? super.lstat(path);
  }

  // -------------------------------------------------------------------------------------------- changes

  override async writeFile(path: string, content: Uint8Array | string, options?: Parameters<InMemoryFs["writeFile"]>[2]): Promise<void> {
    if (this.devices.write(path, content, options as Enc)) return;
    const p = normalizePath(path);
    this.assertCanCreate(p, "open");
    await this.track(() => this.bounded(() => super.writeFile(path, content, options)), () => this.putOf(p));
  }

  override async appendFile(path: string, content: Uint8Array | string, options?: Parameters<InMemoryFs["appendFile"]>[2]): Promise<void> {
    if (this.devices.write(path, content, options as Enc)) return;
    const p = normalizePath(path);
    const before = this.internals.data.get(p);
    const prevLen = before?.type === "file" && "content" in before && before.content instanceof Uint8Array ? before.content.length : null;
    this.assertCanCreate(p, "open");
    await this.track(
      () => this.bounded(() => super.appendFile(path, content, options)),
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
    this.assertCanCreate(p, "mkdir");
    await this.track(
      () => super.mkdir(path, options),
      () => (existed || !mirrored(p) ? null : [{ op: "mkdirs", path: p, mtime: Date.now() }]),
    );
  }

  override async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    const p = normalizePath(path);
    const existed = this.internals.data.has(p);
    await this.track(
      () => (options?.recursive === true ? this.rmTree(path, p, options.force === true) : super.rm(path, options)),
      () => (existed && mirrored(p) ? [{ op: "delete", path: p }] : null),
    );
  }

  /**
   * `rm -r` of a folder in one pass over the entries: just-bash's lists each folder by scanning every entry, so its
   * recursive removal was quadratic (20,000 folders with long paths: 179 s in the worker). Children go before their
   * folder, through deleteEntry as just-bash's own removal does (it keeps the byte counts).
   */
  private async rmTree(path: string, p: string, force: boolean): Promise<void> {
    const data = this.internals.data;
    const top = data.get(p);
    if (top === undefined || top.type !== "directory" || p === "/") return super.rm(path, { recursive: true, force });
    const prefix = `${p}/`;
    const under: string[] = [];
    for (const key of data.keys()) if (key.startsWith(prefix)) under.push(key);
    under.sort((a, b) => b.length - a.length);
    for (const key of under) this.internals.deleteEntry(key);
    this.internals.deleteEntry(p);
  }

  override async cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void> {
    const d = normalizePath(dest);
    this.assertCanCreate(d, "cp");
    if (options?.recursive) this.assertTreeFits(src, dest, "cp", true);
    await this.track(() => this.bounded(() => super.cp(src, dest, options)), () => this.putOf(d));
  }

  override async mv(src: string, dest: string): Promise<void> {
    const s = normalizePath(src);
    const d = normalizePath(dest);
    this.assertTreeFits(s, d, "rename", false);
    await this.track(
      () => super.mv(src, dest),
      () => {
        if (s === d) return null;
        // the new place first: a stub moved here takes its bytes from the old place on the page
        const ops: FsOp[] = [...(this.putOf(d) ?? [])];
        if (mirrored(s)) ops.push({ op: "delete", path: s });
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
    this.assertCanCreate(p, "symlink", target);
    await this.track(() => super.symlink(target, linkPath), () => this.putOf(p));
  }

  override async link(existingPath: string, newPath: string): Promise<void> {
    const p = normalizePath(newPath);
    this.assertCanCreate(p, "link");
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
