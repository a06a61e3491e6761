// A persistent map from strings to strings (a hash array mapped trie): `set` returns a new map that shares all
// but one path with the old one. The guard forks the shell's variables for every pipeline stage, substitution
// and branch and merges them after; with a plain Map each fork-then-assign copied every variable, so a
// command of n assignments and n substitutions cost n² (a 256 KB one took 10 s). Here a fork is free, an
// assignment costs the depth of the trie, and the names that differ between two maps are found without
// looking at the subtrees they share.

interface Entry {
  readonly key: string;
  readonly value: string;
  readonly hash: number;
}

/** Entries whose 32-bit hashes are all equal. */
interface Collision {
  readonly hash: number;
  readonly entries: readonly Entry[];
}

interface Trie {
  readonly bitmap: number;
  readonly slots: readonly Slot[];
}

type Slot = Entry | Collision | Trie;

const BITS = 5;
const MASK = (1 << BITS) - 1;

function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 63;
}

const isTrie = (s: Slot): s is Trie => "bitmap" in s;
const isEntry = (s: Slot): s is Entry => "key" in s;

/** A trie at `shift` holding two leaves (entries or collisions) of different keys. */
function pair(a: Entry | Collision, b: Entry | Collision, shift: number): Slot {
  if (a.hash === b.hash) return { hash: a.hash, entries: [...leafEntries(a), ...leafEntries(b)] };
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return { bitmap: 1 << ia, slots: [pair(a, b, shift + BITS)] };
  return { bitmap: (1 << ia) | (1 << ib), slots: ia < ib ? [a, b] : [b, a] };
}

function leafEntries(s: Entry | Collision): readonly Entry[] {
  return isEntry(s) ? [s] : s.entries;
}

function insert(slot: Slot, e: Entry, shift: number): Slot {
  if (isTrie(slot)) {
    const bit = 1 << ((e.hash >>> shift) & MASK);
    const at = popcount(slot.bitmap & (bit - 1));
    const slots = slot.slots.slice();
    if (!(slot.bitmap & bit)) {
      slots.splice(at, 0, e);
      return { bitmap: slot.bitmap | bit, slots };
    }
    const next = insert(slot.slots[at]!, e, shift + BITS);
    if (next === slot.slots[at]) return slot;
    slots[at] = next;
    return { bitmap: slot.bitmap, slots };
  }
  if (isEntry(slot)) {
    if (slot.key === e.key) return slot.value === e.value ? slot : e;
    return pair(slot, e, shift);
  }
  if (slot.hash !== e.hash) return pair(slot, e, shift);
  const i = slot.entries.findIndex((x) => x.key === e.key);
  if (i >= 0 && slot.entries[i]!.value === e.value) return slot;
  const entries = slot.entries.slice();
  if (i >= 0) entries[i] = e;
  else entries.push(e);
  return { hash: slot.hash, entries };
}

function lookup(slot: Slot, key: string, hash: number, shift: number): string | undefined {
  for (;;) {
    if (isEntry(slot)) return slot.key === key ? slot.value : undefined;
    if (!isTrie(slot)) return slot.entries.find((x) => x.key === key)?.value;
    const bit = 1 << ((hash >>> shift) & MASK);
    if (!(slot.bitmap & bit)) return undefined;
    slot = slot.slots[popcount(slot.bitmap & (bit - 1))]!;
    shift += BITS;
  }
}

function* entriesOf(slot: Slot | undefined): Generator<Entry> {
  if (!slot) return;
  if (isEntry(slot)) yield slot;
  else if (isTrie(slot)) for (const s of slot.slots) yield* entriesOf(s);
  else yield* slot.entries;
}

/** Keys whose values differ between the two subtrees (or that only one holds); shared subtrees are skipped. */
function diff(a: Slot | undefined, b: Slot | undefined, out: Set<string>): void {
  if (a === b) return;
  if (a && b && isTrie(a) && isTrie(b)) {
    let bits = a.bitmap | b.bitmap;
    while (bits) {
      const bit = bits & -bits;
      bits ^= bit;
      const ca = a.bitmap & bit ? a.slots[popcount(a.bitmap & (bit - 1))] : undefined;
      const cb = b.bitmap & bit ? b.slots[popcount(b.bitmap & (bit - 1))] : undefined;
      diff(ca, cb, out);
    }
    return;
  }
  const left = new Map<string, string>();
  for (const e of entriesOf(a)) left.set(e.key, e.value);
  for (const e of entriesOf(b)) {
    if (left.get(e.key) !== e.value) out.add(e.key);
    left.delete(e.key);
  }
  for (const k of left.keys()) out.add(k);
}

export class PMap {
  static readonly EMPTY = new PMap({ bitmap: 0, slots: [] }, 0);

  private constructor(
    private readonly root: Trie,
    readonly size: number,
  ) {}

  get(key: string): string | undefined {
    return lookup(this.root, key, hashOf(key), 0);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: string): PMap {
    const had = this.has(key);
    const root = insert(this.root, { key, value, hash: hashOf(key) }, 0) as Trie;
    return root === this.root ? this : new PMap(root, had ? this.size : this.size + 1);
  }

  *keys(): Generator<string> {
    for (const e of entriesOf(this.root)) yield e.key;
  }

  /** The keys whose values differ between `a` and `b` (or that only one holds), in time for what differs. */
  static changed(a: PMap, b: PMap, out: Set<string> = new Set()): Set<string> {
    diff(a.root, b.root, out);
    return out;
  }
}
