// Table tests generated from the rule rows: every example must carry its rule, no near miss may.
import { describe, expect, it } from "vitest";
import { RULES } from "../../src/guard/index.ts";
import { expectWellFormed, guardFor } from "./helpers.ts";

describe.each(RULES.map((r) => [r.id, r] as const))("rule %s", (_id, row) => {
  it.each(row.examples.map((e) => [e]))("matches %j", async (command) => {
    const v = (await guardFor(row.policy)).check(command);
    expectWellFormed(v);
    expect({ rule: v.rule, reason: v.reason }).toMatchObject({ rule: row.id });
    expect(v.layer).toBe(row.layer);
  });

  if (row.nearMisses.length) {
    it.each(row.nearMisses.map((e) => [e]))("does not match the near miss %j", async (command) => {
      const v = (await guardFor(row.policy)).check(command);
      expectWellFormed(v);
      expect(v.rule).not.toBe(row.id);
    });
  }

  it("has a reason and a hint that a model can act on", () => {
    expect(row.reason.length).toBeGreaterThan(10);
    if (row.decision !== "allow") expect(row.hint.length).toBeGreaterThan(10);
  });
});

it("gives every rule a unique id", () => {
  const ids = RULES.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
});
