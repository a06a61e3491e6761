// The session's own shell names (the prompt hook and its counters, src/lib/session-names.ts) are refused under
// every preset when a command sets, unsets, declares, redefines or calls them: they are how the session knows a
// command has ended. Reading them stays allowed.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isSessionName } from "../../src/lib/session-names.ts";
import { braceWords } from "../../src/guard/braces.ts";
import { GUARD } from "../../src/limits.ts";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const POLICIES = ["strict", "balanced", "permissive"] as const;

async function refusedEverywhere(command: string): Promise<void> {
  for (const policy of POLICIES) {
    expect([policy, (await guardFor(policy)).check(command)]).toMatchObject([policy, { decision: "deny", rule: "session-names" }]);
  }
}

describe("a command may not set, unset, declare, redefine or call the session's own names", () => {
  it.each([
    "__ss_seq=5", "__ss_tok=1 ls", "__ss_seq[0]=1", "__ss_seq+=1", "export __ss_seq", "export -n __ss_seq", "declare -g __ss_seq=0", "declare -x __ss_seq",
    "typeset __ss_seq", "local __ss_ec=0", "readonly __ss_seq", "unset __ss_seq", "unset -v __ss_tok", "unset -f __sandshell_prompt",
    "__sandshell_prompt() { :; }", "function __sandshell_prompt { :; }", "__sandshell_prompt() { echo; } > /dev/null", "alias __sandshell_prompt=:",
    "let __ss_seq=9", "(( __ss_seq++ ))", "echo $(( __ss_seq = 3 ))", "read __ss_seq < f", "read -a __ss_k < f", "printf -v __ss_seq 1",
    "mapfile -t __ss_k < f", "readarray __ss_k < f", "getopts a __ss_c", "wait -p __ss_v", "for __ss_seq in 1; do :; done",
    "select __ss_seq in a; do break; done", ": ${__ss_seq:=1}", "declare -n r=__ss_seq", "eval '__ss_seq=1'", "bash -c '__ss_seq=1'",
    "f() { __ss_seq=1; }", "ls; __ss_seq=1", "__sandshell_prompt", "command __sandshell_prompt", "builtin command __sandshell_prompt",
    // `exec {NAME}>f` stores a descriptor in NAME; `coproc NAME` sets NAME and NAME_PID.
    "exec {__ss_seq}>f", "exec {__ss_seq}<f", "coproc __ss_seq { :; }", "coproc __ss { :; }", "x=__ss_seq; printf -v $x 1",
  ])("%j", async (command) => {
    await refusedEverywhere(command);
  });

  it("in real bash, exec {NAME}>f and coproc NAME set the variables they name", () => {
    const r = spawnSync("bash", ["--norc", "--noprofile", "-c", 'exec {__ss_x}>/dev/null; coproc __ss { :; }; echo "$__ss_x $__ss_PID"'], { encoding: "utf8" });
    expect(r.stdout).toMatch(/^\d+ \d+\n$/);
  });

  it("says which name and what to do instead", async () => {
    const v = (await guardFor("balanced")).check("__ss_seq=5");
    expect(v.reason).toContain("`__ss_seq`");
    expect(v.reason).toContain("session");
    expect(v.hint).toContain("another name");
  });

  it.each(["echo $__ss_seq", "declare -p __ss_seq", "declare -f __sandshell_prompt", "type __sandshell_prompt", "ss_seq=1", "x__ss_seq=1", "echo __ss_seq=1", "x='__ss_ is reserved'", "exec {fd}>f"])(
    "reading or merely mentioning one is left alone: %j",
    async (command) => {
      expect((await guardFor("balanced")).check(command).rule).not.toBe("session-names");
    },
  );

  it("covers every name the node runtime's shell code defines", async () => {
    const source = readFileSync(new URL("../../src/runtime/node/bash-scripts.ts", import.meta.url), "utf8");
    const names = [...new Set(source.match(/\b__(?:ss|sandshell)_[A-Za-z0-9_]*[A-Za-z0-9]/g) ?? [])];
    expect(names).toContain("__ss_seq");
    expect(names).toContain("__sandshell_prompt");
    for (const name of names) {
      expect(isSessionName(name, braceWords)).toBe(true);
      await refusedEverywhere(`${name}=1`);
    }
  });
});

