// The audit log's security room: verdicts, approvals, rules, input sent to a command, file writes. Bounded, and fair
// between principals, so that no one can evict another's evidence:
//
// - A principal is an origin: every connection of one page is one principal (the API records which origin each
//   connection came from: principal()). The sandbox's owner is one of its own; a caller with no known origin (a Node
//   caller's `caller` option) is one by itself.
// - Within a principal each caller (a connection id) has its own part: its first entry is kept for good, then its latest
//   entries up to AUDIT.maxEntriesPerCaller and AUDIT.maxCallerChars. Older ones are folded into one summary per caller
//   (fold.ts: the count, the kinds, and a SHA-256 chain over them): a caller that floods evicts only its own.
// - Past AUDIT.maxCallersPerOrigin callers in one principal (a page opening connection after connection), its newest
//   callers are merged whole into one summary of that principal: its first callers keep theirs.
// - The room as a whole (AUDIT.maxEntries, AUDIT.maxSecurityChars) is kept by levelling principals: the principals
//   with the most entries are folded first, down to a common level, and within one the callers with the most. So one
//   origin's connections, however many, fold only that origin's entries while another's are below the level (with at
//   most AUDIT.maxOrigins principals, the level never falls below a tenth of maxEntries shared among them).
// - Past AUDIT.maxOrigins principals, the newest are merged whole into one summary of the room: the first to come are
//   kept.

import { Fifo } from "../lib/fifo.ts";
import { Fold } from "./fold.ts";
import type { AuditEntry } from "./log.ts";

export interface SecurityLimits {
  maxEntries: number;
  maxEntriesPerCaller: number;
  maxSecurityChars: number;
  maxCallerChars: number;
  maxOrigins: number;
  maxCallersPerOrigin: number;
}

interface Kept {
  entry: AuditEntry;
  chars: number;
}

/** One caller's entries. */
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

/** One origin's (or the owner's, or an origin-less caller's) callers. */
class Principal {
  /** By caller key, in the order callers first recorded. */
  readonly parts = new Map<string, Part>();
  /** The same keys in that order, to find the newest without copying. */
  readonly order: string[] = [];
  /** Its newest callers, merged whole past maxCallersPerOrigin. */
  merged: Fold | null = null;
  /** Entries kept; of them, foldable (not a caller's first). */
  count = 0;
  rest = 0;
  chars = 0;
  constructor(
    readonly key: string,
    readonly origin: string | undefined,
  ) {}

  get owner(): boolean {
    return this.key === "";
  }
}

/** Takes about `excess` from `items`, the largest first, down to a common level (never below any item left alone). */
function levelDown<T>(items: T[], excess: number, size: (t: T) => number, shrinkTo: (t: T, level: number) => void): void {
  const sorted = items.filter((t) => size(t) > 0).sort((a, b) => size(b) - size(a));
  let sum = 0;
  let level = 0;
  let k = 0;
  for (; k < sorted.length; k++) {
    sum += size(sorted[k]!);
    const next = k + 1 < sorted.length ? size(sorted[k + 1]!) : 0;
    if (sum - (k + 1) * next >= excess) {
      level = Math.max(next, Math.floor((sum - excess) / (k + 1)));
      break;
    }
  }
  for (let i = 0; i < Math.min(k + 1, sorted.length); i++) shrinkTo(sorted[i]!, level);
}

export class SecurityRoom {
  /** By principal key, in the order principals first recorded. */
  private readonly principals = new Map<string, Principal>();
  private readonly order: string[] = [];
  /** Principals merged whole past maxOrigins. */
  private readonly merged = new Fold();
  /** Where each live connection came from (the API says, at connect). */
  private readonly origins = new Map<string, string>();
  /** The principal of each caller that recorded, so its later entries (a release after it went, too) go to the same. */
  private readonly home = new Map<string, string>();
  private total = 0;
  private totalChars = 0;

  constructor(private readonly limits: SecurityLimits) {}

  /** A connection `caller` came from `origin`: its entries belong to that origin's principal. */
  principal(caller: string, origin: string): void {
    this.origins.set(caller, origin);
    // Connections that go say so (forget); this only bounds the map against ones that never do.
    if (this.origins.size > this.limits.maxEntries) this.origins.delete(this.origins.keys().next().value!);
  }

  /** A connection went. */
  forget(caller: string): void {
    this.origins.delete(caller);
  }

  add(caller: string | undefined, entry: AuditEntry, chars: number): void {
    const principal = this.principalOf(caller);
    const key = caller === undefined ? "" : `c:${caller}`;
    let part = principal.parts.get(key);
    if (part === undefined) {
      principal.parts.set(key, (part = new Part(caller)));
      principal.order.push(key);
    }
    const kept = { entry, chars };
    if (part.first === null) part.first = kept;
    else {
      part.rest.push(kept);
      principal.rest++;
    }
    part.chars += chars;
    principal.count++;
    principal.chars += chars;
    this.total++;
    this.totalChars += chars;
    while (part.rest.length > 0 && (part.count > this.limits.maxEntriesPerCaller || part.chars > this.limits.maxCallerChars)) {
      this.foldOldest(principal, part);
    }
    if (!principal.owner && principal.parts.size > this.callerBound()) this.mergeNewestCaller(principal);
    if (this.order.length - (this.principals.has("") ? 1 : 0) > this.principalBound()) this.mergeNewestPrincipal();
    if (this.total > this.limits.maxEntries) this.level(this.total - Math.floor(this.limits.maxEntries * 0.9));
    while (this.totalChars > this.limits.maxSecurityChars) {
      const p = this.largest([...this.principals.values()], (x) => x.chars, (x) => x.rest > 0, (x) => x.owner);
      const part = p === null ? null : this.largest([...p.parts.values()], (x) => x.chars, (x) => x.rest.length > 0, () => false);
      if (p !== null && part !== null) this.foldOldest(p, part);
      else if (!this.mergeNewestPrincipal()) break;
    }
  }

