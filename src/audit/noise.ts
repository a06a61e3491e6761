// The audit log's noise room: messages ignored or refused (api.ignored, api.rejected, api.error-reply and their per-origin
// flood summaries). Bounded (AUDIT.maxNoiseEntries), and kept per origin class (originClass: the scheme and the host's
// last two labels, so s1.evil.test … s1100.evil.test are one class) so that many origins cannot erase that a refused
// page came:
//
// - each class keeps its first entry and its latest; entries in between are folded, oldest first, into one summary per
//   class (fold.ts: the count and a SHA-256 chain);
// - when only firsts, latests and summaries are left and the room is still full, the newest classes are merged whole
//   into one summary of their own: the first to come are kept.

import { Fold } from "./fold.ts";
import type { AuditEntry } from "./log.ts";

/** An origin's class: `scheme://` and the host's last two labels (an IP address or `null` stays whole). */
export function originClass(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return origin;
  }
  const host = url.hostname;
  if (host === "" || /^[\d.]+$/.test(host) || host.startsWith("[")) return `${url.protocol}//${host}`;
  const labels = host.split(".");
  return `${url.protocol}//${labels.slice(-2).join(".")}`;
}

class Klass {
  first: AuditEntry | null = null;
  latest: AuditEntry | null = null;
  fold: Fold | null = null;
  merged = false;
  constructor(readonly name: string) {}
}

export class NoiseRoom {
  private readonly classes = new Map<string, Klass>();
  /** Entries that were a class's latest and are neither first nor latest now, oldest first: folded first. */
  private readonly between: Array<{ klass: Klass; entry: AuditEntry }> = [];
  private readonly merged = new Fold();
  private total = 0;

  constructor(private readonly max: number) {}

  add(origin: string, entry: AuditEntry): void {
    const name = originClass(origin);
    let k = this.classes.get(name);
    if (k === undefined) this.classes.set(name, (k = new Klass(name)));
    if (k.first === null) k.first = entry;
    else {
      if (k.latest !== null) this.between.push({ klass: k, entry: k.latest });
      k.latest = entry;
    }
    this.total++;
    while (this.total > this.max) {
      const next = this.between.shift();
      if (next !== undefined) {
        if (next.klass.merged) continue;
        (next.klass.fold ??= new Fold()).add(next.entry);
        this.total--;
      } else if (!this.mergeNewest()) break;
    }
  }

  entries(): AuditEntry[] {
    const out: AuditEntry[] = [];
    const inBetween = new Set(this.between.filter((b) => !b.klass.merged).map((b) => b.entry));
    for (const k of this.classes.values()) {
      if (k.first !== null) out.push(k.first);
      if (k.fold !== null) {
        out.push(k.fold.entry({ room: "noise", origin: k.name }, `${k.fold.messages} ignored or refused messages from ${k.name} (its first and latest entries are kept), summarised to keep the log bounded`));
      }
      if (k.latest !== null) out.push(k.latest);
    }
    for (const e of inBetween) out.push(e);
    if (this.merged.entries > 0) {
      out.push(this.merged.entry({ room: "noise", merged: true }, `${this.merged.messages} ignored or refused messages from later origins, summarised whole to keep the log bounded`));
    }
    return out;
  }

  private mergeNewest(): boolean {
    const names = [...this.classes.keys()];
    if (names.length <= 1) return false;
    const k = this.classes.get(names[names.length - 1]!)!;
    k.merged = true;
    for (const e of [k.first, k.latest]) {
      if (e !== null) {
        this.merged.add(e);
        this.total--;
      }
    }
    if (k.fold !== null) this.merged.absorb(k.fold);
    for (const b of this.between) {
      if (b.klass === k) {
        this.merged.add(b.entry);
        this.total--;
      }
    }
    this.classes.delete(k.name);
    return true;
  }
}
