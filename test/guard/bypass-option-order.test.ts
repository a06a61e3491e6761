// Options where the program does not read them (red team round 7, F1–F4). git config and unzip read options only
// before their first operand, and `git stash list` and unzip do not end options at `--`: the guard used to read them
// the GNU way (options anywhere, `--` ends them) and saw a read where the program writes. Each spelling is proved in
// real bash first (git 2.39, UnZip 6.00; the tripwire F in the temporary directory shows the write or the code that
// ran), then the command itself must not be allowed under balanced or strict. The honest forms of the same programs
// stay allowed, and real bash shows they write nothing.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";


const has = (program: string): boolean => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

const GIT = "git -c user.email=a@b -c user.name=a";
const REPO = `git init -q . && echo a > f && git add f && ${GIT} commit -q -m x`;
/** A repository with one stash (`git stash list` passes its words to git log only when refs/stash exists). */
const STASHED = `${REPO} && echo b >> f && ${GIT} stash -q`;
/** An executable ./m that leaves the tripwire. */
const M = "printf '#!/bin/sh\\ntouch F\\n' > m; chmod +x m";
/** Builds x.zip from NAME=TEXT pairs (python3's zipfile: no zip program needed). */
const zip = (...members: string[]) =>
  `python3 -c 'import sys, zipfile
z = zipfile.ZipFile("x.zip", "w")
for m in sys.argv[1:]:
    n, t = m.split("=", 1)
    z.writestr(n, t.replace("\\\\n", "\\n"))
z.close()' ${members.map((m) => `'${m}'`).join(" ")}`;
/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
const ASK = "ask/not-allowlisted";
const DENY = "deny/not-allowlisted";

const CLASSES: Record<string, { needs: string[]; spellings: Spelling[] }> = {
  "git config reads options only before its first operand: KEY VALUE --get is a write (F1)": {
    needs: ["git"],
    spellings: [
      { setup: REPO, run: 'git config core.fsmonitor "touch F" --get', after: "git status", balanced: ASK, strict: DENY },
      { setup: `${REPO}; ${M}`, run: "git config core.fsmonitor ./m --get-all", after: "git status", balanced: ASK, strict: DENY },
      { setup: REPO, run: 'git config alias.st "!touch F" --get', after: "git st", balanced: ASK, strict: DENY },
      { setup: `${REPO}; ${M}`, run: "git config diff.external ./m --get", after: "echo b >> f; git diff", balanced: ASK, strict: DENY },
      // strict allowed these: the value reads as a read-only command (or is no command), and .git/config is written
      { setup: REPO, run: "git config core.pager id --get", after: "grep -q 'pager = id' .git/config && touch F", balanced: ASK, strict: DENY },
      { setup: REPO, run: "git config core.x --get", after: "grep -q 'x = --get' .git/config && touch F", balanced: ASK, strict: DENY },
      { setup: REPO, run: "git config --end-of-options core.x --get", after: "grep -q 'x = --get' .git/config && touch F", balanced: ASK, strict: DENY },
    ],
  },
  "git stash list passes every word to git log as an option, `--` and `--end-of-options` too (F2)": {
    needs: ["git"],
    spellings: [
      {
        setup: STASHED,
        run: "git stash list -- '--format=[core]%n%x09fsmonitor = touch F' --output=.git/config",
        after: "git status",
        balanced: ASK,
        strict: DENY,
      },
      { setup: STASHED, run: "git stash list -- --output=F", balanced: ASK, strict: DENY },
      { setup: STASHED, run: "git stash list --end-of-options --output=F", balanced: ASK, strict: DENY },
      { setup: STASHED, run: "git stash list -- '--format=tformat:touch F' --output=.bashrc", after: NEXT_BASH, balanced: ASK, strict: DENY },
      { setup: `${STASHED}; echo --output=F > list`, run: "xargs git stash list -- < list", balanced: ASK, strict: DENY },
      { setup: `${STASHED}; X=--output=F`, run: "git stash list -- $X", balanced: ASK, strict: DENY },
      { setup: `${STASHED}; ${M}; git config diff.external ./m`, run: "git stash list --end-of-options -p --ext-diff", balanced: ASK, strict: DENY },
      { setup: `${STASHED}; ${M}; git config diff.external ./m`, run: "git stash list -- -p --ext-diff", balanced: ASK, strict: DENY },
    ],
  },
  "unzip reads options only before the archive: after it -l, -t, -p are member patterns and it extracts (F3)": {
    needs: ["unzip", "python3"],
    spellings: [
      { setup: zip("F=hi"), run: "unzip x.zip -l '*'", balanced: ASK, strict: DENY },
      { setup: zip("F=hi"), run: "unzip x.zip '*' -t", balanced: ASK, strict: DENY },
      { setup: zip("F=hi"), run: "unzip x.zip -p '*'", balanced: ASK, strict: DENY },
      { setup: zip(".bashrc=touch F\\n"), run: "unzip x.zip -l '.bash*'", after: NEXT_BASH, balanced: ASK, strict: DENY },
      // the replace prompt for the existing .git/config answered from stdin: All
      {
        setup: `${REPO}; ${zip(".git/config=[core]\\n  repositoryformatversion = 0\\n  fsmonitor = touch F\\n")}`,
        run: "printf 'A\\n' | unzip x.zip -l '.git/*'",
        after: "git status",
        balanced: ASK,
        strict: DENY,
      },
    ],
  },
  "unzip's `--` ends no options: a `-` in an option word turns the next option off and it extracts (F4)": {
    needs: ["unzip", "python3"],
    spellings: [
      { setup: zip("F=hi"), run: "unzip -l -- -l x.zip", balanced: ASK, strict: DENY },
      { setup: zip("F=hi"), run: "unzip -t -- -t x.zip", balanced: ASK, strict: DENY },
      { setup: zip("F=hi"), run: "unzip -c -- -c x.zip", balanced: ASK, strict: DENY },
      { setup: zip("F=hi"), run: "unzip -q-l x.zip", balanced: ASK, strict: DENY },
      { setup: `${zip("G=hi")}; X='-l x.zip -d d'`, run: "unzip -l -- $X", after: "[ -e d/G ] && touch F", balanced: ASK, strict: DENY },
      { setup: `${zip(".bashrc=touch F\\n")}; echo '-p x.zip' > list`, run: "xargs unzip -p -- < list", after: NEXT_BASH, balanced: ASK, strict: DENY },
    ],
  },
};


