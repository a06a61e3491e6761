// The audit log: what every caller did, kept so that no caller can flush it or blind it.
//
// - Three rooms, each with its own bound, so that one kind of entry never evicts another:
//     security  verdicts, approvals, added rules, input sent to a running command, file writes (write_file,
//               edit_file calls and results): per origin (all connections of one page are one principal) and per
//               caller within it, each with its own bound (security.ts)
//     activity  calls, results, connections and other events (AUDIT.maxActivityEntries, AUDIT.maxActivityChars)
//     noise     messages ignored or refused (AUDIT.maxNoiseEntries), kept per origin class (noise.ts)
//   A page that floods the sandbox with junk fills at most the noise room; a caller that floods calls fills at most
//   the activity room and its own origin's part of the security room; none reaches another origin's verdict.
// - What a bound pushes out is summarised, never dropped without a trace: one `summary` entry per caller (or origin
//   class) with the count, the kinds and a SHA-256 chain over the entries it stands for (fold.ts).
// - Ignored or refused messages are counted per origin: the first in a window is recorded, the rest of the window's
//   become one summary entry with the count (at most one entry per origin per AUDIT.floodWindowMs).
// - Commands, is_input text, a raw argument string and a file's content (content, old_str, new_str) are recorded whole
//   up to AUDIT.maxCommandChars; a longer one as its length, its SHA-256 and its head. Other strings keep
//   AUDIT.maxTextChars.
// - Merged, entries come out in the order they were recorded (seq).

import { AUDIT } from "../limits.ts";
import { headOf } from "../lib/text.ts";
import { sha256Hex } from "./sha256.ts";
import { Fifo } from "../lib/fifo.ts";
import { Listeners } from "../lib/listeners.ts";
import { NoiseRoom } from "./noise.ts";
import { SecurityRoom } from "./security.ts";

/** `summary`: entries a bound pushed out, folded into one (never recorded by a caller). */
export type AuditType = "call" | "verdict" | "approval" | "rule" | "result" | "event" | "input" | "summary";
export type AuditRoom = "security" | "activity" | "noise";

/** One line of the audit log. Further fields by type: see docs/THREAT_MODEL.md ("Audit log"). */
export interface AuditEntry {
  seq: number;
  /** ISO 8601. */
  time: string;
  type: AuditType;
  callId?: string;
  caller?: string;
  tool?: string;
  [key: string]: unknown;
}

export interface AuditLimits {
  maxEntries: number;
  maxEntriesPerCaller: number;
  maxOrigins: number;
  maxCallersPerOrigin: number;
  maxSecurityChars: number;
  maxCallerChars: number;
  maxActivityEntries: number;
  maxActivityChars: number;
  maxNoiseEntries: number;
  maxTextChars: number;
  maxCommandChars: number;
  floodWindowMs: number;
}

/** API events that a hostile page can cause at will: counted per origin, never one entry each. */
export const FLOOD_EVENTS: ReadonlySet<string> = new Set(["api.ignored", "api.rejected", "api.error-reply"]);

/**
 * Fields that hold a command as it runs (or would), a raw argument string (`args` as a string), or what a file tool
 * writes: kept whole up to maxCommandChars, longer as length + SHA-256 + head.
 */
const COMMAND_KEYS = new Set(["command", "input", "args", "content", "old_str", "new_str"]);

const SECURITY_TYPES: ReadonlySet<AuditType> = new Set(["verdict", "approval", "rule", "input"]);
/** Tools that change files: their calls and results are security entries. */
const WRITE_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

export function roomOf(type: AuditType, data: Record<string, unknown>): AuditRoom {
  if (SECURITY_TYPES.has(type)) return "security";
  if ((type === "call" || type === "result") && typeof data.tool === "string" && WRITE_TOOLS.has(data.tool)) return "security";
  if (type === "event" && typeof data.event === "string" && FLOOD_EVENTS.has(data.event)) return "noise";
  return "activity";
}

/** A command as the log keeps it: whole, or (longer than the limit) its length, SHA-256 and head. */
export function auditCommand(text: string, limits: Pick<AuditLimits, "maxCommandChars" | "maxTextChars"> = AUDIT): string | Record<string, unknown> {
  if (text.length <= limits.maxCommandChars) return text;
  return { chars: text.length, sha256: sha256Hex(text), head: headOf(text, limits.maxTextChars) };
}

/** A copy safe to keep: commands whole (or hashed), other long strings cut, depth bounded, cycles broken. */
export function auditValue(value: unknown, limits: AuditLimits = AUDIT, key = "", depth = 0): unknown {
  if (typeof value === "string") {
    if (COMMAND_KEYS.has(key)) return auditCommand(value, limits);
    return value.length > limits.maxTextChars ? `${headOf(value, limits.maxTextChars)}… [${value.length} characters]` : value;
  }
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (depth >= 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => auditValue(v, limits, "", depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 100)) out[k] = auditValue(v, limits, k, depth + 1);
  return out;
}

interface FloodWindow {
  origin: string;
  count: number;
  events: Record<string, number>;
  /** JSON-RPC error codes answered, by code. */
  codes: Record<string, number>;
  last: Record<string, unknown>;
  timer: ReturnType<typeof setTimeout>;
}

