// The NL2Bash corpus (12,607 real commands, MIT): no literal-guard false positive, no throw, every
// verdict well-formed, at least 6,000 allowed under balanced, and a printed count by rule so that over-strict
// rules show.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { looksLikePythonLiteralArgument } from "../../src/guard/index.ts";
import { expectWellFormed, guardFor } from "./helpers.ts";

const CORPUS = fileURLToPath(new URL("../../../shared/corpora/nl2bash/all.cm", import.meta.url));
const present = existsSync(CORPUS);

describe.skipIf(!present)("NL2Bash corpus (../shared/corpora/nl2bash/all.cm)", () => {
  const lines = present ? readFileSync(CORPUS, "utf8").split("\n").filter((l) => l.trim() !== "") : [];

  it("has all 12,607 commands", () => {
    expect(lines.length).toBe(12_607);
  });

  it("raises zero literal-argument flags", () => {
    expect(lines.filter((l) => looksLikePythonLiteralArgument(l) !== null)).toEqual([]);
  });

  it("judges every command with a well-formed verdict and no throw, and prints the counts by rule", async () => {
    const g = await guardFor();
    const counts = new Map<string, number>();
    const refused: string[] = [];
    for (const line of lines) {
      const v = g.check(line);
      expectWellFormed(v);
      if (v.rule === "too-complex") refused.push(`${line}  →  ${v.reason}`);
      const key = `${v.decision.padEnd(5)} L${v.layer} ${v.rule}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const table = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${String(n).padStart(6)}  ${k}`);
    console.log(`NL2Bash verdicts under balanced (${lines.length} commands):\n${table.join("\n")}`);
    // The only commands the guard refuses to judge are those tree-sitter misreads (two backtick substitutions
    // that the fast path cannot take); nothing is too deep or makes it throw.
    expect(refused.every((r) => r.includes("backtick"))).toBe(true);
    expect(refused.length).toBeLessThanOrEqual(5);
    // Asking for everything is not safety: at least 6,000 of these real commands run unasked under balanced.
    const allowed = [...counts].filter(([k]) => k.startsWith("allow")).reduce((n, [, c]) => n + c, 0);
    expect(allowed).toBeGreaterThanOrEqual(6_000);
  }, 120_000);
});

describe.runIf(!present)("NL2Bash corpus", () => {
  it.skip("skipped: ../shared/corpora/nl2bash/all.cm is not here (it is in CI; see README)", () => {});
});
