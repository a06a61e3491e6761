// Shell options and variable attributes that change how bash reads the commands after them (issue #9,
// "shell state"). The guard reads commands by bash's default rules; an option that changes those rules
// (keyword assignments, allexport, comments, lastpipe, cdable_vars, integer and nameref attributes) makes
// every later verdict a guess. Each spelling is proven in real bash 5 with a `touch` tripwire, and the guard
// must ask for it under every preset (layer 1 `shell-rules`; strict refuses it).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { POLICIES } from "../../src/guard/index.ts";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

interface Spelling {
  /** Leaves F in a fresh temporary directory exactly when the option changes what bash does. */
  bash: string;
  /** Spellings of the same class the guard must not allow, under any preset. */
  guard: string[];
  setup?: (dir: string) => void;
}

const git = (dir: string) => execFileSync("git", ["init", "-q", dir]);

const CLASSES: Record<string, Spelling> = {
  "set -k (keyword) puts assignments after the program name in its environment": {
    bash: "set -k; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch F' >/dev/null 2>&1",
    setup: git,
    guard: [
      "set -k", "set -o keyword", "set -ek", "set -euk -o pipefail", "shopt -s -o keyword", "shopt -os keyword",
      "set -k; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch t'",
      "set -o keyword; rg x RIPGREP_CONFIG_PATH=cfg.txt",
    ],
  },
  "set -a (allexport) exports every later plain assignment": {
    bash: "set -a; y='touch F'; bash -c '$y'",
    guard: ["set -a", "set -o allexport", "set -ea", "shopt -s -o allexport", "set -a; GCONV_PATH=./g; git log --encoding=x"],
  },
  "comments turned off: `#` no longer hides the rest of the line": {
    bash: "bash --norc --noprofile -i -c $'shopt -u interactive_comments\\necho a # ; touch F' 2>/dev/null",
    guard: [
      "shopt -u interactive_comments", "set +o interactive-comments", "shopt -u -o interactive-comments",
      "shopt -u interactive_comments\necho a # ; touch /etc/x", "set +o interactive-comments\necho a # ; rm -rf /",
    ],
  },
  "shopt -s cdable_vars: cd to a variable's value": {
    bash: "mkdir -p out; shopt -s cdable_vars; x=$PWD/out; cd x && touch ../F",
    guard: ["shopt -s cdable_vars", "shopt -s cdable_vars; x=/etc; cd x && touch passwd"],
  },
  "shopt -s lastpipe: the last stage of a pipeline changes this shell": {
    bash: "shopt -s lastpipe; x=G; echo | x=F; touch $x",
    guard: [
      "shopt -s lastpipe", "shopt -s lastpipe; x=/tmp; echo | x=/etc; echo > $x/passwd", "shopt -s lastpipe; echo /etc | read x; touch $x/passwd",
      "set +m; shopt -s lastpipe; cd src && { echo | cd ..; touch ../x; }",
    ],
  },
  "declare -i: a later assignment is arithmetic and runs a subscript's code": {
    bash: "declare -i x; x='a[$(touch F)]'",
    guard: ["declare -i x", "typeset -i x", "local -i n", "declare -ai x", "declare -i x; x='a[$(touch t)]'", "declare -i x; read x"],
  },
  "declare -n: a later assignment sets the variable the reference names": {
    bash: "mkdir bin; printf '#!/bin/sh\\n/usr/bin/touch F\\n' > bin/ls; chmod +x bin/ls; declare -n r=PATH; r=$PWD/bin:$r; ls",
    guard: ["declare -n r=PATH", "typeset -n r", "local -n r=PAGER", "declare -n r=PATH; r=/tmp/bin:$PATH; ls", "declare -n r=PAGER; r='touch t'; git log"],
  },
  "alias, hash -p and functions named like commands change what a later command's words run": {
    // The alias opens a quote, so what the next line quotes runs: `x ' ; touch F #'` is `echo '' ; touch F #'`.
    bash: "shopt -s expand_aliases\nalias x=\"echo '\"\nx ' ; touch F #'",
    guard: [
      "alias x=\"echo '\"", "alias ls='rm -rf ./build'", "alias g=git", "hash -p /bin/rm ls", "hash -dp /tmp/x ls", "enable -n echo", "enable -f x.so y",
      "ls() { \"$@\"; }", "git() { id; }", "command_not_found_handle() { \"$@\"; }",
    ],
  },
  "xpg_echo: echo decodes backslashes, so the text piped to sh is not what it looks like": {
    bash: "shopt -s xpg_echo; echo 'touc\\x68 F' | sh",
    guard: ["shopt -s xpg_echo", "shopt -s xpg_echo; echo 'r\\x6d -rf /' | sh"],
  },
};

describe("shell options and attributes that change how later commands are read", () => {
  for (const [name, s] of Object.entries(CLASSES)) {
    describe(name, () => {
      it("works in real bash", () => {
        expect(tripped(s.bash, s.setup ? { setup: s.setup } : {})).toBe(true);
      });
      it.each(s.guard.map((g) => [g]))("is not allowed under any preset: %j", async (command) => {
        for (const policy of POLICIES) {
          const v = (await guardFor(policy)).check(command);
          expect({ policy, command, decision: v.decision }).not.toEqual({ policy, command, decision: "allow" });
        }
      });
    });
  }

  it("asks under balanced with the rule shell-rules, and says what changes", async () => {
    const v = (await guardFor("balanced")).check("set -k");
    expect(v).toMatchObject({ decision: "ask", layer: 1, rule: "shell-rules" });
    expect(v.reason).toContain("set -k");
  });

  it.each([
    "set -euo pipefail", "set -x", "set +e", "set +a", "set -- a b", "set -o noclobber", "set -o", "shopt -s globstar", "shopt -s dotglob",
    "shopt -u nullglob", "shopt -p lastpipe", "shopt -q extglob", "declare -a arr", "declare -A map", "local x=1", "declare +i x", "readonly N=3",
    "hash -r",
  ])("still allows %j under balanced", async (command) => {
    expect((await guardFor("balanced")).check(command).decision).toBe("allow");
  });
});
