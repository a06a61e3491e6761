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
  "tar -tzf x.tgz", "tar tvf x.tgz", "tar --list -f x.tar.xz", "unzip -l x.zip", "unzip -t x.zip", "unzip -p x.zip s/a", "zcat f.gz | head",
  "gzip -dc f.gz", "gunzip -c f.gz", "gzip -l f.gz", "gzip -t f.gz", "gzip -dc $X",
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
