// The node runtime sets GIT_OPTIONAL_LOCKS=0 so that `git status` does not refresh (write) .git/index; a command
// that sets or unsets the variable, or empties the environment, would bring that write back, so it is never
// allowed unasked (rule `environment`). Real git proves the write the variable prevents.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";

const SPELLINGS = [
  "GIT_OPTIONAL_LOCKS=1 git status", "GIT_OPTIONAL_LOCKS= git status", "env GIT_OPTIONAL_LOCKS=1 git status", "export GIT_OPTIONAL_LOCKS=1",
  "unset GIT_OPTIONAL_LOCKS", "unset -v GIT_OPTIONAL_LOCKS", "export -n GIT_OPTIONAL_LOCKS", "declare +x GIT_OPTIONAL_LOCKS", "typeset +x GIT_OPTIONAL_LOCKS",
  "local GIT_OPTIONAL_LOCKS", "read GIT_OPTIONAL_LOCKS < f", "env -u GIT_OPTIONAL_LOCKS git status", "env -uGIT_OPTIONAL_LOCKS git status",
  "env --unset=GIT_OPTIONAL_LOCKS git status", "env --unset GIT_OPTIONAL_LOCKS git status", "env --un=GIT_OPTIONAL_LOCKS git status",
  "timeout 5 env -u GIT_OPTIONAL_LOCKS git status", "env -i git status", "env -iu X git status", "env --ignore-environment git status",
  "env --ignore-env git status", "env -i PATH=/usr/bin git status",
];

describe("GIT_OPTIONAL_LOCKS: setting or unsetting it is never allowed unasked", () => {
  it.each(SPELLINGS.map((c) => [c]))("git optional locks: %j asks under balanced and is not allowed under strict", async (command) => {
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "ask" });
    expect((await guardFor("strict")).check(command).decision).not.toBe("allow");
  });

  it.each([["env -u x git status"], ["env -u LANG git status"], ["env TZ=UTC git log -1"], ["env -C src git status"], ["git status"], ["git describe --dirty"]])(
    "git optional locks: %j unsets or sets nothing the runtime relies on and stays allowed",
    async (command) => {
      expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow" });
    },
  );
});

describe("git status and the index in real git", () => {
  function indexMtimeAfter(script: string): number {
    const dir = mkdtempSync(join(tmpdir(), "sandshell-locks-"));
    try {
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GIT_CONFIG_NOSYSTEM: "1", GIT_OPTIONAL_LOCKS: "0" };
      writeFileSync(join(dir, "a"), "a\n");
      const init = spawnSync("bash", ["--norc", "--noprofile", "-c", "git init -q . && git add a && git -c user.email=a@b -c user.name=a commit -qm x"], { cwd: dir, env });
      expect(init.status).toBe(0);
      for (const f of ["a", ".git/index"]) utimesSync(join(dir, f), 1_577_836_800, 1_577_836_800);
      expect(spawnSync("bash", ["--norc", "--noprofile", "-c", script], { cwd: dir, env }).status).toBe(0);
      return statSync(join(dir, ".git/index")).mtimeMs / 1000;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("git optional locks: with GIT_OPTIONAL_LOCKS=0 git status leaves .git/index as it was; `env -u GIT_OPTIONAL_LOCKS git status` rewrites it", () => {
    expect(indexMtimeAfter("git status > /dev/null")).toBe(1_577_836_800);
    expect(indexMtimeAfter("env -u GIT_OPTIONAL_LOCKS git status > /dev/null")).not.toBe(1_577_836_800);
  });
});