  entries(): AuditEntry[] {
    const out: AuditEntry[] = [];
    for (const principal of this.principals.values()) {
      const from = principal.origin !== undefined ? { origin: principal.origin } : {};
      for (const part of principal.parts.values()) {
        if (part.first !== null) out.push(part.first.entry);
        if (part.fold !== null) {
          const who = part.caller === undefined ? "the sandbox's owner" : part.caller;
          out.push(
            part.fold.entry(
              { room: "security", ...(part.caller !== undefined ? { caller: part.caller } : {}), ...from },
              `${part.fold.entries} earlier security entries of ${who} (after its first), summarised to keep the log bounded`,
            ),
          );
        }
        for (const k of part.rest) out.push(k.entry);
      }
      if (principal.merged !== null) {
        const who = principal.origin !== undefined ? `connections from ${principal.origin}` : "callers";
        out.push(
          principal.merged.entry(
            { room: "security", merged: true, ...from },
            `${principal.merged.entries} security entries of later ${who} (past ${this.callerBound()} of them), summarised whole to keep the log bounded`,
          ),
        );
      }
    }
    if (this.merged.entries > 0) {
      out.push(
        this.merged.entry(
          { room: "security", merged: true },
          `${this.merged.entries} security entries of later origins and callers (past ${this.principalBound()} of them), summarised whole to keep the log bounded`,
        ),
      );
    }
    return out;
  }

  private callerBound(): number {
    return Math.max(1, Math.min(this.limits.maxCallersPerOrigin, Math.floor(this.limits.maxEntries / 2)));
  }

  private principalBound(): number {
    return Math.max(1, Math.min(this.limits.maxOrigins, Math.floor(this.limits.maxEntries / 2)));
  }

  private principalOf(caller: string | undefined): Principal {
    let key = "";
    if (caller !== undefined) {
      const origin = this.origins.get(caller);
      key = this.home.get(caller) ?? (origin !== undefined ? `o:${origin}` : `c:${caller}`);
      if (!this.home.has(caller)) {
        this.home.set(caller, key);
        // A bound on memory only: callers this old have long gone (connections record nothing after they go).
        if (this.home.size > 2 * this.limits.maxEntries) this.home.delete(this.home.keys().next().value!);
      }
    }
    let principal = this.principals.get(key);
    if (principal === undefined) {
      this.principals.set(key, (principal = new Principal(key, key.startsWith("o:") ? key.slice(2) : undefined)));
      this.order.push(key);
    }
    return principal;
  }

  private foldOldest(principal: Principal, part: Part): void {
    const kept = part.rest.shift();
    if (kept === undefined) return;
    (part.fold ??= new Fold()).add(kept.entry);
    part.chars -= kept.chars;
    principal.rest--;
    principal.count--;
    principal.chars -= kept.chars;
    this.total--;
    this.totalChars -= kept.chars;
  }

  /** The item with the most of `measure` among those `eligible`, those `last` only when no other is. */
  private largest<T>(items: T[], measure: (t: T) => number, eligible: (t: T) => boolean, last: (t: T) => boolean): T | null {
    let best: T | null = null;
    let fallback: T | null = null;
    for (const t of items) {
      if (!eligible(t)) continue;
      if (last(t)) fallback = t;
      else if (best === null || measure(t) > measure(best)) best = t;
    }
    return best ?? fallback;
  }

  /** Folds about `excess` entries: principals with the most first, down to a common level; within each, its callers likewise. */
  private level(excess: number): void {
    levelDown(
      [...this.principals.values()],
      excess,
      (p) => p.rest,
      (p, level) =>
        levelDown(
          [...p.parts.values()],
          p.rest - level,
          (part) => part.rest.length,
          (part, partLevel) => {
            while (part.rest.length > partLevel) this.foldOldest(p, part);
          },
        ),
    );
    while (this.total > this.limits.maxEntries && this.mergeNewestPrincipal());
  }

  /** Merges a principal's newest caller (never its first) into the principal's own summary. */
  private mergeNewestCaller(principal: Principal): void {
    if (principal.order.length < 2) return;
    const key = principal.order.pop()!;
    const part = principal.parts.get(key)!;
    principal.parts.delete(key);
    const into = (principal.merged ??= new Fold());
    this.absorb(into, part);
    principal.count -= part.count;
    principal.rest -= part.rest.length;
    principal.chars -= part.chars;
  }

  /** Merges the newest principal (never the owner) into the room's summary. False when none is left. */
  private mergeNewestPrincipal(): boolean {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const key = this.order[i]!;
      if (key === "") continue;
      const principal = this.principals.get(key)!;
      for (const part of principal.parts.values()) this.absorb(this.merged, part);
      if (principal.merged !== null) this.merged.absorb(principal.merged);
      this.principals.delete(key);
      this.order.splice(i, 1);
      return true;
    }
    return false;
  }

  private absorb(into: Fold, part: Part): void {
    if (part.first !== null) into.add(part.first.entry);
    if (part.fold !== null) into.absorb(part.fold);
    for (const k of part.rest) into.add(k.entry);
    this.total -= part.count;
    this.totalChars -= part.chars;
  }
}