for (const [name, { needs, spellings }] of Object.entries(CLASSES)) {
  describe(name, () => {
    itWorksInRealBash(spellings, needs.every(has));
    itIsNotAllowedAsWritten(spellings);
  });
}

/** Honest forms: allowed under balanced and strict, and in real bash they leave no file and change no config. */
const HONEST: { needs: string[]; setup: string; runs: string[] }[] = [
  {
    needs: ["git"],
    setup: `${REPO}; git config user.name a; cp .git/config ../before`,
    runs: [
      "git config --get user.name", "git config --get user.name 'a.*'", "git config --get-all user.name a", "git config -l", "git config --list --show-origin",
      "git config user.name", "git config --bool --get core.bare", "git config --get core.bare --bool", "git config --get-regexp 'user\\..*'",
    ],
  },
  {
    needs: ["git"],
    setup: `${STASHED}; cp .git/config ../before`,
    runs: ["git stash list", "git stash list --oneline", "git stash list -p", "git stash list --date=relative", "git stash show -p", "git stash show -- --output=F", "git stash show --end-of-options -p"],
  },
  {
    needs: ["unzip", "python3"],
    setup: `${zip("F=hi", "s/a=hi")}; f=x.zip; cp x.zip ../before`,
    runs: ["unzip -l x.zip", "unzip -lq x.zip '*'", "unzip -v x.zip", "unzip -t x.zip", "unzip -tq x.zip", "unzip -z x.zip", "unzip -p x.zip F", "unzip -c x.zip s/a", 'f=x.zip; unzip -l ./"$f"', "unzip -ll x.zip"],
  },
];

describe("the honest forms stay allowed and write nothing (real git and unzip)", () => {
  const all = HONEST.flatMap((h) => h.runs);
  it.each(all)("%j is allowed under balanced and strict", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
  // F is a member of x.zip (extracting makes it); the config or archive is compared with its copy in ../before.
  const changed = (h: (typeof HONEST)[number], c: string) => {
    const kept = h.setup.includes("x.zip") ? "cmp -s x.zip ../before" : "cmp -s .git/config ../before";
    return tripped(`mkdir w && cd w && ${h.setup}\n${c} >/dev/null 2>&1\nif [ -e F ] || ! ${kept}; then touch ../F; fi`);
  };
  for (const h of HONEST) {
    it.skipIf(!h.needs.every(has)).each(h.runs)("%j leaves no file and the config as it was", (c) => {
      expect(changed(h, c)).toBe(false);
    });
  }
  it.skipIf(!has("git") || !has("unzip") || !has("python3"))("the same check sees a write (git config NAME VALUE, unzip x.zip)", () => {
    expect(changed(HONEST[0]!, "git config user.name b")).toBe(true);
    expect(changed(HONEST[1]!, "git stash list -- --output=F")).toBe(true);
    expect(changed(HONEST[2]!, "unzip x.zip")).toBe(true);
  });
});
