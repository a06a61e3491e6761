// Bypass classes where the guard read a word or a script differently from the program that runs it (red team
// round 3: F1, F3, F6, F7): brace expansion, which bash does before anything else; sed's `y`, which has no
// bracket expressions; awk regular expressions with a bracket class; tree's way of taking option values. Each
// spelling is first proved in real bash 5 (the tripwire F outside the working directory `w`, or an `e`/system()
// payload that touches F), then the same shape with a real target must not be allowed under balanced or strict.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BRACE_OPEN, expandBraces, markUnquoted, unmark } from "../../src/guard/braces.ts";
import { GUARD } from "../../src/limits.ts";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const has = (program: string): boolean => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

interface Spelling {
  /** Runs in a fresh temporary directory; leaves F there exactly when the spelling works. */
  bash: string;
  /** The same shape with a harmful target or payload. */
  guard: string;
  /** Verdicts under balanced and strict, `decision/rule`. */
  balanced: string;
  strict: string;
}

const W = "mkdir w && cd w && ";
const CLASSES: Record<string, Spelling[]> = {
  "brace expansion in a path, a write target or a program's arguments (F6)": [
    { bash: `${W}touch {../F,x}`, guard: "touch {/var/tmp/x,y}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}touch {x,../F}`, guard: "touch {x,/var/tmp/x}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}touch {,../F}`, guard: "touch {,/var/tmp/x}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}touch {/,}\${T#/}/F`, guard: "touch {/,}var/tmp/x", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}touch {..,x}/F`, guard: "touch {/var,.}/tmp/x", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}mkdir {../F,y}`, guard: "mkdir {/var/tmp/x,y}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}tee {../F,z} < /dev/null`, guard: "tee {/var/tmp/x,z} < /dev/null", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}sort -o {../F,} /dev/null`, guard: "sort -o {/var/tmp/x,} /dev/null", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}uniq /dev/null {../F,}`, guard: "uniq /dev/null {/var/tmp/x,}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}xxd /dev/null {../F,}`, guard: "xxd /dev/null {/var/tmp/x,}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}touch ../{F..F}`, guard: "touch /var/tmp/{a..c}", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: "mkdir -p d/e; rm {-r,d}; [ -e d ] || touch F", guard: "rm {-rf,/}", balanced: "deny/recursive-delete-root", strict: "deny/recursive-delete-root" },
    { bash: "mkdir -p d/e; rm -{r..r}f d; [ -e d ] || touch F", guard: "rm -{r..r}f /", balanced: "deny/recursive-delete-root", strict: "deny/recursive-delete-root" },
    { bash: "mkdir h; HOME=$PWD/h; touch {~,x}/../F", guard: "tee {~/.bashrc,x} < /dev/null", balanced: "ask/config-write", strict: "deny/config-write" },
  ],
  "a word of declare, export, local or readonly that reads NAME=value once expanded is an assignment": [
    { bash: `${W}x=ok; export 'x=..'; touch $x/F`, guard: "x=/tmp/a; export 'x=/etc'; touch $x/passwd", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}x=ok; declare x'=..'; touch $x/F`, guard: "x=/tmp/a; declare x'=/etc'; touch $x/passwd", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}x=ok; export {x,y}=..; touch $x/F`, guard: "x=/tmp/a; export {x,y}=/etc; touch $x/passwd", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    // bash brace-expands the whole argument `x={ok,..}` of a declaration builtin (not a plain `x={ok,..}`): x is `..`.
    { bash: `${W}declare x={ok,..}; touch $x/F`, guard: "declare x={/tmp/a,/etc}; touch $x/passwd", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}typeset x={ok,..}; touch $x/F`, guard: "export PATH={/usr/bin,/tmp/x}", balanced: "ask/environment", strict: "deny/environment" },
    { bash: "export 'PATH=/nonexistent'; ls 2>/dev/null || /usr/bin/touch F", guard: "export 'PATH=/tmp/x'", balanced: "ask/environment", strict: "deny/environment" },
    { bash: "f() { local 'PATH=/nonexistent'; ls 2>/dev/null || /usr/bin/touch F; }; f", guard: "f() { local {PATH,x}=/tmp/x; ls; }; f", balanced: "ask/environment", strict: "deny/environment" },
    { bash: "export \"$(echo PATH)=/nonexistent\"; ls 2>/dev/null || /usr/bin/touch F", guard: 'export "$(cat name)=/tmp/x"', balanced: "ask/environment", strict: "deny/environment" },
  ],
  "sed's y has no bracket expressions (F1)": [
    { bash: "echo a > f; sed 'y/[/]/;1e touch F #/' f", guard: "sed 'y/[/]/;1e touch /var/tmp/x #/' f", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
    { bash: "echo a > f; sed 'y,[,],;1e touch F #,' f", guard: "sed 'y,[,],;1e id #,' f", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
  ],
  "an awk regular expression with a bracket class (F3)": [
    {
      bash: `awk 'BEGIN { x = /[[:alpha:]/]/ / 1; system("touch F"); x = 1 / 1 }'`,
      guard: `awk 'BEGIN { x = /[[:alpha:]/]/ / 1; system("touch \\057var\\057tmp\\057x"); x = 1 / 1 }'`,
      balanced: "ask/not-allowlisted",
      strict: "deny/not-allowlisted",
    },
    {
      bash: `awk 'BEGIN { x = /[^[:digit:]/]/ / 1; system("touch F"); x = 1 / 1 }'`,
      guard: `awk 'BEGIN { x = /[^[:digit:]/]/ / 1; system("id"); x = 1 / 1 }'`,
      balanced: "ask/not-allowlisted",
      strict: "deny/not-allowlisted",
    },
  ],
  "tree takes each bundled option's value from the next word (F7)": [
    { bash: `${W}tree -ox ../F`, guard: "tree -ox /var/tmp/x", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}tree -Lo 1 ../F .`, guard: "tree -Lo 1 /var/tmp/x .", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}tree -oL ../F 1 .`, guard: "tree -oL /var/tmp/x 1 .", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
    { bash: `${W}tree . -o ../F`, guard: "tree . -o /var/tmp/x", balanced: "deny/write-outside-workspace", strict: "deny/write-outside-workspace" },
  ],
};

const needs: Record<string, string> = { tree: "tree", xxd: "xxd" };

for (const [name, spellings] of Object.entries(CLASSES)) {
  describe(name, () => {
    it.each(spellings.map((s) => [s.bash, s] as const))("works in real bash: %s", (_b, s) => {
      const missing = Object.keys(needs).find((p) => s.bash.includes(`${p} `) && !has(needs[p]!));
      if (missing) return; // the program is not installed here; the guard rows below still run
      expect(tripped(s.bash, { env: (dir) => ({ T: dir }) })).toBe(true);
    });
    it.each(spellings.map((s) => [s.guard, s] as const))("is refused or asked under balanced and strict: %s", async (_g, s) => {
      const b = (await guardFor("balanced")).check(s.guard);
      const st = (await guardFor("strict")).check(s.guard);
      expect({ command: s.guard, balanced: `${b.decision}/${b.rule}`, strict: `${st.decision}/${st.rule}` }).toEqual({ command: s.guard, balanced: s.balanced, strict: s.strict });
    });
  });
}

describe("a quoted PROMPT_COMMAND given to export runs at the next prompt", () => {
  it("works in real interactive bash: export 'PROMPT_COMMAND=touch F'", () => {
    expect(tripped("export 'PROMPT_COMMAND=touch F'", { interactive: true })).toBe(true);
  });
  it.each([
    ["export 'PROMPT_COMMAND=rm -rf /'", "deny/session-names", "deny/session-names"],
    ["declare -x 'PS1=$(touch /var/tmp/x)'", "deny/session-names", "deny/session-names"],
    ["declare -x 'PS1=$(id)'", "deny/session-names", "deny/session-names"],
    ["export {PROMPT_COMMAND,x}=id", "deny/session-names", "deny/session-names"],
    ["export 'PS4=$(touch /var/tmp/x)'", "deny/write-outside-workspace", "deny/write-outside-workspace"],
    ["declare -x 'PS4=$(id)'", "ask/environment", "deny/environment"],
    ["export {PS4,x}=id", "ask/environment", "deny/environment"],
  ])("its text is judged, and setting the session's own prompt is refused: %s", async (c, balanced, strict) => {
    const b = (await guardFor("balanced")).check(c);
    const st = (await guardFor("strict")).check(c);
    expect([`${b.decision}/${b.rule}`, `${st.decision}/${st.rule}`]).toEqual([balanced, strict]);
  });
});

describe("gawk reads an awk bracket class as mawk does (F3)", () => {
  it.skipIf(!has("gawk"))("works in real gawk: a `/` inside `[[:alpha:]/]` does not end the regular expression", () => {
    expect(tripped(`gawk 'BEGIN { x = /[[:alpha:]/]/ / 1; system("touch F"); x = 1 / 1 }'`)).toBe(true);
  });
  it.each([
    // mawk knows no [=…=] or [.….]: where the awks or the guard could part ways, the program is not known safe.
    `awk 'BEGIN { x = /[[=a=]/ / 1; system("id"); x = 1 / 1 }'`,
    `awk 'BEGIN { x = /[[.a.]/ / 1; system("id"); x = 1 / 1 }'`,
    `awk 'BEGIN { x = /[[:alpha]/]/ / 1; system("id"); x = 1 / 1 }'`,
    "awk '/[a[/]/' f",
  ])("an ambiguous bracket expression is not known safe: %s", async (c) => {
    expect((await guardFor("balanced")).check(c).decision).toBe("ask");
    expect((await guardFor("strict")).check(c).decision).toBe("deny");
  });
});

describe("what stays allowed", () => {
  it.each([
    "mkdir -p src/{a,b}/{c,d}", "touch file{1..3}.txt", "echo {a,b}", "ls {src,test}", "touch {x,y}/{/etc/passwd,}", "echo '{/etc/passwd,}'",
    "sed 'y/[/]/' f", "sed 's/[/]/x/' f", "sed -n '/[[:alpha:]/]/p' f",
    "awk '/[[:alpha:]]/ {print}' f", "awk '/[[:alpha:][:digit:]_]+/ {print $1}' f", "awk '/[]a/]/' f", "awk '/[^]a]/' f",
    "tree -L 2 .", "tree -Lo 1 out.txt .", "tree --charset ascii -d src", "tree src -L 2",
    "x={a,b}; echo $x", "export NODE_ENV=production", "export 'NODE_ENV=production'", "declare x=1; echo $x",
  ])("%s", async (c) => {
    expect((await guardFor("balanced")).check(c).decision).toBe("allow");
  });
  it("a brace word past the expansion bound is unknown, so a write to it asks", async () => {
    const v = (await guardFor("balanced")).check(`touch {1..${GUARD.maxBraceWords + 1}}`);
    expect(`${v.decision}/${v.rule}`).toBe("ask/unknown-write-target");
  });
});

describe("brace expansion follows bash", () => {
  // Random unquoted words from the characters brace expansion reads, expanded by bash and by the guard.
  const atoms = ["{", "}", ",", "..", "a", "b", "1", "3", "-", "/", "0", "Z", ".", "{", "}", ",", "..", "x", "+", "2"];
  let seed = 20261126;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const words: string[] = [];
  while (words.length < 3000) {
    let w = "";
    for (let i = 1 + rnd(10); i > 0; i--) w += atoms[rnd(atoms.length)];
    if (w.includes("{")) words.push(w);
  }
  it("gives the words bash gives, in bash's order, for 3,000 random words", () => {
    const script = words.map((w) => `set -- ${w}; printf '%s\\x01' "$#" "$@"; echo`).join("\n");
    const r = spawnSync("bash", ["--norc", "--noprofile", "-s"], { input: script, encoding: "utf8", maxBuffer: 1 << 26 });
    const lines = r.stdout.split("\n");
    const wrong = words.flatMap((w, i) => {
      const [count, ...rest] = lines[i]!.split("\x01").slice(0, -1);
      const bash = rest.slice(0, Number(count));
      const guard = expandBraces(markUnquoted(w), { words: 100_000, chars: 10_000_000 })?.map(unmark);
      return JSON.stringify(guard) === JSON.stringify(bash) ? [] : [{ word: w, bash, guard }];
    });
    expect(wrong).toEqual([]);
  });
  it("stops at its bound instead of building the words", () => {
    expect(expandBraces(markUnquoted("{a,b}".repeat(30)))).toBeNull();
    expect(expandBraces(markUnquoted("{1..99999999}"))).toBeNull();
    expect(expandBraces(BRACE_OPEN.repeat(GUARD.maxBraceWordChars + 1))).toBeNull();
  });
});
