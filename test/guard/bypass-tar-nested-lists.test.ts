// Under strict `tar -tf x.tar -T list` was allowed as reading only x.tar and list, both inside (red team round 9, F3).
// But GNU tar takes options in a -T list's lines: a line `-T /etc/passwd` reads /etc/passwd as a further list, and
// tar prints each of its lines back (`tar: root\:x\:0…: Not found in archive`), so a list in the workspace read an
// outside file unasked. The files a -T list names are now unknown reads (strict asks), unless --verbatim-files-from
// comes before it: then every line is a name. Proved in real bash (the outside file's first line in tar's output is
// the tripwire); balanced allows reads anywhere.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const SETUP = "echo a > a && tar -cf x.tar a && printf -- '-T /etc/passwd\\n' > list";
const proof = (run: string) => `${SETUP}\n${run} > out 2>&1; grep -q 'daemon' out && touch F`;
const SPELLINGS = ["tar -tf x.tar -T list", "tar -tf x.tar --files-from=list", "tar tf x.tar -T list", "tar -tvf x.tar --no-verbatim-files-from -T list"];

describe("a tar -T list may name another list: the files it reads are not known", () => {
  it.each(SPELLINGS)("works in real bash: %j", (run) => {
    expect(tripped(proof(run))).toBe(true);
  });
  it.each(SPELLINGS)("asks under strict and stays allowed under balanced: %j", async (run) => {
    const st = (await guardFor("strict")).check(run);
    expect(`${st.decision}/${st.rule}`).toBe("ask/read-unknown-path");
    expect((await guardFor("balanced")).check(run)).toMatchObject({ decision: "allow" });
  });
  it("real bash: with --verbatim-files-from the line is a name, and nothing else is read", () => {
    expect(tripped(proof("tar -tf x.tar --verbatim-files-from -T list"))).toBe(false);
  });
  it.each(["tar -tf x.tar --verbatim-files-from -T list", "tar -tf x.tar -X list", "tar -tzf x.tgz src/a.ts"])("%j stays allowed under strict", async (c) => {
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "allow" });
  });
});
