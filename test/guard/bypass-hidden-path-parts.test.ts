// A part of a written path the guard cannot see may hold `/` and `..` (red team round 8, F3). The guard allowed a
// write whose name had an unseen part when the folder before it was writable: `> ./"$f"`, `tee src/"$(cat n)"`,
// `> /tmp/$NAME`, `> "$HOME/$f"`. But f=.bashrc writes the shell's startup file, f=.git/config git's config, and
// f=../../x climbs out of the workspace (or out of /tmp into it). Such a write now asks (unknown-write-target), unless
// every unseen part is a number (`/tmp/out.$$`, `$?`, `$((…))`); a number-named file in a configuration folder
// (`.git/out.$$`) is configuration. Each spelling is proved in real bash, then must not be allowed under balanced;
// strict asks for every write anyway.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
/** A workspace one level down: its parent, where the tripwire F is, is outside it. */
const INSIDE = "mkdir w && cd w";
const UNKNOWN = { balanced: "ask/unknown-write-target", strict: "ask/unknown-write-target" };

const SPELLINGS: Spelling[] = [
  { setup: "echo .bashrc > n", run: "echo 'touch F' > ./\"$(cat n)\"", after: NEXT_BASH, ...UNKNOWN },
  { setup: "echo .bashrc > n", run: "f=$(cat n); echo 'touch F' | tee ./\"$f\" >/dev/null", after: NEXT_BASH, ...UNKNOWN },
  { setup: "echo .bash > n", run: "echo 'touch F' > \"$HOME/$(cat n)rc\"", after: NEXT_BASH, ...UNKNOWN },
  { setup: "printf '#touch F\\n' > .bashrc; echo .bashrc > n", run: "sed -i 's/^#//' ./\"$(cat n)\"", after: NEXT_BASH, ...UNKNOWN },
  {
    setup: "git init -q . && echo config > n",
    run: "printf '[core]\\n\\tfsmonitor = touch F\\n' >> ./.git/\"$(cat n)\"",
    after: "git status >/dev/null 2>&1",
    balanced: "ask/unknown-write-target",
    strict: "deny/config-write",
  },
  { setup: `${INSIDE} && echo ../F > n`, run: 'echo x > ./"$(cat n)"', ...UNKNOWN },
  { setup: `${INSIDE} && mkdir src && echo ../../F > n`, run: 'touch src/"$(cat n)"', ...UNKNOWN },
  // out of /tmp (the scratch folder) into the workspace, or anywhere
  { setup: 'echo "..$PWD/F" > n', run: 'echo x > /tmp/"$(cat n)"', ...UNKNOWN },
];

describe("a part of a written path the guard cannot see may climb out of its folder or name configuration", () => {
  itWorksInRealBash(SPELLINGS);
  itIsNotAllowedAsWritten(SPELLINGS);
  it("a number-named file in a configuration folder is configuration", async () => {
    expect((await guardFor("balanced")).check("echo x > .git/out.$$")).toMatchObject({ decision: "ask", rule: "config-write" });
  });
});

describe("what stays allowed under balanced", () => {
  // A number holds no `/`: the file stays in the folder written before it.
  const HONEST = ["echo x > /tmp/out.$$", "echo x > /tmp/log.$?", 'echo x > "$HOME/out"', 'echo "$X" > out', "sort x > /tmp/s.$$.$((2 * 3))", "echo x > build/run-$#.log"];
  it.each(HONEST)("%j is allowed under balanced (strict asks: it writes)", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "ask", rule: "strict-write" });
  });
  it("real bash: $$, $?, $# and $((…)) expand to digits only", () => {
    expect(tripped('set -- a b; false; v="$$$?$#$((2 * 3))"; [[ $v =~ ^[0-9]+$ ]] && touch F')).toBe(true);
  });
  it("find's {} and xargs' replacement stay judged by their own rows (layer 3), not as shell expansions", async () => {
    expect((await guardFor("balanced")).check("find . -name x -exec sed -i s/a/b/ {} \\;")).toMatchObject({ decision: "ask", rule: "not-allowlisted" });
    expect((await guardFor("balanced")).check("xargs -I{} touch ./{} < list")).toMatchObject({ decision: "ask", rule: "not-allowlisted" });
  });
});
