// Under strict a read whose place the guard cannot resolve asks, as a read outside the workspace does: "allow is a
// proof". `cat "$F"`, `cat $(cat list)`, `cat ~root/.bashrc`, `cat src/$X` (X=../../etc/passwd), `xargs cat < list`,
// `wc --files0-from=list` were allowed under strict while `cat /etc/passwd` asked. Balanced is unchanged: it allows
// reads anywhere (the OS sandbox hides the secrets). Computed reads that are still provably inside stay allowed: the
// names xargs or `$(…)` takes from a `find` in the workspace (directly or through filters that keep whole lines) or from
// `git ls-files`, and a process substitution (`<(…)` is a pipe). Real bash proves the spellings read an outside file.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";

/** Each spelling reads a file whose place is computed (a variable, a substitution, a list, xargs's input). */
const UNKNOWN = [
  'cat "$F"', "cat $F", "cat ${F}", "cat ${F:-x}", "cat $(cat list)", "cat `cat list`", "cat ~root/.bashrc", "cat ~-/x", "cat $((1+2))",
  'cat "$D"/x', "cat src/$X", 'cat ./"$F"', "cat /tmp/$X", 'cat < "$F"', 'head -n 3 "$1"', 'grep -f "$P" x', 'grep x "$@"', 'diff "$A" b',
  'env -C "$D" cat x', 'cat "$(pwd)/$X"', "cat $(pwd -P)/x", "for f in *.py; do wc -l \"$f\"; done", 'F=$(ls | head -1); cat "$F"', "gzip -dc $X",
  // xargs and its input
  "xargs cat < list", "cat list | xargs head", "xargs -a list cat", "find . | sed s,^,/etc, | xargs cat", "find . -printf /etc/passwd | xargs cat",
  "find . -ls | xargs cat", "find . 2>&1 | xargs cat", "find . | head -c 20 | xargs cat", "find . | grep -o x | xargs cat",
  "find . | xargs grep -l x | xargs cat", "find . | xargs -I{} cat {}/../../etc/passwd", "git ls-files --full-name | xargs cat",
  "cat $(find . | sed s,^,/,)", "cat $(find . -printf /etc/passwd)", "cat $(find . ; echo /etc/passwd)", "{ find .; echo /etc/passwd; } | xargs cat",
  // xargs (or a filter before it) whose input is not the pipe from find, or a filter that cuts lines elsewhere
  "find . | { xargs cat; } < list", "find . | (xargs cat) < list", "find . | { grep x; } < list | xargs cat", "find . | xargs -0a list cat",
  "find . | xargs --arg=list cat", "find . -print0 | xargs -d % cat", "find . | xargs -rd r cat", "find . | xargs --delim=r cat", "find . | tac -s / | xargs cat", "find . | while read l; do xargs cat; done < list",
  // options whose file names more files
  "wc --files0-from=list", "wc --files0=list", "sort --files0-from=list", "du --files0-from=list", "du -c --files0-from=-", "find . -files0-from list",
  "git config -f cfg --includes -l", "git config --blob HEAD:cfg --includes --get a.b", "tar -tf x.tar -T list",
];

/** Reads the guard knows to be inside: allowed under balanced and strict. */
const INSIDE = [
  "cat README.md", "cat -- *.txt", "cat src/*.ts", 'cat "$HOME/x"', "cat ~/x", "cat ~+/x", "diff <(sort a) <(sort b)", "comm -3 <(sort a) <(sort b)",
  "F=README.md; cat \"$F\"", "find . -name '*.c' | xargs wc -l", "find src -type f -print0 | xargs -0 grep -n x", "find . -name '*.c' | xargs -I{} head -n 3 {}",
  "find . -name '*.c' 2>/dev/null | xargs wc -l", "find . -name '*.php' | grep -v test | sort | xargs wc -l", "find . -print0 | sort -z | xargs -0 sha1sum", "find . | xargs -d '\\n' cat",
  "find . | tail -n 3 | xargs cat", "find . -type f | head -5 | xargs cat", "cat $(find . -name '*.foo')", "wc -l `find . -name '*.php'`",
  "git ls-files | xargs wc -l", "git ls-files -z | xargs -0 wc -l", "cd src && find . | xargs cat", "tar -tf x.tar --verbatim-files-from -T list", "git config -f cfg -l",
  "git config --includes -f cfg --no-includes -l", "ps -p $$", "ls `pwd`/*", 'cat "$(pwd)/README.md"', "readlink `pwd`", "ps -o pid --ppid $P", "echo \"$X\"", "test -f \"$F\"",
];

/** Reads outside the workspace stay `read-outside-workspace`, with the place in the reason. */
const OUTSIDE: Array<[string, string]> = [
  ['head "$HOME/../x"', "/home/x"], ["cat */../../x", "/home/x"], ["find /etc | xargs cat", "/etc"], ["find .. | xargs cat", "/home"],
  ["wc --files0-from=/etc/x", "/etc/x"], ["xargs -a /etc/list cat", "/etc/list"], ["cat /etc/$X", "/etc"], ['cat "$(pwd)/../x"', "/home/x"], ["cat $(pwd)x", "/home/projectx"],
];

