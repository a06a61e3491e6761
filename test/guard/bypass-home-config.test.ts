// Configuration an allowed program reads from HOME, which is the workspace in the node runtime (red team round 8,
// F5, F6). ncurses reads a terminal's description from ~/.terminfo before the system's, and `reset` (allowed under every
// preset: it only resets the terminal) runs the description's `iprog` capability through the shell. Writing
// ~/.terminfo/x/xterm-256color (the session's TERM) was an ordinary file write, allowed under balanced, so
// `base64 -d t.b64 > .terminfo/x/xterm-256color; reset` ran a program no command showed. ~/.terminfo is now a
// configuration folder: writing it asks. man-db reads ~/.manpath, whose DEFINE lines name the programs man runs
// (`DEFINE tbl touch F`), and `git --help SUB` (allowed: `--help` was a harmless global option) runs man: writing
// .manpath asks, and so does `git --help` with a command (man is not allowed by itself), or with any word after it
// (round 9: `git --help --help` is `git help --help`, which runs man git-help). Each spelling is proved in
// real bash (tic builds the description in the setup; `reset` runs on a terminal made by script(1); man reads a page
// from a MANPATH in the directory, so no cached page skips the formatting), then must not be allowed.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { type Spelling, tripped } from "./tripwire.ts";
import { itWorksInRealBash, itIsNotAllowedAsWritten } from "./spelling-tests.ts";

const has = (program: string): boolean => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
const NEEDS = ["tic", "script", "base64", "reset"];

/** A compiled description of xterm-256color whose iprog leaves the tripwire, as base64 in t.b64 (and bytes in t.bin). */
const DESCRIPTION =
  "printf 'xterm-256color|red team,\\n\\tiprog=touch F,\\n' > t.src && tic -x -o ti t.src 2>/dev/null && base64 ti/x/xterm-256color > t.b64 && " +
  "cp ti/x/xterm-256color t.bin && rm -rf ti t.src && mkdir -p .terminfo/x";
/** `reset` on a terminal, as in the session (TERM=xterm-256color, HOME the directory). */
const RESET = "TERM=xterm-256color script -qc reset /dev/null </dev/null >/dev/null 2>&1";
const CONFIG = { balanced: "ask/config-write", strict: "deny/config-write" };

const SPELLINGS: Spelling[] = [
  { setup: DESCRIPTION, run: "base64 -d t.b64 > .terminfo/x/xterm-256color", after: RESET, ...CONFIG },
  { setup: DESCRIPTION, run: "tee .terminfo/x/xterm-256color < t.bin >/dev/null", after: RESET, ...CONFIG },
  { setup: DESCRIPTION, run: "cat t.bin > ~/.terminfo/x/xterm-256color", after: RESET, ...CONFIG },
];

describe("~/.terminfo is configuration: reset runs a description's iprog", () => {
  itWorksInRealBash(SPELLINGS, NEEDS.every(has));
  it.skipIf(!NEEDS.every(has))("real bash: without the written description reset runs nothing", () => {
    expect(tripped(`${DESCRIPTION}\n${RESET}`)).toBe(false);
  });
  itIsNotAllowedAsWritten(SPELLINGS);
  it("the write and reset in one command line ask", async () => {
    expect((await guardFor("balanced")).check("base64 -d t.b64 > .terminfo/x/xterm-256color; reset")).toMatchObject({ decision: "ask", rule: "config-write" });
  });
});

/** A manual page for `git --help rt8` (gitrt8) that needs tbl. */
const PAGES = "mkdir -p man/man1 && for p in gitrt8; do printf \"'\\\\\\\" t\\n.TH X 1\\n.SH NAME\\nx\\n\" > man/man1/$p.1; done; export MANPATH=$PWD/man PAGER=cat";
const MANPATH_FILE = "printf 'DEFINE\\ttbl\\ttouch %s/F\\n' \"$PWD\" > .manpath";
/** A `man` first on PATH that leaves the tripwire: shows that git runs man at all. */
const FAKE_MAN = "mkdir bin && printf '#!/bin/sh\\ntouch F\\n' > bin/man && chmod +x bin/man && export PATH=$PWD/bin:$PATH";
const MAN_NEEDS = ["man", "groff", "git"];
const MAN_SPELLINGS: Spelling[] = [
  { setup: PAGES, run: MANPATH_FILE, after: "git --help rt8 >/dev/null 2>&1", ...CONFIG },
  { setup: `${PAGES}; ${MANPATH_FILE}`, run: "git --help rt8 >/dev/null 2>&1", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
  // git's options end at the first --help: `git --help --help` is `git help --help`, which runs `man git-help` (round 9,
  // F4). man-db shows that page from its cache here, so the proof is that git runs a program named man (first on PATH).
  { setup: FAKE_MAN, run: "git --help --help >/dev/null 2>&1", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
  { setup: FAKE_MAN, run: "git --no-pager --help --help >/dev/null 2>&1", balanced: "ask/not-allowlisted", strict: "deny/not-allowlisted" },
];

describe("~/.manpath names the programs man runs, and git --help SUB runs man", () => {
  itWorksInRealBash(MAN_SPELLINGS, MAN_NEEDS.every(has));
  it.skipIf(!MAN_NEEDS.every(has))("real bash: without .manpath the page is shown and nothing runs", () => {
    expect(tripped(`${PAGES}\ngit --help rt8 >/dev/null 2>&1`)).toBe(false);
  });
  itIsNotAllowedAsWritten(MAN_SPELLINGS);
  // git 2.39 turns `--version --help` into `git help version`, which runs `man git-version` (seen with strace(1)).
  it.each(["git --version --help", "git --no-pager --help log", "git -P --help status"])("%j asks: it runs man", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "ask", rule: "not-allowlisted" });
  });
});

describe("what stays allowed", () => {
  it.each(["reset", "clear", "cat .terminfo/x/xterm-256color", "echo x > terminfo.txt", "git --help", "git --no-pager --help", "git --version", "cat .manpath"])("%j is allowed under balanced", async (c) => {
    expect((await guardFor("balanced")).check(c)).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
});
