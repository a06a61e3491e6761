// The worker's file system: just-bash's InMemoryFs, with every change reported (as FsOp) to the page the moment it
// is made, so that the page's mirror never lags behind more than one message. Changes the page sends are applied
// without being reported back, and larger files arrive as stubs (worker-fs-from-page.ts); a stub copied or moved here is
// reported as a stub `from` the page's file that holds its bytes. Bounds: worker-fs-bounds.ts. It also hosts the
// devices of config.ts DEVICES: output appended to the output device goes to the terminal, and reading a terminal
// device waits for what is typed.

import type { InMemoryFs } from "just-bash/browser";
import { mirrored } from "./config.ts";
import { bytesToLatin1, type DeviceHooks, Devices, type Enc, encodingOf, ttyKind } from "./devices.ts";
import type { FsEntry, FsOp } from "./protocol.ts";
import type { RawEntry, Stat } from "./worker-fs-bounds.ts";
import { PageFedFs } from "./worker-fs-from-page.ts";
import { isInside as isUnder, normalizePath } from "../../lib/paths.ts";

export class WorkerFs extends PageFedFs {
  /** Nesting of public calls (mv calls mkdir, rm calls rm…): only the outermost call reports. */
  private depth = 0;
  /** Applying the page's changes: nothing is reported. */
  private muted = 0;
  private report: (ops: FsOp[]) => void = () => undefined;
  /** The terminal devices (config.ts DEVICES) and /dev/null. */
  private readonly devices = new Devices(() => this.hooks);
  /** Rewrites the text of the next read of a file that matches (a script's, interpreter.ts), then disarms. */
  private nextRead: { matches: (path: string) => boolean; rewrite: (text: string) => string } | null = null;

  /**
   * Starts reporting changes (after the page's snapshot of `pageEntries` entries and the interpreter's layout are in):
   * what is here beyond the page's entries is the interpreter's own and does not count toward the bound on files.
   */
  attach(report: (ops: FsOp[]) => void, hooks: DeviceHooks, pageEntries: number, pageNameBytes = 0): void {
    this.report = report;
    this.hooks = hooks;
    this.countLayout(pageEntries, pageNameBytes);
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
}