export class AuditLog {
  readonly limits: AuditLimits;
  private readonly security: SecurityRoom;
  private readonly activity = new Fifo<{ entry: AuditEntry; chars: number }>();
  private activityChars = 0;
  private readonly noise: NoiseRoom;
  private readonly listeners = new Listeners<AuditEntry>("activity");
  private readonly floods = new Map<string, FloodWindow>();
  private seq = 0;
  private closed = false;

  constructor(limits: Partial<AuditLimits> = {}) {
    this.limits = { ...AUDIT, ...limits };
    this.security = new SecurityRoom(this.limits);
    this.noise = new NoiseRoom(this.limits.maxNoiseEntries);
  }

  /** Records an entry (a flood event may be folded into its origin's next summary instead: then null). */
  record(type: AuditType, data: Record<string, unknown>): AuditEntry | null {
    if (type === "event" && typeof data.caller === "string") {
      // The API says where each connection came from: its security entries belong to that origin (security.ts).
      if (data.event === "api.connected" && typeof data.origin === "string") this.security.principal(data.caller, data.origin);
      else if (data.event === "api.disconnected" || data.event === "api.reclaimed") this.security.forget(data.caller);
    }
    const room = roomOf(type, data);
    if (room === "noise") return this.flood(data);
    return this.add(room, type, data);
  }

  entries(): AuditEntry[] {
    const all = [...this.security.entries(), ...this.activityEntries(), ...this.noise.entries()];
    return all.sort((a, b) => a.seq - b.seq).map((e) => ({ ...e }));
  }

  room(room: AuditRoom): AuditEntry[] {
    const list = room === "security" ? this.security.entries() : room === "activity" ? this.activityEntries() : this.noise.entries();
    return list.sort((a, b) => a.seq - b.seq).map((e) => ({ ...e }));
  }

  exportJsonl(): string {
    const all = this.entries();
    return all.map((e) => JSON.stringify(e)).join("\n") + (all.length > 0 ? "\n" : "");
  }

  private activityEntries(): AuditEntry[] {
    return this.activity.toArray().map((k) => k.entry);
  }

  on(listener: (entry: AuditEntry) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Writes every open flood summary now and stops the timers. */
  close(): void {
    for (const key of [...this.floods.keys()]) this.flushFlood(key, false);
    this.closed = true;
  }

  private add(room: AuditRoom, type: AuditType, data: Record<string, unknown>): AuditEntry {
    const entry: AuditEntry = { seq: ++this.seq, time: new Date().toISOString(), type, ...(auditValue(data, this.limits) as Record<string, unknown>) };
    if (room === "security") {
      this.security.add(typeof entry.caller === "string" ? entry.caller : undefined, entry, JSON.stringify(entry).length);
    } else if (room === "noise") {
      this.noise.add(typeof entry.origin === "string" ? entry.origin : "unknown", entry);
    } else {
      const chars = JSON.stringify(entry).length;
      this.activity.push({ entry, chars });
      this.activityChars += chars;
      while (this.activity.length > 1 && (this.activity.length > this.limits.maxActivityEntries || this.activityChars > this.limits.maxActivityChars)) {
        this.activityChars -= this.activity.shift()!.chars;
      }
    }
    this.listeners.emit(entry);
    return entry;
  }

  private flood(data: Record<string, unknown>): AuditEntry | null {
    const origin = typeof data.origin === "string" ? data.origin : typeof data.caller === "string" ? `connection ${data.caller}` : "unknown";
    const event = String(data.event);
    const open = this.floods.get(origin);
    if (open !== undefined) {
      open.count++;
      open.events[event] = (open.events[event] ?? 0) + 1;
      if (typeof data.code === "number") open.codes[String(data.code)] = (open.codes[String(data.code)] ?? 0) + 1;
      open.last = data;
      return null;
    }
    const entry = this.add("noise", "event", { ...data, origin, count: 1 });
    if (!this.closed) this.openWindow(origin);
    return entry;
  }

  private openWindow(origin: string): void {
    const timer = setTimeout(() => this.flushFlood(origin, true), this.limits.floodWindowMs);
    (timer as { unref?: () => void }).unref?.();
    this.floods.set(origin, { origin, count: 0, events: {}, codes: {}, last: {}, timer });
  }

  private flushFlood(origin: string, reopen: boolean): void {
    const w = this.floods.get(origin);
    if (w === undefined) return;
    clearTimeout(w.timer);
    this.floods.delete(origin);
    if (w.count === 0) return; // a quiet window ends the flood
    this.add("noise", "event", {
      event: "api.flood",
      origin,
      count: w.count,
      events: w.events,
      ...(Object.keys(w.codes).length > 0 ? { codes: w.codes } : {}),
      windowMs: this.limits.floodWindowMs,
      detail: `${w.count} more message${w.count === 1 ? "" : "s"} ignored or refused from ${origin}; the last: ${String(w.last.detail ?? "")}`,
    });
    if (reopen && !this.closed) this.openWindow(origin);
  }
}
