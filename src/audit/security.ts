// The audit log's security room: verdicts, approvals, rules, input sent to a command, file writes. Bounded, and fair
// between callers, so that no caller can evict another's evidence:
//
// - Each caller (a connection id, or the sandbox's owner) has its own part: its first entry is kept for good, then its
//   latest entries up to AUDIT.maxEntriesPerCaller and AUDIT.maxCallerChars. Older ones are folded into one summary
//   per caller (fold.ts: the count, the kinds, and a SHA-256 chain over them): a caller that floods evicts only its own.
// - The room as a whole (AUDIT.maxEntries, AUDIT.maxSecurityChars) is kept by levelling: the callers with the most
//   entries are folded first, down to a common level, so a caller with a few entries keeps them while others flood.
// - Past half of AUDIT.maxEntries callers (a page opening connection after connection), the newest callers are merged
//   whole into one summary of their own: the first to come are kept.

import { Fifo } from "../lib/fifo.ts";
import { Fold } from "./fold.ts";
import type { AuditEntry } from "./log.ts";

export interface SecurityLimits {
  maxEntries: number;
  maxEntriesPerCaller: number;
  maxSecurityChars: number;
  maxCallerChars: number;
}

interface Kept {
  entry: AuditEntry;
  chars: number;
}

class Part {
  first: Kept | null = null;
  readonly rest = new Fifo<Kept>();
  fold: Fold | null = null;
  chars = 0;
  constructor(readonly caller: string | undefined) {}

  get count(): number {
    return (this.first !== null ? 1 : 0) + this.rest.length;
  }
}

export class SecurityRoom {
  /** By caller key, in the order callers first recorded. */
  private readonly parts = new Map<string, Part>();
  private readonly merged = new Fold();
  private total = 0;
  private totalChars = 0;

  constructor(private readonly limits: SecurityLimits) {}

  add(caller: string | undefined, entry: AuditEntry, chars: number): void {
    const key = caller === undefined ? "" : `c:${caller}`;
    let part = this.parts.get(key);
    if (part === undefined) this.parts.set(key, (part = new Part(caller)));
    const kept = { entry, chars };
    if (part.first === null) part.first = kept;
    else part.rest.push(kept);
    part.chars += chars;
    this.total++;
    this.totalChars += chars;
    while (part.rest.length > 0 && (part.count > this.limits.maxEntriesPerCaller || part.chars > this.limits.maxCallerChars)) this.foldOldest(part);
    if (this.parts.size > Math.max(1, Math.floor(this.limits.maxEntries / 2))) this.mergeNewest();
    if (this.total > this.limits.maxEntries) this.level(this.total - Math.floor(this.limits.maxEntries * 0.9));
    while (this.totalChars > this.limits.maxSecurityChars) {
      const biggest = this.largest((p) => p.chars);
      if (biggest !== null) this.foldOldest(biggest);
      else if (!this.mergeNewest()) break;
    }
  }

  entries(): AuditEntry[] {
    const out: AuditEntry[] = [];
    for (const part of this.parts.values()) {
      if (part.first !== null) out.push(part.first.entry);
      if (part.fold !== null) {
        const who = part.caller === undefined ? "the sandbox's owner" : part.caller;
        out.push(
          part.fold.entry(
            { room: "security", ...(part.caller !== undefined ? { caller: part.caller } : {}) },
            `${part.fold.entries} earlier security entries of ${who} (after its first), summarised to keep the log bounded`,
          ),
        );
      }
      for (const k of part.rest) out.push(k.entry);
    }
    if (this.merged.entries > 0) {
      out.push(this.merged.entry({ room: "security", merged: true }, `${this.merged.entries} security entries of later callers, summarised whole to keep the log bounded`));
    }
    return out;
  }

  private foldOldest(part: Part): void {
    const kept = part.rest.shift();
    if (kept === undefined) return;
    (part.fold ??= new Fold()).add(kept.entry);
    part.chars -= kept.chars;
    this.total--;
    this.totalChars -= kept.chars;
  }

  /** The part with the most of `measure` among those with entries to fold (the owner's last). */
  private largest(measure: (p: Part) => number): Part | null {
    let best: Part | null = null;
    for (const p of this.parts.values()) {
      if (p.rest.length === 0 || p.caller === undefined) continue;
      if (best === null || measure(p) > measure(best)) best = p;
    }
    const owner = this.parts.get("");
    return best ?? (owner !== undefined && owner.rest.length > 0 ? owner : null);
  }

  /** Folds `excess` entries, taking from the callers with the most first, down to a common level. */
  private level(excess: number): void {
    const parts = [...this.parts.values()].filter((p) => p.rest.length > 0).sort((a, b) => b.rest.length - a.rest.length);
    let sum = 0;
    let level = 0;
    let k = 0;
    for (; k < parts.length; k++) {
      sum += parts[k]!.rest.length;
      const next = k + 1 < parts.length ? parts[k + 1]!.rest.length : 0;
      if (sum - (k + 1) * next >= excess) {
        level = Math.max(next, Math.floor((sum - excess) / (k + 1)));
        break;
      }
    }
    for (let i = 0; i < Math.min(k + 1, parts.length); i++) {
      const part = parts[i]!;
      while (part.rest.length > level) this.foldOldest(part);
    }
    while (this.total > this.limits.maxEntries && this.mergeNewest());
  }

  /** Merges the newest caller's part (never the owner's) into the room's own summary. False when none is left. */
  private mergeNewest(): boolean {
    const keys = [...this.parts.keys()];
    for (let i = keys.length - 1; i >= 0; i--) {
      const part = this.parts.get(keys[i]!)!;
      if (part.caller === undefined) continue;
      if (part.first !== null) this.merged.add(part.first.entry);
      if (part.fold !== null) this.merged.absorb(part.fold);
      for (const k of part.rest) this.merged.add(k.entry);
      this.total -= part.count;
      this.totalChars -= part.chars;
      this.parts.delete(keys[i]!);
      return true;
    }
    return false;
  }
}