describe("strict unknown reads: a read the guard cannot resolve asks under strict, as a read outside does", () => {
  it.each(UNKNOWN.map((c) => [c]))("strict unknown read: %j asks under strict and stays allowed under balanced", async (command) => {
    const v = (await guardFor("strict")).check(command);
    expect(v.decision).toBe("ask");
    expect(["read-unknown-path", "read-outside-workspace"]).toContain(v.rule);
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow" });
  });

  it.each([
    ['cat "$F"', "`\"$F\"` (computed)"], ["cat src/$X", "`src/$X` (computed)"], ["cat ~root/.bashrc", "`~root/.bashrc` (computed)"],
    ['env -C "$D" cat x', '`"$D"/x` (computed)'], ["cat list | xargs head", "the file names it is given on its input"],
    ["wc --files0-from=list", "the files listed in list"], ["git config -f cfg --includes -l", "the files listed in cfg"],
  ])("strict unknown read: %j names what it cannot resolve", async (command, detail) => {
    const v = (await guardFor("strict")).check(command);
    expect(v).toMatchObject({ decision: "ask", rule: "read-unknown-path", layer: 2 });
    expect(v.reason).toContain(detail);
    expect(v.reason).toMatch(/strict/);
  });

  it.each(INSIDE.map((c) => [c]))("strict unknown read: %j is provably inside and stays allowed under strict and balanced", async (command) => {
    expect((await guardFor("strict")).check(command)).toMatchObject({ decision: "allow" });
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow" });
  });

  it.each(OUTSIDE)("strict unknown read: %j stays a read outside the workspace (%s)", async (command, place) => {
    const v = (await guardFor("strict")).check(command);
    expect(v).toMatchObject({ decision: "ask", rule: "read-outside-workspace" });
    expect(v.reason).toContain(place);
  });
});

// Real bash: each spelling prints a file outside the directory it runs in, though no literal path names it.
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function outputOf(script: (secret: string, work: string) => string): string {
  const outside = mkdtempSync(join(tmpdir(), "sandshell-outside-"));
  const work = mkdtempSync(join(tmpdir(), "sandshell-work-"));
  dirs.push(outside, work);
  const secret = join(outside, "secret");
  writeFileSync(secret, "sekrit-4711\n");
  writeFileSync(join(outside, "included"), "[x]\n\tsecret = sekrit-4711\n");
  mkdirSync(join(work, "src"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, GIT_CONFIG_NOSYSTEM: "1" };
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", script(secret, work)], { cwd: work, env, encoding: "utf8", timeout: 20_000 });
  return r.stdout;
}

describe("strict unknown reads in real bash: the spelling prints the outside file", () => {
  it.each<[string, (secret: string, work: string) => string]>([
    ['F=SECRET; cat "$F"', (s) => `F=${s}; cat "$F"`],
    ["cat $(cat list)", (s) => `echo ${s} > list; cat $(cat list)`],
    ["cat src/$X (X climbs out of src)", (s, w) => `X=${relative(join(w, "src"), s)}; cat src/$X`],
    ["cat ~-/secret (OLDPWD)", (s) => `cd ${s.replace(/\/secret$/, "")} && cd - >/dev/null && cat ~-/secret`],
    ["xargs cat < list", (s) => `echo ${s} > list; xargs cat < list`],
    ["wc --files0-from=list", (s) => `printf '%s\\0' ${s} > list; wc -c --files0-from=list`],
    ["find . | sed | xargs cat", (s) => `find . -maxdepth 0 | sed 's,^\\.,${s},' | xargs cat`],
    ["find . -print0 | xargs -d % cat (a name in the workspace cut at %)", (s) => `mkdir -p "./%${s.replace(/\/secret$/, "")}" && echo decoy > "./%${s}"; find . -path '*/secret' -print0 | xargs -d % cat`],
    ["find . | { xargs cat; } < list (the group's redirect wins over the pipe)", (s) => `echo ${s} > list; find . -maxdepth 0 | { xargs cat; } < list`],
    ["git config -f cfg --includes -l", (s) => `printf '[include]\\n\\tpath = %s\\n' ${s.replace(/secret$/, "included")} > cfg; git config -f cfg --includes -l`],
  ])("strict unknown read proven in real bash: %s", (_name, script) => {
    const out = outputOf(script);
    // wc prints the count and the outside file's name; the others print the secret itself
    expect(out).toMatch(/sekrit-4711|sandshell-outside-[^/]+\/secret/);
  });

  it("strict unknown read proven in real bash: `find . | xargs cat` and `cat $(find .)` print only files under the directory", () => {
    const out = outputOf(() => "echo inside-1 > src/a; find src -type f | xargs cat; cat $(find src -type f)");
    expect(out).toBe("inside-1\ninside-1\n");
  });
});
