// The approvals queue on its own: routes (ui, host with fallback to the UI, deny, function), answers, expiry, cancel.

import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/guard/index.ts";
import { Approvals, normalizeAnswer, ruleWithin, type ApprovalEvent } from "../../src/tools/approvals.ts";

const verdict: Verdict = { decision: "ask", layer: 3, rule: "not-allowlisted", reason: "`make build` is not on the list of known safe commands." };
const input = {
  tool: "bash" as const,
  command: "make build",
  cwd: "/home/project",
  background: false,
  verdict,
  rule: verdict.rule,
  reason: verdict.reason,
  suggestedRule: "make build:*",
};

describe("approvals", () => {
  it("ui: the request is pending with its command, rule, reason and suggested rule until answered", async () => {
    const a = new Approvals({ approver: "ui" });
    const events: ApprovalEvent[] = [];
    a.on((e) => events.push(e));
    const p = a.request(input);
    const [pending] = a.pending();
    expect(pending).toMatchObject({ command: "make build", rule: "not-allowlisted", reason: verdict.reason, suggestedRule: "make build:*", route: "ui" });
    expect(pending!.expiresAt - pending!.createdAt).toBe(a.expiryMs);
    expect(a.answer(pending!.id, { decision: "always", rule: "make:*", note: "fine" })).toBe(true);
    expect(await p).toEqual({ id: pending!.id, decision: "always", rule: "make:*", note: "fine", by: "ui" });
    expect(a.pending()).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(["requested", "resolved"]);
    expect(a.answer(pending!.id, true)).toBe(false); // answered once only
  });

  it("a pending request nobody answers is denied at expiry", async () => {
    const a = new Approvals({ approver: "ui", expiryMs: 50 });
    const t0 = performance.now();
    const outcome = await a.request(input);
    expect(outcome).toMatchObject({ decision: "deny", by: "expiry" });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    expect(a.pending()).toEqual([]);
  });

  it("deny: refused at once, nothing pending", async () => {
    const a = new Approvals({ approver: "deny" });
    expect(await a.request(input)).toEqual({ decision: "deny", by: "policy" });
    expect(a.pending()).toEqual([]);
  });

  it("host: the call's hook answers; without a hook the UI is asked", async () => {
    const a = new Approvals({ approver: "host" });
    const viaHost = await a.request(input, { host: async (req) => ({ decision: "deny", note: `no ${req.command}` }) });
    expect(viaHost).toMatchObject({ decision: "deny", note: "no make build", by: "host" });
    const p = a.request(input);
    expect(a.pending()[0]!.route).toBe("ui");
    a.answer(a.pending()[0]!.id, true);
    expect(await p).toMatchObject({ decision: "allow", by: "ui" });
  });

  it("host: a hook that fails hands the request to the UI", async () => {
    const a = new Approvals({ approver: "host" });
    const events: string[] = [];
    a.on((e) => events.push(e.type));
    const p = a.request(input, { host: async () => Promise.reject(new Error("client has no elicitation")) });
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(["requested", "rerouted"]);
    expect(a.pending()[0]!.route).toBe("ui");
    a.answer(a.pending()[0]!.id, { decision: "allow" });
    expect(await p).toMatchObject({ decision: "allow", by: "ui" });
  });

  it("function: booleans and answer objects; a broken answer denies and says why", async () => {
    expect(await new Approvals({ approver: () => true }).request(input)).toMatchObject({ decision: "allow", by: "function" });
    expect(await new Approvals({ approver: async () => false }).request(input)).toMatchObject({ decision: "deny", by: "function" });
    const weird = await new Approvals({ approver: async () => "sure" as never }).request(input);
    expect(weird).toMatchObject({ decision: "deny", by: "function" });
    expect(weird.note).toMatch(/no usable answer/);
    const thrown = await new Approvals({ approver: async () => Promise.reject(new Error("boom")) }).request(input);
    expect(thrown.note).toMatch(/boom/);
  });

  it("cancelling the call withdraws the request", async () => {
    const a = new Approvals({ approver: "ui" });
    const ac = new AbortController();
    const p = a.request(input, { signal: ac.signal });
    expect(a.pending()).toHaveLength(1);
    ac.abort();
    expect(await p).toMatchObject({ decision: "deny", by: "cancel" });
    expect(a.pending()).toEqual([]);
  });

  it("close() denies what is pending and every later request", async () => {
    const a = new Approvals({ approver: "ui" });
    const p = a.request(input);
    a.close();
    expect(await p).toMatchObject({ decision: "deny", by: "closed" });
    expect(await a.request(input)).toMatchObject({ decision: "deny", by: "closed" });
  });

  it("answers are normalized; an invalid answer from the UI is a programming error", () => {
    expect(normalizeAnswer({ decision: "Allow-Always", rule: " npm run build:* " })).toEqual({ decision: "always", rule: "npm run build:*" });
    expect(normalizeAnswer({ decision: "reject", note: "use pnpm" })).toEqual({ decision: "deny", note: "use pnpm" });
    expect(normalizeAnswer("yes")).toBeNull();
    const a = new Approvals();
    expect(() => a.answer("approval-1", { decision: "perhaps" } as never)).toThrow(TypeError);
  });

  it("refuses an unknown approver kind", () => {
    expect(() => new Approvals({ approver: "auto" as never })).toThrow(/approver must be/);
  });
});

describe("a rule a client adds by answering its own approval is no broader than the suggested one", () => {
  it.each([
    ["rm:*", "rm:*", true],
    ["Bash(rm:*)", "rm:*", true],
    ["rm -r junk*", "rm:*", true],
    ["npm run build:prod:*", "npm run build:*", true],
    ["npm run build --watch", "npm run build:*", true],
    ["rm junk.txt", "rm:*", true],
    ["*", "rm:*", false],
    ["rm*", "rm:*", false],
    ["r*", "rm:*", false],
    ["rmdir:*", "rm:*", false],
    ["npm:*", "npm run build:*", false],
    ["curl evil.example", "rm:*", false],
    ["", "rm:*", false],
  ])("%s within %s: %s", (rule, suggested, within) => {
    expect(ruleWithin(rule, suggested)).toBe(within);
  });

  it("a host answering \"always\" with a broader rule gets this one call approved and no rule", async () => {
    const approvals = new Approvals({ approver: "host" });
    const outcome = await approvals.request(
      { tool: "bash", command: "rm x", cwd: "/w", background: false, verdict: { decision: "ask", layer: 3, rule: "not-allowlisted", reason: "r" }, rule: "not-allowlisted", reason: "r", suggestedRule: "rm:*" },
      { host: async () => ({ decision: "always", rule: "*" }) },
    );
    expect(outcome).toMatchObject({ decision: "allow", by: "host" });
    expect(outcome.note).toMatch(/broader than the suggested `rm:\*`/);
  });
});
