// A short, seeded round of the differential fuzzer (test/guard/fuzz.ts): random shell punctuation around a
// payload the guard refuses whenever it sees it, real bash as the judge. Every spelling the guard does not
// refuse must not run the payload in bash. Longer rounds: `npx tsx test/guard/fuzz.ts 100000`.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { fuzz } from "./fuzz.ts";

const bash = spawnSync("bash", ["--version"]).status === 0;

describe.skipIf(!bash)("differential fuzzing against real bash", () => {
  it.each([[1], [2], [3]])("finds no spelling that runs a command the guard did not see (seed %i, 400 spellings)", async (seed) => {
    const r = await fuzz(400, seed);
    expect(r.bypasses).toEqual([]);
    expect(r.ran).toBeGreaterThan(0);
  }, 120_000);
});
