// Under strict, names a `find` inside the workspace prints count as inside (xargs's input, `$(find …)`), but only its
// standard output was checked: its errors and warnings could join them (red team round 9, F1). `find -D tree` writes
// its whole expression to stderr, so a -name pattern such as '/etc/passwd x' becomes the word /etc/passwd once stderr
// goes into the pipe: `2>/dev/stdout`, `2>/dev/fd/1`, `|&` (`2>&1` already asked; it stays in the table). `find -D tree . -name '/etc/passwd
// x' 2>/dev/stdout | xargs -n1 cat` printed /etc/passwd unasked under strict. find's errors now count only when they
// go to a file (`2>/dev/null`, `2>>log`: a write, which strict asks about anyway), never to a device that may be its output. Each spelling is proved in real
// bash (the read lands in `out`, and `root:` in it is the tripwire), then must ask under strict; balanced allows reads
// anywhere (the OS sandbox hides the secrets).
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const PAT = "-name '/etc/passwd x'";
const SPELLINGS = [
  `find -D tree . ${PAT} 2>/dev/stdout | xargs -n1 cat`,
  `find -D tree . ${PAT} 2>/dev/fd/1 | xargs -n1 cat`,
  `find -D tree . ${PAT} |& xargs -n1 cat`,
  `find -D tree . ${PAT} 2>/dev/stdout | sort | xargs -n1 cat`,
  `cat -- $(find -D tree . ${PAT} 2>/dev/stdout)`,
  `cat -- $(find -D tree . ${PAT} 2>&1)`,
];

/** The command's output into `out`; the tripwire is the outside file's first line there. */
const proof = (run: string) => `${run} > out 2>/dev/null; grep -q '^root:' out && touch F`;

describe("find's errors joined its names: an outside path in find -D's output was read under strict", () => {
  it.each(SPELLINGS)("works in real bash: %j", (run) => {
    expect(tripped(proof(run))).toBe(true);
  });
  it.each(SPELLINGS)("asks under strict and stays allowed under balanced: %j", async (run) => {
    const st = (await guardFor("strict")).check(run);
    expect(`${st.decision}/${st.rule}`).toBe("ask/read-unknown-path");
    expect((await guardFor("balanced")).check(run)).toMatchObject({ decision: "allow" });
  });
  it("real bash: with its errors in /dev/null the same find prints only names, and nothing outside is read", () => {
    expect(tripped(proof(`find -D tree . ${PAT} 2>/dev/null | xargs -n1 cat`))).toBe(false);
  });
});

describe("what stays allowed under strict", () => {
  it.each([
    "find . -name '*.c' 2>/dev/null | xargs wc -l", "find src -type f 2>/dev/null | sort | xargs cat", "find . -name '*.md' | xargs cat",
    "cat $(find . -name '*.foo' 2>/dev/null)", "git ls-files 2>/dev/null | xargs wc -l",
  ])("%j", async (c) => {
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "allow" });
  });
});
