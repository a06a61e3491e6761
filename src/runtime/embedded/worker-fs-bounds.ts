// The worker's file system held to its bounds: just-bash's InMemoryFs, whose entries may not pass
// EMBEDDED.limits.maxFileSystemBytes (the bytes this worker holds, the sizes of its stubs, every entry's name and every
// link's target) nor EMBEDDED.maxFiles; past one a change fails with ENOSPC and says what to do instead, and a name
// longer than Linux allows fails with ENAMETOOLONG. The interpreter's own layout (/bin, /dev, /proc…) does not count.
// Stubs are made in worker-fs-from-page.ts and counted here; worker-fs.ts reports the changes to the page.

import { InMemoryFs } from "just-bash/browser";
import { EMBEDDED } from "./config.ts";
import { nameBytes, nameTooLong, shortPath, spaceDetail } from "./fs-errors.ts";
import type { FsBounds } from "./protocol.ts";
import { isInside as isUnder, normalizePath } from "../../lib/paths.ts";

export type RawEntry =
  | { type: "file"; content: Uint8Array | string; mode: number; mtime: Date }
  /** `remote` and `size`: a stub whose bytes are the page's file at `remote` (see worker-fs-from-page.ts load()). */
  | { type: "file"; lazy: () => unknown; mode: number; mtime: Date; remote?: string; size?: number }
  | { type: "directory"; mode: number; mtime: Date }
  | { type: "symlink"; target: string; mode: number; mtime: Date };

/** InMemoryFs's private members these classes rely on (just-bash is pinned; the constructor fails loudly if they move). */
export interface InMemoryInternals {
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

export type Stat = Awaited<ReturnType<InMemoryFs["stat"]>>;

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

/** just-bash's ENOSPC, said with the bound and what to do instead. */
function clearerSpaceError(err: unknown, used: number, bounds: FsBounds): unknown {
  if (!(err instanceof Error) || !err.message.startsWith("ENOSPC: in-memory filesystem byte limit")) return err;
  return new Error(`ENOSPC: ${spaceDetail("bytes", used, bounds)}`);
}

export class BoundedFs extends InMemoryFs {
  /** Entries of the interpreter's own layout (/bin, /dev, /proc…), which do not count toward EMBEDDED.maxFiles. */
  private layoutEntries = 0;

  constructor(protected readonly bounds: FsBounds) {
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
  protected readonly large = new Set<string>();

  /** Bytes of the stubs here (their files' sizes on the page). */
  protected stubBytes = 0;

  protected countStub(entry: RawEntry | undefined, sign: 1 | -1): void {
    if (entry === undefined || entry.type !== "file" || !("lazy" in entry) || entry.size === undefined) return;
    this.setStubBytes(this.stubBytes + sign * entry.size);
  }

  protected setStubBytes(bytes: number): void {
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

  protected get internals(): InMemoryInternals {
    return this as unknown as InMemoryInternals;
  }

  /**
   * With the page's snapshot of `pageEntries` entries and the interpreter's layout in (worker-fs.ts attach): what is
   * here beyond the page's entries is the interpreter's own and does not count toward the bound on files.
   */
  protected countLayout(pageEntries: number, pageNameBytes: number): void {
    this.layoutEntries = this.internals.data.size - pageEntries;
    this.layoutNameBytes = Math.max(0, this.names.bytes - pageNameBytes);
    this.updateByteBound();
  }

  /**
   * Throws ENAMETOOLONG when `path` (or a link's `target`) is longer than Linux allows, and ENOSPC when creating it
   * and the folders missing above it would pass the bound on files or on bytes (their names count).
   */
  protected assertCanCreate(path: string, syscall: string, target?: string): void {
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
  protected assertTreeFits(src: string, dest: string, syscall: string, keep: boolean): void {
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
  protected async bounded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw clearerSpaceError(err, this.usedBytes, this.bounds);
    }
  }
}
