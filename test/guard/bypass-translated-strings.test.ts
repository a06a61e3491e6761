// A `$"…"` string is the string itself when nothing translates it (red team round 8). tree-sitter reads `$"…"` as a
// translated_string (or, inside a longer word, a `$` beside a string); the guard used to keep that `$` as text, so it
// judged `> $".bashrc"` as a write of ./$.bashrc and `> $"../F"` as a write of ./F, while bash writes .bashrc (run by
// the next interactive bash) and ../F (outside the directory). Each spelling is proved in real bash, then must not be
// allowed under balanced or strict. Translating the string (TEXTDOMAIN, TEXTDOMAINDIR) asks on its own
// (bypass-variable-setters.test.ts).
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
/** A workspace one level down: its parent, where the tripwire F is, is outside it. */
const INSIDE = "mkdir w && cd w";
const CONFIG = { balanced: "ask/config-write", strict: "deny/config-write" };
const OUTSIDE = { balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" };

const SPELLINGS: Spelling[] = [
  { setup: "", run: "echo 'touch F' > $\".bashrc\"", after: NEXT_BASH, ...CONFIG },
  { setup: "", run: "echo 'touch F' | tee .bash$\"rc\" >/dev/null", after: NEXT_BASH, ...CONFIG },
  { setup: "", run: "f=.bash$\"rc\"; echo 'touch F' > \"$f\"", after: NEXT_BASH, ...CONFIG },
  { setup: "", run: "f=$\".bashrc\"; echo 'touch F' >> $f", after: NEXT_BASH, ...CONFIG },
  { setup: INSIDE, run: 'echo x > $"../F"', ...OUTSIDE },
  { setup: INSIDE, run: 'printf x > $"../"F', ...OUTSIDE },
];

describe('a $"…" string is the string itself: its `$` is not part of a file name', () => {
  itWorksInRealBash(SPELLINGS);
  itIsNotAllowedAsWritten(SPELLINGS);
  it("strict: a read of a $\"…\" name outside the workspace is seen as one", async () => {
    expect((await guardFor("strict")).check('cat < $"/etc/passwd"')).toMatchObject({ decision: "ask", rule: "read-outside-workspace" });
  });
});

describe("what stays allowed", () => {
  // A `$` inside double quotes, or before a quote that closes a string, is a dollar sign.
  it.each(['echo $"hello world"', 'echo "$"x', 'echo "cost: $"5', 'echo x > "$".txt', 'echo x > out$"put".txt'])("%j is allowed under balanced", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
  it("real bash: `> \"$\".txt` writes a file named $.txt, `> out$\"put\".txt` one named output.txt", () => {
    expect(tripped('echo x > "$".txt; echo y > out$"put".txt; [ -f "\\$.txt" ] && [ -f output.txt ] && touch F')).toBe(true);
  });
});
