// Arguments the guard cannot see (red team round 6, F1–F5, F8): words xargs appends from its input, a `$X` or
// `$(…)` that may start with `-` or split into several words, a glob that may match a file named like an option or
// vanish under nullglob, the file nohup writes. Each spelling is proved in real bash 5 first (`setup` makes the files
// it reads; the tripwire F in the temporary directory shows the hidden option took effect), then the command itself
// must not be allowed under balanced or strict. Honest forms of the same programs stay allowed (the last blocks).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitsIntoWords } from "../../src/guard/options/getopt.ts";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";


const REPO = "git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
/** A copy of .git/config with `core.fsmonitor = touch F`, which the next `git status` runs. */
const CFG = `${REPO}; { cat .git/config; printf '\\tfsmonitor = touch F\\n'; } > cfg`;
const SH = "echo \"sh -c 'touch F'\" > list";
const ASK = "ask/not-allowlisted";
const DENY = "deny/not-allowlisted";

const CLASSES: Record<string, Spelling[]> = {
  "xargs appends words from its input, which may be options of the program it runs (F1)": [
    {
      setup: `seq 1 5000 > big; printf '#!/bin/sh\\ntouch F\\nexec gzip "$@"\\n' > c.sh; chmod +x c.sh; printf '%s\\n' --compress-program=./c.sh -S1k big > list`,
      run: "xargs sort < list",
      balanced: ASK,
      strict: DENY,
    },
    {
      setup: `seq 1 5000 > big; printf '#!/bin/sh\\ntouch F\\nexec gzip "$@"\\n' > c.sh; chmod +x c.sh; printf '%s\\n' --compress-program=./c.sh -S1k big > list`,
      run: "xargs sort -if < list", // sort's -i -f, not xargs's -i with the replace string f
      balanced: ASK,
      strict: DENY,
    },
    { setup: "echo '. -maxdepth 0 -exec touch F ;' > list", run: "xargs find < list", balanced: ASK, strict: DENY },
    { setup: SH, run: "xargs env < list", balanced: ASK, strict: DENY },
    { setup: SH, run: "xargs -a list env", balanced: ASK, strict: DENY },
    { setup: SH, run: "xargs xargs < list", balanced: ASK, strict: DENY },
    { setup: SH, run: "cat list | xargs -n9 env", balanced: ASK, strict: DENY },
    { setup: "echo hi > a; echo \"-e '1e touch F' a\" > list", run: "xargs sed -n 1p < list", balanced: ASK, strict: DENY },
    { setup: `echo hi > a; printf '#!/bin/sh\\ntouch F\\ncat "$1"\\n' > p.sh; chmod +x p.sh; echo '--pre=./p.sh a' > list`, run: "xargs rg foo < list", balanced: ASK, strict: DENY },
    { setup: "echo '-o F .' > list", run: "xargs tree < list", balanced: ASK, strict: DENY },
    { setup: `${REPO}; echo --output=F > list`, run: "xargs git log < list", balanced: ASK, strict: DENY },
    { setup: "touch ./-oF a", run: "ls | xargs sort", balanced: ASK, strict: DENY },
    // xargs splits its input at blanks: a file name with a space in it is two words, one an option
    { setup: "touch x y.txt 'x -oF y.txt'", run: "find . -name '*.txt' | xargs sort", balanced: ASK, strict: DENY },
    { setup: `${CFG}; echo 'cfg .git/config' > list`, run: "xargs uniq < list", after: "git status", balanced: "ask/unknown-write-target", strict: DENY },
  ],
  "a find starting point the guard cannot see may be the expression (F2)": [
    { setup: "echo '. -maxdepth 0 -exec touch F ;' > o", run: "find $(cat o)", balanced: ASK, strict: DENY },
    { setup: "echo '. -maxdepth 0 -exec touch F ;' > o", run: "read -r d < o; find $d -name x", balanced: ASK, strict: DENY },
    // quoted, one word: -delete deletes everything under the working directory (`find . -delete` itself asks)
    { setup: "mkdir sub; touch sub/keep; echo -delete > d", run: 'read -r d < d; find "$d" -name zzz', after: "[ -e sub/keep ] || touch F", balanced: ASK, strict: DENY },
    // a glob matches a file named -delete
    { setup: "mkdir w; touch w/-delete", run: "cd w && find * -name x", after: "cd ..; [ -e w/-delete ] || touch F", balanced: ASK, strict: DENY },
    { setup: "echo 'x -o -exec touch F ;' > o", run: "read -r X < o; find . -maxdepth 0 -name $X", balanced: ASK, strict: DENY },
  ],
  "a git argument the guard cannot see before `--` may be --output (F3)": [
    { setup: `${REPO}; echo --output=F > o`, run: "git log $(cat o)", balanced: ASK, strict: DENY },
    { setup: `${REPO}; echo --output=F > o`, run: "read X < o; git show $X", balanced: ASK, strict: DENY },
    { setup: "echo x > a; echo y > b; echo --output=F > o", run: "git diff --no-index $(cat o) a b", balanced: ASK, strict: DENY },
    // unquoted in the middle of a word, it splits: HEAD~0 --output=F
    { setup: `${REPO}; echo '0 --output=F' > n`, run: "git log HEAD~$(cat n)", balanced: ASK, strict: DENY },
  ],
  "an unquoted word the guard cannot see may split into a written operand (F4)": [
    { setup: `${CFG}; echo 'cfg .git/config' > args`, run: "uniq $(cat args)", after: "git status", balanced: "ask/unknown-write-target", strict: "ask/unknown-write-target" },
    { setup: `${CFG}; echo 'cfg .git/config' > args`, run: "read -r X < args; uniq $X", after: "git status", balanced: "ask/unknown-write-target", strict: "ask/unknown-write-target" },
    {
      setup: `${CFG}; xxd -p cfg > hex; echo '-r -p hex .git/config' > args`,
      run: "xxd $(cat args)",
      after: "git status",
      balanced: "ask/unknown-write-target",
      strict: "ask/unknown-write-target",
    },
    // unquoted in the middle of a word: `sort ab -oF`
    { setup: "echo hi > ab; echo 'b -oF' > o", run: "read -r X < o; sort a$X", balanced: ASK, strict: DENY },
    // a glob may match two files: the second is uniq's output (strict: a write; balanced: inside the workspace)
    { setup: "echo x > a.txt; echo y > b.txt", run: "uniq *.txt", after: "grep -q x b.txt && touch F", balanced: "allow/allowlist", strict: "ask/strict-write" },
  ],
  "shopt -s nullglob makes a glob that matches nothing vanish, so the next word takes its place (F5)": [
    {
      setup: `${REPO}; echo '[core] fsmonitor = touch F' > p`,
      run: "shopt -s nullglob; sort -o x[y] .git/config < p",
      after: "git status",
      balanced: "ask/shell-rules",
      strict: "deny/shell-state",
    },
    { setup: "", run: "shopt -s nullglob\ntree -o x[y] F", balanced: "ask/shell-rules", strict: "deny/shell-state" },
    { setup: "echo hi > f", run: "shopt -s nullglob; sed -n -e s/a*/b/ '1e touch F' f", balanced: "ask/shell-rules", strict: "deny/shell-state" },
    { setup: "", run: "shopt -s nullglob\nawk -F x[y] '{print}' 'BEGIN{system(\"touch F\")}'", balanced: "ask/shell-rules", strict: "deny/shell-state" },
  ],
  "a builtin's word the guard cannot see before its first operand may be an option": [
    {
      setup: `mkdir evil; printf '#!/bin/sh\\n/usr/bin/touch F\\n' > evil/ls; chmod +x evil/ls; echo "-v PATH $PWD/evil" > f`,
      run: "read -r X < f; printf $X",
      after: "ls",
      balanced: ASK,
      strict: DENY,
    },
    {
      setup: `mkdir evil; printf '#!/bin/sh\\n/usr/bin/touch F\\n' > evil/ls; chmod +x evil/ls; echo -vPATH > f`,
      run: 'read -r X < f; printf "$X" "$PWD/evil"',
      after: "ls",
      balanced: ASK,
      strict: DENY,
    },
    { setup: "printf '#!/bin/sh\\ntouch F\\n' > e.sh; chmod +x e.sh; echo '-p ./e.sh ls' > f", run: "read -r X < f; hash $X", after: "ls", balanced: ASK, strict: DENY },
    { setup: "echo '-x touch F' > f", run: "read -r X < f; jobs $X", balanced: ASK, strict: DENY },
    { setup: "echo '-w F' > f", run: "read -r X < f; history $X", balanced: ASK, strict: DENY },
  ],
};


