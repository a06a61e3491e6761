// An option's value that names a file the program reads is a read, judged exactly like a file operand (red team
// round 7: `git grep --no-index -f /etc/passwd x` was allowed under strict while `date -f /etc/passwd` asked). One
// mechanism, the option specs' `reads` (src/guard/options/*): inside the workspace such a read is allowed, outside it
// gets what `cat FILE` gets under each preset (strict: ask `read-outside-workspace`). Real bash proves that the
// spellings read (and print) a file outside the directory they run in.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";

/** A file outside the workspace and outside /tmp (which the guard lets any preset read). */
const OUTSIDE = "/srv/secret.txt";

/**
 * Each spelling reads the file written `SECRET` through an option's value (or an operand git reads, or a file an awk
 * program names as a string: `getline < "FILE"`, `ARGV[1] = "FILE"`).
 */
const SPELLINGS = [
  // the red team's two, and git's other options that name a file it reads
  "git grep --no-index -f SECRET x", "git grep -e x --no-index -f SECRET", "git grep -f SECRET", "git grep --no-index x SECRET",
  "git grep --no-index x -- SECRET", "git diff --no-index SECRET a", "git diff SECRET a", "git diff --no-index -- SECRET a", "git log -O SECRET",
  "git show -OSECRET", "git rev-list -O SECRET HEAD", "git stash show -O SECRET", "git reflog show -O SECRET", "git blame --contents SECRET x",
  "git blame --contents=SECRET x", "git blame -S SECRET x", "git blame --ignore-revs-file SECRET x", "git config -f SECRET -l",
  "git config --file=SECRET --get a.b", "git ls-files -X SECRET", "git ls-files --exclude-from=SECRET",
  // jq's two-word options (`--rawfile NAME FILE`) and its library path
  "jq -n --rawfile a SECRET '$a'", "jq --slurpfile a SECRET . x", "jq -f SECRET", "jq -L SECRET . x",
  // awk programs that read a file themselves
  "awk 'BEGIN { while ((getline l < \"SECRET\") > 0) print l }'", "awk 'BEGIN { getline x < \"SECRET\"; print x }'", "awk 'BEGIN{getline<\"SECRET\";print}'",
  "awk 'BEGIN { ARGV[1] = \"SECRET\"; ARGC = 2 } 1'", "awk 'BEGIN { ARGV[ARGC++] = \"SECRET\" } 1'",
  // find's tests that read a file's times or inode
  "find . -newer SECRET", "find . -anewer SECRET", "find . -cnewer SECRET", "find . -samefile SECRET", "find . -newermm SECRET",
  "find . -neweram SECRET",
  // the rows that already marked theirs
  "date -f SECRET", "date -r SECRET", "date --reference=SECRET", "grep -f SECRET x", "grep --file=SECRET x", "grep -r --exclude-from=SECRET x .",
  "rg -f SECRET", "rg --ignore-file SECRET x", "wc --files0-from=SECRET", "du --files0-from=SECRET", "du -X SECRET .", "sort --files0-from=SECRET",
  "sort --random-source=SECRET x", "diff --from-file=SECRET x", "diff --to-file SECRET x", "diff -X SECRET a b", "tar -tf x.tar -T SECRET",
  "tar -tf x.tar -X SECRET", "file -f SECRET", "file -m SECRET x", "hexdump -f SECRET x", "tree --gitfile=SECRET", "cmp SECRET x", "comm SECRET x",
];

/** Reads inside the workspace, through the same options: allowed under balanced and strict. */
const INSIDE = [
  "grep -f patterns.txt x", "git grep -f ./p x", "git grep --no-index -f p .", "git grep -e x -f p -- src", "git grep -n foo", "git diff HEAD~1",
  "git diff a b", "git diff --no-index a b", "git log -O order.txt", "git blame --contents x.txt x", "git config -f ./cfg -l", "git ls-files -X .ignore",
  "jq -n --rawfile t notes.txt '$t'", "jq --arg n v '.x' f", "jq --arg n -v . f", "find . -newer stamp", "find . -newermt 2024-01-01",
  "find . -samefile x", "date -r x", "sort --random-source=r x", "tar -tf x.tar --verbatim-files-from -T list", "diff --from-file a b",
  "rg --ignore-file .ig x", "file -m magic x", "awk 'BEGIN { while ((getline l < \"notes.txt\") > 0) print l }'", "awk '$1 < 5' x",
  "awk 'NR < 3' x", "awk '{ if (length($0) < 80) print }' x",
];