describe("the session owns its prompt: setting PROMPT_COMMAND, PS0, PS1 or PS2 replaces the session's own hooks", () => {
  it.each([
    "PROMPT_COMMAND='touch F'", "PROMPT_COMMAND[1]='touch F'", "PS0='$(touch F)'", "PS1='$(touch F)$ '", "PS2='> '", "export PROMPT_COMMAND='touch F'",
    "export PS1", "export -n PS1", "declare PS1=x", "declare -x PS0=x", "declare -a PROMPT_COMMAND=(x)", "typeset PS1=x", "local PS1=x",
    "readonly PROMPT_COMMAND", "unset PROMPT_COMMAND", "unset -v PS0", "read PS1 < f", "IFS= read -r PROMPT_COMMAND < f", "printf -v PS1 x",
    "mapfile PS1 < f", "for PS1 in a; do :; done", ": ${PS1:=x}", "PS1=x ls", "let PS0=1", "declare -n r=PS1", "eval 'PS1=x'", "f() { PS0=x; }",
    "ls; PROMPT_COMMAND=x",
  ])("the session owns its prompt: %j", async (command) => {
    await refusedEverywhere(command);
  });

  it("says the session owns its prompt", async () => {
    const v = (await guardFor("balanced")).check("PROMPT_COMMAND='touch F'");
    expect(v.reason).toContain("`PROMPT_COMMAND`");
    expect(v.hint).toMatch(/owns its prompt/);
  });

  it.each(["echo $PS1", 'echo "$PROMPT_COMMAND"', "declare -p PS1 PS0", "printf '%s\\n' \"$PS0\"", "echo PS1=x", "PS4='+ ' bash -x x.sh", "MYPS1=x"])(
    "the session owns its prompt: reading or merely mentioning it is left alone: %j",
    async (command) => {
      expect((await guardFor("balanced")).check(command).rule).not.toBe("session-names");
    },
  );

  it("the session owns its prompt: in real interactive bash, PROMPT_COMMAND and PS0 run what they name at the next command", () => {
    expect(tripped("PROMPT_COMMAND='touch F'", { interactive: true })).toBe(true);
    expect(tripped("PS0='$(touch F)'\necho next", { interactive: true })).toBe(true);
    expect(tripped("PS1='$(touch F)$ '", { interactive: true })).toBe(true);
    // Not run by a non-interactive shell: the tripwire is the prompt.
    expect(tripped("PROMPT_COMMAND='touch F'; echo next")).toBe(false);
  });

  it("the session owns its prompt: every prompt variable the node runtime's shell sets is reserved", () => {
    const source = readFileSync(new URL("../../src/runtime/node/bash-scripts.ts", import.meta.url), "utf8");
    const set = [...new Set([...source.matchAll(/["`](PROMPT_COMMAND|PS\d)=/g)].map((m) => m[1]!))];
    expect(set).toEqual(expect.arrayContaining(["PROMPT_COMMAND", "PS0", "PS1"]));
    for (const name of set) expect(isSessionName(name, braceWords), name).toBe(true);
  });
});

describe("brace expansion makes several names of one word: the session's names and risky variables behind braces", () => {
  it.each([
    "unset PS{0,1}", "unset __ss_{seq,tok}", "declare PS{1,2}=x", "export PROMPT_COMMAN{D,}=x", "local PS{1,}", "read PS{1,2} < f", "printf -v PS{1,} x",
    "mapfile PROMPT_COMMAN{D,} < f", "getopts ab PS{1,}", "wait -p __ss_{a,b}", "read P{S{0,1},ROMPT_COMMAND} < f",
  ])("brace expansion of names: %j is refused under every preset", async (command) => {
    for (const policy of POLICIES) expect([policy, (await guardFor(policy)).check(command).decision]).toEqual([policy, "deny"]);
  });

  it.each(["export PATH{,}=/tmp/evil", "declare -x LD_PRELOAD{,}=/tmp/x.so", "read PAT{H,} < f", "printf -v PAT{H,} /tmp/x"])(
    "brace expansion of names: %j is not allowed (a risky variable behind braces)",
    async (command) => {
      expect((await guardFor("balanced")).check(command).decision).not.toBe("allow");
      expect((await guardFor("strict")).check(command).decision).not.toBe("allow");
    },
  );

  it("brace expansion of names: in real bash, unset PS{0,1}, declare PS{1,2}=x, export PATH{,}=… and read PS{1,2} set or unset every name", () => {
    const r = spawnSync(
      "bash",
      ["--norc", "--noprofile", "-c", 'PS0=a PS1=b; unset PS{0,1}; echo "[${PS0-u}${PS1-u}]"; declare PS{1,2}=x; echo "[$PS1$PS2]"; export PATH{,}=/nope; echo "[$PATH]"; read PS{1,2} <<< "p q"; echo "[$PS1$PS2]"'],
      { encoding: "utf8" },
    );
    expect(r.stdout).toBe("[uu]\n[xx]\n[/nope]\n[pq]\n");
  });

  it("brace expansion of names: braceWords follows bash", () => {
    for (const [word, expected] of [
      ["PS{0,1}", "PS0 PS1"], ["PROMPT_COMMAN{D,}", "PROMPT_COMMAND PROMPT_COMMAN"], ["a{1..3}", "a1 a2 a3"], ["x{a,{b,c}}y", "xay xby xcy"],
      ["{z..x}", "z y x"], ["a{b}c", "a{b}c"], ["{}", "{}"], ["x{,}", "x x"], ["P{S{0,1},ROMPT_COMMAND}", "PS0 PS1 PROMPT_COMMAND"],
    ] as const) {
      expect(braceWords(word)?.join(" "), word).toBe(expected);
      expect(spawnSync("bash", ["--norc", "--noprofile", "-c", `echo ${word}`], { encoding: "utf8" }).stdout.trim(), word).toBe(expected);
    }
    expect(braceWords(`a{1..${GUARD.maxBraceWords + 1}}`)).toBeNull();
  });

  it.each(["read a{1,2} < f", "read -r line", "echo {a,b}", "unset a[2]", "declare -a arr=({a,b})"])("brace expansion of names: %j is left alone", async (command) => {
    expect((await guardFor("balanced")).check(command).rule).not.toBe("session-names");
    expect((await guardFor("balanced")).check(command).decision).not.toBe("deny");
  });
});

describe("exec with a program in the session's shell is refused: the program would become the shell every caller types into", () => {
  it("in real bash, exec keeps the shell's process id: the program is then what the terminal's later lines reach", () => {
    const r = spawnSync("bash", ["--norc", "-c", 'echo $$; exec python3 -c "import os; print(os.getpid())"'], { encoding: "utf8" });
    const [shell, program] = r.stdout.trim().split("\n");
    expect(program).toBe(shell);
  });

  it.each(["exec python3 forge.py 3", "builtin exec python3 f.py", "command exec sh f.sh", "exec -a bash python3 x.py", "exec env python3 x.py", "eval 'exec python3 x.py'"])(
    "%s is refused under every preset",
    async (command) => {
      for (const policy of POLICIES) {
        expect([policy, (await guardFor(policy)).check(command)]).toMatchObject([policy, { decision: "deny", rule: "exec-replaces-shell" }]);
      }
    },
  );

  it.each([
    ["exec >log 2>&1", "ask"],
    ["bash -c 'exec python3 x.py'", "ask"],
    ["python3 x.py", "allow"],
    ["exec {fd}>f", "ask"],
  ])("%s is not replacing the session's shell (%s under balanced)", async (command, decision) => {
    expect((await guardFor("balanced")).check(command).decision).toBe(decision);
  });
});
