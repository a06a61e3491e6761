// An awk print statement goes on past a newline after `,`, `&&`, `||` (red team round 8, F1). The awk row asks for a
// `>` in a print statement (output to a file), but ended the statement at every newline, so `print "a",⏎"b" > "F"`
// read as a print followed by a comparison: allowed under balanced and strict, while awk wrote F (anywhere: .bashrc,
// outside the workspace). Each spelling is proved in real awk (the system's awk: mawk or gawk), then must not be
// allowed; honest programs spread over lines stay allowed.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, spellingScript, tripped } from "./tripwire.ts";
import { itIsNotAllowedAsWritten } from "./spelling-tests.ts";

/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
/** A workspace one level down: its parent, where the tripwire F is, is outside it. */
const INSIDE = "mkdir w && cd w";
const ASK = { balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" };

const SPELLINGS: Spelling[] = [
  { setup: "", run: "awk 'BEGIN { print \"a\",\n\"b\" > \"F\" }'", ...ASK },
  { setup: "", run: "awk 'BEGIN { printf \"%s\",\n\"x\" > \"F\" }'", ...ASK },
  { setup: "", run: "awk 'BEGIN { print 1 ||\n0 > \"F\" }'", ...ASK },
  { setup: "", run: "awk 'BEGIN { print 1 &&\n\n1 > \"F\" }'", ...ASK },
  { setup: "", run: "awk 'BEGIN { print \"a\", # a comment\n\"b\" > \"F\" }'", ...ASK },
  { setup: "", run: "awk 'BEGIN { print \"touch F\",\n\"\" > \".bashrc\" }'", after: NEXT_BASH, ...ASK },
  { setup: INSIDE, run: "awk 'BEGIN { print \"x\",\n\"y\" > \"../F\" }'", ...ASK },
];

describe("an awk print statement goes on past a newline after an operator", () => {
  it.each(SPELLINGS.map((s) => [s.run, s] as const))("works in real awk: %j", (_r, s) => {
    expect(tripped(spellingScript(s))).toBe(true);
  });
  itIsNotAllowedAsWritten(SPELLINGS);
});

describe("what stays allowed", () => {
  // A newline after an operand, or after a bare print, ends the statement: a `>` on the next line compares.
  const HONEST = [
    "awk '{ print $1,\n$2 }' x",
    "awk '{ print\n}' x",
    "awk '{ print $1\n  if ($2 > 3) n++ }' x",
    "awk 'NR == 1 { print\n  x = 1 }\n$1 > 5 { print }' x",
    "awk '{ print $1,\n  ($2 > 3) }' x",
  ];
  it.each(HONEST)("%j is allowed under balanced and strict", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
  it.each(HONEST)("real awk: %j writes no file", (c) => {
    expect(tripped(`printf '1 5\\n7 2\\n' > x; ${c} >/dev/null; [ "$(ls | wc -l)" = 1 ] || touch F`)).toBe(false);
  });
});
