// Read-only commands that used to ask (red team round 6, false asks): a version check, git's listings and config
// reads, listing or decompressing an archive to stdout. Each runs unasked under balanced and strict; the forms of the
// same programs that write, run a program or read code from the terminal still ask.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const has = (program: string): boolean => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

const ALLOWED = [
  "python3 --version", "python3 -V", "python --version", "perl -v", "perl -V", "ruby --version", "ruby -v", "node --version", "node -v", "npm -v",
  "git stash list", "git stash show -p", "git worktree list", "git config --get user.name", "git config -l", "git config --global --list",
  "git config user.email", "git config list", "git grep -n foo", "git grep -e a --and -e b -- src", 'git grep -e "$X"', "git remote get-url origin",
  "git submodule status",
];

const STILL_ASKED = [
  // python3 -v is verbose mode: with no program it reads one from the terminal
  "python3 -v", "python3 -i", "xargs python3 --version < list",
  "git stash", "git stash -q list", "git stash pop", "git stash list --output=/tmp/x", "git worktree add x", "git config user.name x",
  "git config --unset user.name", "git config edit", "git config -e", "git config --add a.b c", "git grep -O foo", "git grep -Ovi foo",
  "git grep --open-files-in-pager=vi foo", "git grep --textconv foo", "git grep $X", "git remote add x y", "git submodule update", "git submodule",
];

describe("read-only commands run unasked", () => {
  it.each(ALLOWED)("%j is allowed under balanced and strict", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
  it.each(STILL_ASKED)("%j is not allowed", async (c) => {
    expect((await guardFor("balanced")).check(c).decision).not.toBe("allow");
    expect((await guardFor("strict")).check(c).decision).not.toBe("allow");
  });
});

describe("a version check reads no program (real interpreters)", () => {
  const py = 'import os\nos.system("touch F")\n';
  it.each([
    ["python3", "--version", py], ["python3", "-V", py], ["perl", "-v", 'system("touch F");\n'], ["perl", "-V", 'system("touch F");\n'],
    ["node", "--version", 'require("fs").writeFileSync("F", "")\n'], ["node", "-v", 'require("fs").writeFileSync("F", "")\n'],
  ])("%s %s prints its version and exits without running the code on its input", (program, flag, code) => {
    if (!has(program)) return;
    expect(tripped(`printf '%s' '${code.replace(/'/g, "'\\''")}' | ${program} ${flag}`)).toBe(false);
  });
  it.skipIf(!has("python3"))("python3 -v (verbose, not a version) runs the code on its input: it is not a version check", () => {
    expect(tripped(`printf 'import os\\nos.system("touch F")\\n' | python3 -v`)).toBe(true);
  });
});
