// `sed -iSUFFIX` writes a backup, FILE + SUFFIX, beside each file it edits (red team round 8, F2). The guard judged
// only the edited files as writes, and only the first -i's suffix: `sed -irc 's/^//' .bash` copied .bash to .bashrc
// (run by the next interactive bash) and `sed -i -i'../*' …` put the backup outside the directory, both allowed under
// balanced. The backups are now written files, judged by layer 2 and the config-write rule, and every -i's suffix is
// checked. Each spelling is proved in real bash (GNU sed), then must not be allowed under balanced; strict asks for
// every -i anyway.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
/** A workspace one level down, with a file F: its backup ../F is the tripwire, outside. */
const INSIDE_F = "mkdir w && cd w && echo a > F";
const RC = "printf 'touch F\\n' > .bash";
const CONFIG = { balanced: "ask/config-write", strict: "deny/config-write" };

const SPELLINGS: Spelling[] = [
  { setup: RC, run: "sed -irc 's/^//' .bash", after: NEXT_BASH, ...CONFIG },
  { setup: RC, run: "sed --in-place=rc 's/^//' .bash", after: NEXT_BASH, ...CONFIG },
  { setup: RC, run: "sed -irc 's/^//' .ba*", after: NEXT_BASH, ...CONFIG },
  { setup: RC, run: "sed -i -irc -e 's/^//' .bash", after: NEXT_BASH, ...CONFIG },
  { setup: INSIDE_F, run: "sed -i -i'../*' 's/^//' F", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
  { setup: `${INSIDE_F}; S='../*'`, run: "sed -i\"$S\" 's/^//' F", balanced: "ask/unknown-write-target", strict: "deny/not-allowlisted" },
];

describe("sed -iSUFFIX writes FILE + SUFFIX: the backup is a written file", () => {
  itWorksInRealBash(SPELLINGS);
  itIsNotAllowedAsWritten(SPELLINGS);
});

describe("what stays allowed under balanced", () => {
  const HONEST = ["sed -i.bak s/a/b/ x", "sed -i~ s/a/b/ x", "sed --in-place=.orig -e s/a/b/ x", "sed -i s/a/b/ x", "sed -i -e s/a/b/ x y"];
  it.each(HONEST)("%j is allowed under balanced (strict asks: it writes)", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "ask", rule: "strict-write" });
  });
  it("real bash: `sed -i.bak` writes x.bak beside x, nothing else", () => {
    expect(tripped("echo a > x; sed -i.bak s/a/b/ x; [ \"$(ls | tr '\\n' ' ')\" = 'x x.bak ' ] && [ \"$(cat x)\" = b ] && touch F")).toBe(true);
  });
});
