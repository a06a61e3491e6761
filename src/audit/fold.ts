// Entries folded into one summary, so that a bound on the audit log never erases evidence without a trace: how many,
// from when to when, of what kinds, and a SHA-256 chain over their JSON lines (h = SHA-256(h + "\n" + line), starting
// from ""), which an exported copy of the same entries (onActivity, exportAuditLog earlier) can be checked against.

import { sha256Hex } from "./sha256.ts";
import type { AuditEntry } from "./log.ts";

/** Distinct values counted per field; the rest are counted under "(other)". */
const MAX_KEYS = 20;

function bump(counts: Record<string, number>, key: unknown): void {
  if (typeof key !== "string" || key === "") return;
  const k = Object.hasOwn(counts, key) || Object.keys(counts).length < MAX_KEYS ? key : "(other)";
  counts[k] = (counts[k] ?? 0) + 1;
}

export class Fold {
  /** Entries folded. */
  entries = 0;
  /** Messages they stood for (a flood entry stands for `count` messages; any other for one). */
  messages = 0;
  firstSeq = 0;
  lastSeq = 0;
  since = "";
  until = "";
  sha256 = "";
  readonly types: Record<string, number> = {};
  readonly decisions: Record<string, number> = {};
  readonly rules: Record<string, number> = {};
  readonly callers: Record<string, number> = {};

  add(entry: AuditEntry): void {
    if (this.entries === 0) {
      this.firstSeq = entry.seq;
      this.since = entry.time;
    }
    this.entries++;
    this.messages += typeof entry.count === "number" && entry.count > 0 ? entry.count : 1;
    this.lastSeq = Math.max(this.lastSeq, entry.seq);
    this.until = entry.time > this.until ? entry.time : this.until;
    bump(this.types, entry.type === "event" ? String(entry.event) : entry.type);
    const verdict = entry.verdict as { decision?: unknown; rule?: unknown } | undefined;
    bump(this.decisions, verdict?.decision ?? entry.decision);
    bump(this.rules, verdict?.rule ?? entry.rule);
    bump(this.callers, entry.caller);
    this.sha256 = sha256Hex(`${this.sha256}\n${JSON.stringify(entry)}`);
  }

  /** Another fold, taken whole (its chain enters this one as one line: `fold <its sha256>`). */
  absorb(other: Fold): void {
    if (other.entries === 0) return;
    if (this.entries === 0) {
      this.firstSeq = other.firstSeq;
      this.since = other.since;
    }
    this.entries += other.entries;
    this.messages += other.messages;
    this.firstSeq = Math.min(this.firstSeq, other.firstSeq);
    this.lastSeq = Math.max(this.lastSeq, other.lastSeq);
    this.since = other.since < this.since ? other.since : this.since;
    this.until = other.until > this.until ? other.until : this.until;
    for (const [field, counts] of [
      [this.types, other.types],
      [this.decisions, other.decisions],
      [this.rules, other.rules],
      [this.callers, other.callers],
    ] as const) {
      for (const [k, n] of Object.entries(counts)) {
        const key = Object.hasOwn(field, k) || Object.keys(field).length < MAX_KEYS ? k : "(other)";
        field[key] = (field[key] ?? 0) + n;
      }
    }
    this.sha256 = sha256Hex(`${this.sha256}\nfold ${other.sha256}`);
  }

  /** The summary as an audit entry (type "summary"), with the facts the caller adds. */
  entry(facts: Record<string, unknown>, detail: string): AuditEntry {
    const counted = (name: string, counts: Record<string, number>) => (Object.keys(counts).length > 0 ? { [name]: { ...counts } } : {});
    return {
      seq: this.firstSeq,
      time: this.since,
      type: "summary",
      ...facts,
      entries: this.entries,
      count: this.messages,
      firstSeq: this.firstSeq,
      lastSeq: this.lastSeq,
      since: this.since,
      until: this.until,
      ...counted("types", this.types),
      ...counted("decisions", this.decisions),
      ...counted("rules", this.rules),
      ...counted("callers", this.callers),
      sha256: this.sha256,
      detail,
    };
  }
}