const at = (spelling: string, path: string) => spelling.replaceAll("SECRET", path);

describe("an option's value that names a file the program reads is judged like a file operand", () => {
  it.each(SPELLINGS.map((s) => [at(s, OUTSIDE)]))("option file read outside the workspace: %j asks under strict, as cat does", async (command) => {
    const strict = (await guardFor("strict")).check(command);
    expect(strict).toMatchObject({ decision: "ask", rule: "read-outside-workspace" });
    expect(strict.reason).toContain(OUTSIDE);
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });

  it("option file read outside the workspace: each preset gives the spelling what `cat FILE` gets", async () => {
    for (const policy of ["balanced", "strict"] as const) {
      const g = await guardFor(policy);
      const cat = g.check(`cat ${OUTSIDE}`);
      for (const s of SPELLINGS) expect([s, policy, g.check(at(s, OUTSIDE)).decision]).toEqual([s, policy, cat.decision]);
    }
  });

  it.each(INSIDE.map((c) => [c]))("option file read inside the workspace: %j stays allowed under balanced and strict", async (command) => {
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow" });
    expect((await guardFor("strict")).check(command)).toMatchObject({ decision: "allow" });
  });

  it.each(SPELLINGS.filter((s) => s.startsWith("git ")).map((s) => [at(s, "/tmp/x")]))(
    "option file read in /tmp: %j stays allowed under strict, as `cat /tmp/x` is",
    async (command) => {
      expect((await guardFor("strict")).check(command)).toMatchObject({ decision: "allow" });
    },
  );
});

// Real git, awk and jq: each spelling prints a line of a file outside the directory it runs in.
const jq = spawnSync("jq", ["--version"]).status === 0;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function outputOf(spelling: string): string {
  const outside = mkdtempSync(join(tmpdir(), "sandshell-outside-"));
  const work = mkdtempSync(join(tmpdir(), "sandshell-work-"));
  dirs.push(outside, work);
  const secret = join(outside, "secret");
  writeFileSync(secret, "sekrit-4711\n");
  writeFileSync(join(work, "hay"), "sekrit-4711 hay\n");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" };
  const init = spawnSync("bash", ["--norc", "--noprofile", "-c", "git init -q . && git add hay && git commit -qm x"], { cwd: work, env });
  expect(init.status).toBe(0);
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", at(spelling, secret)], { cwd: work, env, encoding: "utf8", timeout: 20_000 });
  return r.stdout;
}

describe("option file reads in real bash: the spelling prints the outside file's line", () => {
  it.each([
    ["git grep --no-index -f SECRET ."], ["git grep -e x --no-index -f SECRET"], ["git grep -f SECRET"], ["git blame --contents SECRET hay"],
    ["git diff --no-index SECRET hay"], ["git diff SECRET hay"], ["git config -f SECRET -l"],
    ["awk 'BEGIN { while ((getline l < \"SECRET\") > 0) print l }'"], ["awk 'BEGIN { ARGV[1] = \"SECRET\"; ARGC = 2 } 1'"],
  ])("option file read proven in real git and awk: %j reads the file", async (spelling) => {
    // git grep -f prints the work tree's line the secret's pattern matches; the others print the secret itself.
    expect(outputOf(spelling)).toContain("sekrit-4711");
    expect((await guardFor("strict")).check(at(spelling, OUTSIDE))).toMatchObject({ decision: "ask", rule: "read-outside-workspace" });
  });

  it.runIf(jq)("option file read proven in real jq: `jq -n --rawfile a SECRET '$a'` prints the file", async () => {
    expect(outputOf("jq -n --rawfile a SECRET '$a'")).toContain("sekrit-4711");
    expect((await guardFor("strict")).check(at("jq -n --rawfile a SECRET '$a'", OUTSIDE))).toMatchObject({ decision: "ask", rule: "read-outside-workspace" });
  });
});