for (const [name, spellings] of Object.entries(CLASSES)) {
  describe(name, () => {
    itWorksInRealBash(spellings);
    itIsNotAllowedAsWritten(spellings);
  });
}

describe("nohup writes ./nohup.out when its output is a terminal (F8)", () => {
  it.skipIf(spawnSync("sh", ["-c", "command -v script"]).status !== 0)("works in real bash under a terminal: nohup ls leaves nohup.out", () => {
    const dir = mkdtempSync(join(tmpdir(), "sandshell-nohup-"));
    try {
      spawnSync("script", ["-qc", "bash --norc --noprofile -c 'nohup ls'", "/dev/null"], { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, stdio: "ignore", timeout: 10_000 });
      expect(existsSync(join(dir, "nohup.out"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
  it.each(["nohup ls", "nohup git status"])("strict is read-only, so %j asks; balanced allows it (the file is in the workspace)", async (c) => {
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "ask", rule: "strict-write" });
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
});

describe("the honest forms stay allowed", () => {
  it.each([
    // xargs with programs whose every option only reads or prints
    "xargs echo < list", "xargs wc -l < list", "find . -name '*.ts' | xargs grep foo", "find . -name '*.ts' | xargs grep -il foo", "ls | xargs cat",
    "find . -type f -print0 | xargs -0 grep -l x | xargs wc -l", "xargs -I{} grep foo {} < list", "ls | xargs -n1 basename", "xargs git log -- < list", "xargs sort -- < list",
    "xargs env grep x < list", "xargs",
    // find starting points that name a directory whatever they hold
    'find "$PWD" -name x', 'find "$(pwd)" -type f', "find ~ -name x", "find ~/src -name '*.ts'", 'find ./"$d" -name x', 'find . -name "$X"', "find */2011/* -name '*.jpg'",
    "find . -name *.txt", "find /tmp/stamp$$ -newer x", "find src/*.ts -type f",
    // git: a word the guard cannot see after -- or --end-of-options
    'git log -- "$f"', 'git log --end-of-options "$REV"', "git diff -- $(cat files)", 'git log HEAD~"$N"',
    // quoted operands are one word; option values are values
    'uniq "$X"', 'uniq -c "$f"', 'xxd "$f"', 'sort "a$X"', 'sort -k "$K" f', 'sort -t "$s" -k2 f',
    // builtins stop reading options at their first operand
    "printf '%s\\n' --verbose", "printf '%s\\n' \"$x\" $y", 'printf "%s\\n" "$@"', "history 20", 'history -d "$1"', "jobs -l", "hash -r",
    "shopt -s extglob", "shopt -u nullglob", "shopt -s globstar dotglob",
  ])("%j", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });

  it("git log --end-of-options takes a word the guard cannot see as a revision, never an option (real bash)", () => {
    expect(tripped(`${REPO}; echo --output=F > o\ngit log --end-of-options $(cat o)`)).toBe(false);
  });
});

describe("which words bash may split into several", () => {
  it.each([
    ["$X", true], ["a$X", true], ["$(cat f)", true], ["`pwd`", true], ["${x:-a}", true], ["$1", true], ["$@", true], ['"$@"', true], ['"${a[@]}"', true],
    ['"$X"', false], ["'$X'", false], ['"$(cat "a b")"', false], ["$$", false], ["/tmp/stamp$$", false], ["$((1 + (2 * 3)))", false], ["${#x}", false],
    ["\\$X", false], ['$"hi $x"', false], ['"`pwd`"', false], ["$'a'", false], ['"${a[*]}"', false],
  ] as const)("%s splits: %s", (raw, splits) => {
    expect(splitsIntoWords(raw)).toBe(splits);
  });
});
