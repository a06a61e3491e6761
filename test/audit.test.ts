// The audit log module on its own: SHA-256 against node:crypto, rooms that never evict each other, floods folded into
// one entry per origin per window.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AuditLog, auditCommand } from "../src/audit/log.ts";
import { sha256Hex } from "../src/audit/sha256.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("audit log", () => {
  it("sha256Hex agrees with node:crypto on block edges, unicode and a megabyte", () => {
    for (const s of ["", "abc", "x".repeat(55), "x".repeat(56), "x".repeat(64), "é€😀".repeat(300), "y".repeat(1_000_001)]) {
      expect(sha256Hex(s)).toBe(createHash("sha256").update(s).digest("hex"));
    }
  });

  it("a command longer than the bound is kept as its length, SHA-256 and head; a shorter one whole", () => {
    expect(auditCommand("echo hi", { maxCommandChars: 10, maxTextChars: 4 })).toBe("echo hi");
    expect(auditCommand("echo hello world", { maxCommandChars: 10, maxTextChars: 4 })).toEqual({
      chars: 16,
      sha256: sha256Hex("echo hello world"),
      head: "echo",
    });
  });

  it("a flood of calls evicts only activity, never a verdict; junk evicts only noise", () => {
    const log = new AuditLog({ maxEntries: 5, maxActivityEntries: 10, maxNoiseEntries: 3, floodWindowMs: 1 });
    const v = log.record("verdict", { command: "rm -rf x", verdict: { decision: "ask" } })!;
    for (let i = 0; i < 1_000; i++) log.record("call", { tool: "read_file", args: { path: `f${i}` } });
    expect(log.room("activity")).toHaveLength(10);
    expect(log.entries().find((e) => e.seq === v.seq)).toEqual(v);
    log.close();
  });

  it("ignored or refused messages from one origin: the first, then one summary per window with the count", async () => {
    const log = new AuditLog({ floodWindowMs: 50 });
    const seen: string[] = [];
    log.on((e) => seen.push(String(e.event)));
    for (let i = 0; i < 1_000; i++) log.record("event", { event: "api.ignored", origin: "http://evil.test", detail: `junk ${i}` });
    log.record("event", { event: "api.rejected", origin: "http://other.test", detail: "not allowed" });
    expect(log.room("noise")).toHaveLength(2); // one each origin so far
    await sleep(80);
    const noise = log.room("noise");
    expect(noise.find((e) => e.event === "api.flood" && e.origin === "http://evil.test")).toMatchObject({ count: 999, events: { "api.ignored": 999 } });
    await sleep(120); // a quiet window ends the flood: the next message is an entry of its own at once
    log.record("event", { event: "api.ignored", origin: "http://evil.test", detail: "later" });
    expect(log.room("noise").at(-1)).toMatchObject({ detail: "later", count: 1 });
    expect(seen.filter((e) => e === "api.flood")).toHaveLength(1);
    log.close();
  });
});
