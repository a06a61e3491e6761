// Read-only commands that used to ask (red team rounds 6 and 7, false asks): a version check, git's listings and config
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
  "tar -tzf x.tgz", "tar tvf x.tgz", "tar --list -f x.tar.xz", "unzip -l x.zip", "unzip -t x.zip", "unzip -p x.zip s/a", "zcat f.gz | head",
  "gzip -dc f.gz", "gunzip -c f.gz", "gzip -l f.gz", "gzip -t f.gz",
  // red team round 7's false asks
  "git reflog", "git reflog -n 5", "git reflog show main", "git merge-base HEAD main", "git merge-base --is-ancestor HEAD main",
  "git for-each-ref --format='%(refname)' refs/heads", "git count-objects -v", "git check-ignore -v x", "git notes list", "git notes show HEAD",
  "xz -dc x.xz", "xzcat x.xz", "xz -l x.xz", "bzip2 -dc x.bz2", "bzcat x.bz2", "bzip2 -t x.bz2", "zstd -dc x.zst", "zstdcat x.zst", "zstd -l x.zst",
];

const STILL_ASKED = [
  // python3 -v is verbose mode: with no program it reads one from the terminal
  "python3 -v", "python3 -i", "xargs python3 --version < list",
  "git stash", "git stash -q list", "git stash pop", "git stash list --output=/tmp/x", "git worktree add x", "git config user.name x",
  "git config --unset user.name", "git config edit", "git config -e", "git config --add a.b c", "git grep -O foo", "git grep -Ovi foo",
  "git grep --open-files-in-pager=vi foo", "git grep --textconv foo", "git grep $X", "git remote add x y", "git submodule update", "git submodule",
  "tar -xzf x.tgz", "tar xf x.tar", "tar -czf x.tgz s", "tar -tf x.tar -I ./p.sh", "tar -t --use=./p.sh -f x.tar", "tar -tf x.tar --to-command=sh",
  "tar -tf x.tar --checkpoint=1 --checkpoint-action=exec=sh", "tar -tf host:x.tar", 'tar -tf "$A"', "tar -tf x.tar $X", "unzip x.zip", "unzip -l $X",
  "unzip -l x.zip -d /tmp", "unzip -lM x.zip", "gzip f", "gunzip f.gz", "gzip -d f.gz", "gzip $X f",
  "git reflog expire --all", "git reflog delete HEAD@{1}", "git reflog $X", "git reflog main", "git reflog --grep expire", "git reflog -n 5 $X", "git reflog --output=x", "git notes", "git notes add -m x",
  "git notes remove", "git for-each-ref --format=%(refname) $X", "xz f", "xz -d f.xz", "unxz f.xz", "bzip2 f", "bunzip2 f.bz2", "zstd f", "zstd -d f.zst",
  "zstd -dc f.zst -o g", "zstd -dc $X", "zstd -c --rm f", "zstdcat -o g f.zst", "pip list --outdated", "pip --log x list", "pip list $X",
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

describe("listing or decompressing to stdout writes nothing (real tar, unzip, gzip)", () => {
  const ARCHIVE = "mkdir s; echo hi > s/a; tar -czf x.tgz s; tar -cf x.tar s; gzip -c s/a > f.gz; rm -r s";
  it.skipIf(!has("tar") || !has("gzip"))("the allowed forms leave the directory as it was", () => {
    const forms = ["tar -tzf x.tgz", "tar tvf x.tgz", "tar -tf x.tar", "zcat f.gz", "gzip -dc f.gz", "gunzip -c f.gz", "gzip -l f.gz", "gzip -t f.gz"];
    const script = `${ARCHIVE}; ls > ../before; ${forms.join(" >/dev/null; ")} >/dev/null; ls > ../after; cmp -s ../before ../after && touch F`;
    expect(tripped(`mkdir w && cd w && ${script}; [ -e F ] && touch ../F`)).toBe(true);
  });
  it.skipIf(!has("unzip") || !has("python3"))("unzip -l, -t and -p leave the directory as it was", () => {
    const zip = `mkdir s; echo hi > s/a; python3 -c "import zipfile; z = zipfile.ZipFile('x.zip', 'w'); z.write('s/a'); z.close()"; rm -r s`;
    const script = `${zip}; ls > ../before; unzip -l x.zip >/dev/null; unzip -t x.zip >/dev/null; unzip -p x.zip s/a >/dev/null; ls > ../after; cmp -s ../before ../after && touch F`;
    expect(tripped(`mkdir w && cd w && ${script}; [ -e F ] && touch ../F`)).toBe(true);
  });
  it.each(["tar -tf x.tar -I ./p.sh", "tar -t --use=./p.sh -f x.tar", 'tar -tf x.tar --checkpoint=1 --checkpoint-action=exec="touch F"'])(
    "tar -t with a program option runs that program, so it asks: %j",
    (c) => {
      if (!has("tar")) return;
      expect(tripped(`${ARCHIVE}; printf '#!/bin/sh\\ntouch F\\ncat\\n' > p.sh; chmod +x p.sh; ${c}`)).toBe(true);
    },
  );
});

describe("read-only git and decompressing to stdout write nothing (red team round 7's false asks, real programs)", () => {
  const snapshot = "find . -type f | sort | xargs md5sum";
  const REPO = "git init -q . && echo a > f && git add f && git -c user.email=a@b -c user.name=a commit -q -m x && git branch main 2>/dev/null; git -c user.email=a@b -c user.name=a notes add -m n";
  const forms = [
    "git reflog", "git reflog -n 5", "git reflog show main", "git merge-base HEAD main", "git merge-base --is-ancestor HEAD main",
    "git for-each-ref --format='%(refname) %(objectname) %(contents:subject)' refs/heads", "git count-objects -v", "git check-ignore -v x", "git notes list",
    "git notes show HEAD",
  ];
  /** True when `run` changed a file under the directory (a checksum of every file before and after). */
  const changed = (setup: string, run: string) =>
    tripped(`mkdir w && cd w && ${setup}; ${snapshot} > ../before; ${run}; ${snapshot} > ../after; cmp -s ../before ../after || touch ../F`);
  it.skipIf(!has("git")).each(forms)("%j leaves the repository as it was", (c) => {
    expect(changed(REPO, `${c} >/dev/null 2>&1`)).toBe(false);
  });
  it.skipIf(!has("git"))("the same check sees git reflog expire change the repository", () => {
    expect(changed(REPO, "git reflog expire --expire=now --all")).toBe(true);
  });
  const PACKED = "echo hi > s; xz -k s; bzip2 -k s; zstd -q s; rm s";
  it.skipIf(!["xz", "bzip2", "zstd"].every(has)).each([
    "xz -dc s.xz", "xzcat s.xz", "xz -l s.xz", "xz -t s.xz", "unxz -c s.xz", "bzip2 -dc s.bz2", "bzcat s.bz2", "bzip2 -t s.bz2", "bunzip2 -c s.bz2",
    "zstd -dc s.zst", "zstdcat s.zst", "zstd -l s.zst", "zstd -t s.zst", "unzstd -c s.zst",
  ])("%j writes no file", (c) => {
    expect(changed(PACKED, `${c} >/dev/null 2>&1`)).toBe(false);
  });
  it.skipIf(!has("zstd"))("zstd -dc with -o writes a file, so -o is not listed", () => {
    expect(changed(PACKED, "zstd -dc s.zst -o g >/dev/null 2>&1")).toBe(true);
  });
});

describe("pip runs project code: the .pth files of its environment (red team round 7)", () => {
  it.skipIf(!has("pip") || !has("python3"))("pip list runs a .pth file in the user's site-packages (real pip)", () => {
    expect(tripped(`S=$(python3 -m site --user-site); mkdir -p "$S"; echo 'import os; os.system("touch F")' > "$S/x.pth"; pip list`)).toBe(true);
  });
  it.each(["pip list", "pip3 show requests", "pip freeze", "pip list --format=json"])("%j is project code: allowed under balanced, asked under strict", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "project-code" });
    expect((await guardFor("strict")).check(c)).toMatchObject({ decision: "ask", rule: "project-code" });
  });
});
