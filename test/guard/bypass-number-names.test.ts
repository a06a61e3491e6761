// A written path whose unseen part is only a number (`$$`, `$?`, `$!`, `${#x}`, `$((…))`) stays in its folder
// (red team round 8, F3), but the number is part of the file's NAME, and the config-write rule judged only the folder
// (red team round 9, F2). `$!` is empty until the shell starts a background job, so `./.git$!/config` is .git/config and
// `~/.bashrc$!` is ~/.bashrc; and a number keeps a name's ending: `site-packages/a$$.pth` is a .pth file, which python
// runs at every start. All were allowed under balanced. Such a word is now judged as the pattern of every name it may
// be (`$!` and `$-` any text, the others digits), like a glob. Each spelling is proved in real bash (what runs next
// leaves the tripwire), then must not be allowed; strict asks for every write anyway.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, spellingScript, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

const CONFIG = { balanced: "ask/config-write", strict: "deny/config-write" };
/** The next interactive bash start, which reads ~/.bashrc (HOME is the temporary directory). */
const NEXT_BASH = "bash -i </dev/null >/dev/null 2>&1";
/** python's version, for its user site-packages under HOME (the system python: pyenv's shims need the real HOME). */
const PY = spawnSync("/usr/bin/python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).stdout?.trim() ?? "";
const SITE = `.local/lib/python${PY}/site-packages`;

const SPELLINGS: Spelling[] = [
  { setup: "git init -q", run: "printf '[core]\\n\\tfsmonitor = touch F\\n' >> ./.git$!/config", after: "git status >/dev/null 2>&1", ...CONFIG },
  { setup: "", run: "echo 'touch F' >> ~/.bashrc$!", after: NEXT_BASH, ...CONFIG },
  { setup: "", run: "printf 'touch F\\n' > ./.bash_profile$!", after: "bash -l </dev/null >/dev/null 2>&1", ...CONFIG },
];
const PTH: Spelling = { setup: `mkdir -p ${SITE}`, run: `echo 'import os; os.system("touch F")' > ${SITE}/a$$.pth`, after: "/usr/bin/python3 -c 1", ...CONFIG };

describe("a number in a written name may make a configuration name", () => {
  itWorksInRealBash(SPELLINGS);
  it.skipIf(!PY)("works in real bash: a .pth named with $$ runs at python's start", () => {
    expect(tripped(spellingScript(PTH))).toBe(true);
  });
  itIsNotAllowedAsWritten([...SPELLINGS, PTH]);
  it("real bash: $! is empty before a background job, and a number afterwards", () => {
    expect(tripped('[ -z "$!" ] && : & wait; [ -n "$!" ] && touch F')).toBe(true);
  });
  it.each(["echo x > ./.git$!/hooks/pre-commit", "echo x > .claude$!/settings.json", "echo x > ~/.npmrc$!", "echo x > ./pkg/package.json$!", "echo x > ./.envrc$-"])(
    "%j asks under balanced",
    async (c) => {
      expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "ask" });
    },
  );
});

describe("what stays allowed under balanced", () => {
  it.each(["echo x > /tmp/out.$$", "date > ./build$?.log", "echo x > /tmp/x$!", "echo x > ./a$!.pth", "echo x > ./notes.$$.txt", "echo x > /tmp/run.$((1 + 2))",
    // digits never end a configuration name: .npmrc0 is not .npmrc
    "echo x > ~/.npmrc$?", "echo x > ./package.json$((1))", "echo x > ./.envrc${#x}"])("%j", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow" });
  });
});
