import { expect } from "vitest";
import { createGuard, type Guard, type GuardOptions, type Policy, type Verdict } from "../../src/guard/index.ts";

const cache = new Map<string, Promise<Guard>>();

/** One guard per policy (and options), created once per test file: createGuard loads the parser. */
export function guardFor(policy: Policy = "balanced", options: Omit<GuardOptions, "policy"> = {}): Promise<Guard> {
  const key = policy + JSON.stringify(options);
  let g = cache.get(key);
  if (!g) cache.set(key, (g = createGuard({ ...options, policy })));
  return g;
}

export function expectWellFormed(v: Verdict): void {
  expect(["allow", "ask", "deny"]).toContain(v.decision);
  expect([0, 1, 2, 3]).toContain(v.layer);
  expect(typeof v.rule).toBe("string");
  expect(v.rule.length).toBeGreaterThan(0);
  expect(typeof v.reason).toBe("string");
  expect(v.reason.length).toBeGreaterThan(0);
  if (v.hint !== undefined) expect(typeof v.hint).toBe("string");
  if (v.part !== undefined) expect(typeof v.part).toBe("string");
  expect(Object.keys(v).every((k) => ["decision", "layer", "rule", "reason", "hint", "part"].includes(k))).toBe(true);
}
