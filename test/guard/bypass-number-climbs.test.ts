// A written path whose unseen part is only a number stays in the folder before it (red team round 8, F3): true of the
// number, not of what follows it (red team round 9, F5). `..` after the number climbs back over it and out of that
// folder: `echo x > /tmp/$!/../../var/tmp/x` wrote /var/tmp/x, and `echo x > ./$!/../F` the workspace's parent (`$!` is
// empty before a background job, so no folder has to exist; with `$$`, `mkdir $$` first), all allowed under balanced,
// while `echo x > ../F` is refused (write-outside-workspace). Such a word now asks (unknown-write-target). Each
// spelling is proved in real bash from a workspace one level down (w): the tripwire F lands outside it.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

const IN_W = "mkdir w && cd w";
const ASKS = { balanced: "ask/unknown-write-target", strict: "ask/unknown-write-target" };
const SPELLINGS: Spelling[] = [
  { setup: IN_W, run: "echo x > ./$!/../F", ...ASKS },
  { setup: `${IN_W} && mkdir $$`, run: "echo x > ./$$/../../F", ...ASKS },
  { setup: IN_W, run: "touch ./$!/../F", ...ASKS },
  { setup: IN_W, run: "mkdir -p ./$!/../F", ...ASKS },
  { setup: IN_W, run: "tee ./$!/../F < /dev/null", ...ASKS },
  { setup: `${IN_W} && mkdir a1`, run: "echo x > ./a$((1))/../../F", ...ASKS },
];

describe("a `..` after a number climbs out of the folder before it", () => {
  itWorksInRealBash(SPELLINGS);
  itIsNotAllowedAsWritten(SPELLINGS);
  it("absolute: /tmp/$!/../../var/tmp/x is not allowed under balanced", async () => {
    expect((await guardFor("balanced")).check("echo x > /tmp/$!/../../var/tmp/x")).toMatchObject({ decision: "ask", rule: "unknown-write-target" });
  });
});

describe("what stays allowed under balanced", () => {
  it.each(["echo x > /tmp/out.$$", "mkdir -p /tmp/$$ && echo x > /tmp/$$/out", "echo x > /tmp/log.$?", "echo x > ./a..$$", "echo x > ./out.$((1))"])("%j", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow" });
  });
});
