// A name gets a value, or loses it, without an assignment word: a loop variable (`for PATH in …`), `${NAME:=…}`
// in any word, a name builtins parse with its subscript (`unset a[\$\(…\)]`), arithmetic (`[[ PATH=1 -eq 1 ]]`),
// `unset`/`readonly`/`export -n`, a named descriptor (`: {PATH}>f`), `export NAME` without a value, `set`/`shopt`
// options, and functions named like builtins. Every one goes through the one place assignments are judged (the
// parser lists the names in `shellAssigns`/`exports`, the environment row judges them by the positive list of
// harmless variables), so each spelling asks under balanced and is refused under strict. Real bash proves each
// class, with `touch F` standing in for the payload (the guard rows use a payload it refuses outright).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

/** [command, balanced, strict] verdicts. */
type Row = [string, "allow" | "ask" | "deny", "allow" | "ask" | "deny"];

async function expectVerdicts([command, balanced, strict]: Row): Promise<void> {
  expect((await guardFor("balanced")).check(command).decision, `balanced: ${command}`).toBe(balanced);
  expect((await guardFor("strict")).check(command).decision, `strict: ${command}`).toBe(strict);
}

/** A program named ls in `sub` of the directory, which leaves the tripwire F there. */
function plantLs(sub: string): (d: string) => void {
  return (d) => {
    mkdirSync(join(d, sub), { recursive: true });
    writeFileSync(join(d, sub, "ls"), "#!/bin/sh\n: > F\n");
    chmodSync(join(d, sub, "ls"), 0o755);
  };
}

/** Directory `d/sub` for a `cd sub` that CDPATH sends there. */
const cdpathDir = (d: string): void => void mkdirSync(join(d, "d", "sub"), { recursive: true });

describe("a for or select loop variable is an assignment", () => {
  it.each<Row>([
    ["for PATH in $PWD/bin; do :; done", "ask", "deny"],
    ["for PS0 in '$(touch F)'; do :; done", "deny", "deny"], // the session's own prompt (session-names)
    ["for IFS in o; do :; done", "ask", "deny"],
    ["for HOME in /var/tmp; do :; done", "ask", "deny"],
    ["for CDPATH in /var; do :; done", "ask", "deny"],
    ["for PWD in /var/tmp; do :; done", "ask", "deny"],
    ["for GIT_PAGER in 'touch F'; do export GIT_PAGER; git log -1; done", "ask", "deny"],
    ["for PATH; do :; done", "ask", "deny"],
    ["select PATH in a; do break; done", "ask", "deny"],
    ["select PS1; do break; done", "deny", "deny"], // the session's own prompt (session-names)
    ["for __ss_seq in 100; do :; done", "deny", "deny"],
    // the loop variable is unknown to the guard: under strict a read of it asks (read-unknown-path, strict-unknown-reads.test.ts)
    ["for f in *.txt; do wc -l $f; done", "allow", "ask"],
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: `for PS0 in …` sets the prompt string an interactive shell expands before each command", () => {
    expect(tripped("for PS0 in '$(touch F)'; do :; done", { interactive: true })).toBe(true);
  });
  it("real bash: `for CDPATH in …` sends a later `cd sub` elsewhere", () => {
    expect(tripped("for CDPATH in $PWD/d; do :; done; cd sub && touch F", { setup: cdpathDir, tripwire: "d/sub/F" })).toBe(true);
  });
  it("real bash: `for IFS in o` changes how a later unquoted expansion splits", () => {
    expect(tripped("for IFS in o; do :; done; x=aoF; touch $x")).toBe(true);
  });
});

describe("${NAME:=…} and ${NAME=…} assign NAME in any word", () => {
  it.each<Row>([
    [": ${PS0:='$(touch F)'}", "deny", "deny"], // the session's own prompt (session-names)
    ["echo ${PAGER:=x}", "ask", "deny"],
    [": ${PATH=x}", "ask", "deny"],
    ["cat ${HISTFILE:=/var/tmp/x}", "ask", "deny"],
    ["[[ ${PS0:=x} ]]", "deny", "deny"], // the session's own prompt (session-names)
    ["case ${PS0:=x} in *) ;; esac", "deny", "deny"], // the session's own prompt (session-names)
    ["case x in ${CDPATH:=/var}) ;; esac", "ask", "deny"],
    ["cat <<EOF\n${CDPATH:=/var}\nEOF", "ask", "deny"],
    ["echo \"${HOME:=x}\"", "ask", "deny"],
    ["x=PATH; : ${!x:=1}", "ask", "deny"],
    [": ${!x:=1}", "ask", "ask"],
    ["echo ${x:=a}", "allow", "allow"],
    ["echo ${HOME:-x}", "allow", "allow"],
    ["cat <<'EOF'\n${CDPATH:=/var}\nEOF", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: `[[ ${PS0:=…} ]]` sets PS0, which runs before the next command", () => {
    expect(tripped("[[ ${PS0:='$(touch F)'} ]]", { interactive: true })).toBe(true);
  });
  it("real bash: a case subject `${CDPATH:=…}` sends a later `cd sub` elsewhere", () => {
    expect(tripped("case ${CDPATH:=$PWD/d} in *) ;; esac; cd sub && touch F", { setup: cdpathDir, tripwire: "d/sub/F" })).toBe(true);
  });
  it("real bash: `${!x:=…}` assigns the variable x names", () => {
    expect(tripped("x=CDPATH; : ${!x:=$PWD/d}; cd sub && touch F", { setup: cdpathDir, tripwire: "d/sub/F" })).toBe(true);
  });
});

// `PAYLOAD` is `touch\ /etc/F` for the guard (refused wherever it is seen) and `touch\ F` for bash.
const NAME_WORDS = [
  "unset PATH[\\$\\(PAYLOAD\\)]",
  "read a[\\$\\(PAYLOAD\\)] <<< 1",
  "printf -v a[\\$\\(PAYLOAD\\)] x",
  "test -v a[\\$\\(PAYLOAD\\)]",
  "a=(1); unset a[\\`PAYLOAD\\`]",
  "sleep 0 & wait -n -p a[\\$\\(PAYLOAD\\)]",
  "a=(1); unset \"a\"[\\$\\(PAYLOAD\\)]",
];

describe("a name word is read after quote removal: its subscript is code", () => {
  it.each(NAME_WORDS)("%j", async (spelling) => {
    await expectVerdicts([spelling.replaceAll("PAYLOAD", "touch\\ /etc/F"), "deny", "deny"]);
  });
  it.each<Row>([
    ["test -R a[\\$\\(touch\\ /etc/F\\)]", "deny", "deny"],
    ["read -a a[\\$\\(touch\\ /etc/F\\)] <<< 1", "deny", "deny"],
    ["[[ -R a[\\$\\(touch\\ /etc/F\\)] ]]", "deny", "deny"],
    // The subscript of a named descriptor is read as written, backslashes and all: not known, so asked.
    [": {a[\\$\\(touch\\ /etc/F\\)]}>/dev/null", "ask", "ask"],
    // A name whose value is a subscript holding code: `unset arr[x]` evaluates x.
    ["x='a[$(touch /etc/F)]'; arr=(1 2); unset arr[x]", "deny", "deny"],
    ["unset arr[x]", "ask", "ask"],
    ["unset -v arr[i+1]", "ask", "ask"],
    ["unset array[2]", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it.each(NAME_WORDS)("real bash runs the subscript of %j", (spelling) => {
    expect(tripped(spelling.replaceAll("PAYLOAD", "touch\\ F"))).toBe(true);
  });
  it("real bash: `unset arr[x]` evaluates the code x holds", () => {
    expect(tripped("x='a[$(touch F)]'; arr=(1 2); unset arr[x]")).toBe(true);
  });
});

// A compound assignment's element subscript is read after quote removal too (round 4, G2): bash removes the
// backslashes of `[\$\(…\)]=1`, then evaluates the subscript as arithmetic, which runs the command.
const COMPOUND_SUBSCRIPTS = [
  "x=([\\$\\(PAYLOAD\\)]=1)",
  "x+=([\\$\\(PAYLOAD\\)]=1)",
  "x=([\\`PAYLOAD\\`]=1)",
  "x=(1 [\\$\\(PAYLOAD\\)]=1)",
  "x=([1]=1 [\\$\\(PAYLOAD\\)]+=1)",
  "declare -ga x=([\\$\\(PAYLOAD\\)]=1)",
  "declare -a x=([\\$\\(PAYLOAD\\)]=1)",
];

describe("a compound assignment's subscript is read after quote removal: it is code", () => {
  it.each(COMPOUND_SUBSCRIPTS)("%j", async (spelling) => {
    await expectVerdicts([spelling.replaceAll("PAYLOAD", "touch\\ /etc/F"), "deny", "deny"]);
  });
  it.each<Row>([
    ["local x=([\\$\\(touch\\ /etc/F\\)]=1)", "deny", "deny"],
    // An associative array's keys are strings: bash keeps `$(…)` as text there.
    ["declare -A x=([\\$\\(touch\\ /etc/F\\)]=1)", "allow", "allow"],
    ["x=([1]=a [2]=b)", "allow", "allow"],
    ["x=([$i]=a)", "ask", "ask"],
  ])("%j", async (...row) => expectVerdicts(row));

  it.each(COMPOUND_SUBSCRIPTS)("real bash runs the subscript of %j", (spelling) => {
    expect(tripped(spelling.replaceAll("PAYLOAD", "touch\\ F"))).toBe(true);
  });
  it("real bash: an associative array's backslash-quoted key stays text", () => {
    expect(tripped("declare -A x=([\\$\\(touch\\ F\\)]=1)")).toBe(false);
  });
});

// A declaration builtin reads a value that is `(…)` after quotes and expansions as a compound array assignment
// (round 4, G1): under -a/-A, and for declare/typeset of a name that is already an array. The value is judged as
// the code it is; one the guard cannot see is unknown code.
const COMPOUND_VALUES = [
  "declare -a 'x=($(PAYLOAD))'",
  "declare -a x='([$(PAYLOAD)]=1)'",
  "declare -A 'x=([$(PAYLOAD)]=1)'",
  "readonly -a 'x=(`PAYLOAD`)'",
  "typeset -a 'x=($(PAYLOAD))'",
  "a=(1); declare a='([$(PAYLOAD)]=1)'",
  "declare -a x=$'($(PAYLOAD))'",
  "y='([$(PAYLOAD)]=1)'; declare -a x=\"$y\"",
  "declare -a x+='($(PAYLOAD))'",
  "declare -a \"x=(\\$(PAYLOAD))\"",
  "declare -a $'x=($(PAYLOAD))'",
  "builtin declare -a 'x=($(PAYLOAD))'",
  "declare -ia x='([$(PAYLOAD)]=1)'",
];

describe("a declaration's quoted or expanded value `(…)` is a compound assignment: its code is judged", () => {
  it.each(COMPOUND_VALUES)("%j", async (spelling) => {
    await expectVerdicts([spelling.replaceAll("PAYLOAD", "touch /etc/F"), "deny", "deny"]);
  });
  it.each<Row>([
    ["local -a 'x=($(touch /etc/F))'", "deny", "deny"],
    ["declare -a x=\"$y\"", "ask", "ask"],
    ["declare -a x=$(cat f)", "ask", "ask"],
    ["declare x=\"$(cat f)\"", "ask", "ask"], // x may already be an array
    ["declare $f x=\"$y\"", "ask", "deny"],
    ["declare -a x=\"$y.txt\"", "allow", "allow"], // never ends with `)`
    ["declare -a arr=(1 2 3)", "allow", "allow"],
    ["declare -a x=(\"$@\")", "allow", "allow"],
    ["declare -A m=([k]=v)", "allow", "allow"],
    ["declare -a x", "allow", "allow"],
    ["local -a x", "allow", "allow"],
    ["declare -a x='(1 2)'", "allow", "allow"],
    ["declare x=hello", "allow", "allow"],
    ["readonly x=$(pwd)", "allow", "allow"], // readonly and export reread `(…)` only under -a/-A
  ])("%j", async (...row) => expectVerdicts(row));

  it.each(COMPOUND_VALUES)("real bash runs the code in the value of %j", (spelling) => {
    expect(tripped(spelling.replaceAll("PAYLOAD", "touch F"))).toBe(true);
  });
  it("real bash: a file's text becomes code (`declare -a x=$(cat f)`)", () => {
    expect(tripped("printf '%s' '([$(touch F)]=1)' > f; declare -a x=$(cat f)")).toBe(true);
  });
  it("real bash: plain declare of a name that is already an array (`declare x=\"$(cat f)\"`)", () => {
    expect(tripped("printf '%s' '([$(touch F)]=1)' > f; x=(1); declare x=\"$(cat f)\"")).toBe(true);
  });
  it("real bash: readonly without -a keeps `(…)` as text", () => {
    expect(tripped("x=(1); y='([$(touch F)]=1)'; readonly x=\"$y\"")).toBe(false);
  });
  it("real bash: an associative array's keys are not arithmetic (`declare -A m=([k]=v)`)", () => {
    expect(tripped("k='a[$(touch F)]'; declare -A m=([k]=v)")).toBe(false);
  });
});

describe("arithmetic assigns the names it sets", () => {
  it.each<Row>([
    ["let PATH=0", "ask", "deny"],
    ["(( PATH=0 ))", "ask", "deny"],
    ["(( PS0 = 1 ))", "deny", "deny"], // the session's own prompt (session-names)
    ["echo $((PATH=1))", "ask", "deny"],
    ["echo $[PATH=1]", "ask", "deny"],
    ["[[ PATH=1 -eq 1 ]]", "ask", "deny"],
    ["[[ 1 -eq PATH=1 ]]", "ask", "deny"],
    ["for ((PATH=0;PATH<1;PATH++)); do :; done", "ask", "deny"],
    ["a=(1); a[PATH=0]=2", "ask", "deny"],
    ["a=(1); echo ${a[PATH=0]}", "ask", "deny"],
    ["s=abc; echo ${s:(PATH=0)}", "ask", "deny"],
    ["(( PATH++ ))", "ask", "deny"],
    ["let 'PATH+=1'", "ask", "deny"],
    [": $(( __ss_seq=9 ))", "deny", "deny"],
    ["let n=1", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it.each([
    ["[[ PATH=0 -eq 0 ]]; ls", "0"],
    ["a=(1); a[PATH=0]=2; ls", "0"],
    ["echo $((PATH=0)); ls", "0"],
    ["s=abc; echo ${s:(PATH=0)}; ls", "0"],
    ["for ((PATH=0;PATH<1;PATH++)); do :; done; ls", "1"],
  ])("real bash: %j runs ./%s/ls", (script, dir) => {
    expect(tripped(script, { setup: plantLs(dir) })).toBe(true);
  });
});

describe("unset, readonly, export -n, named descriptors and wait -p change a variable", () => {
  it.each<Row>([
    ["unset PATH", "ask", "deny"],
    ["unset -v IFS", "ask", "deny"],
    ["unset -- HOME", "ask", "deny"],
    ["unset PROMPT_COMMAND", "deny", "deny"], // the session's own prompt (session-names)
    ["export -n PATH", "ask", "deny"],
    ["readonly PATH", "ask", "deny"],
    ["declare -r PATH", "ask", "deny"],
    ["f() { local PATH; }", "ask", "deny"],
    [": {PATH}>/dev/null", "ask", "deny"],
    ["echo {PROMPT_COMMAND}>&-", "deny", "deny"], // the session's own prompt (session-names)
    [": {PS0}<&0", "deny", "deny"], // the session's own prompt (session-names)
    ["true {IFS}>/dev/null", "ask", "deny"],
    [": {BASH_CMDS[ls]}>/dev/null", "ask", "deny"],
    ["true {BASH_ALIASES[ls]}>/dev/null", "ask", "deny"],
    [": {__ss_seq}>/dev/null", "deny", "deny"],
    ["sleep 0 & wait -n -p PATH", "ask", "deny"],
    ["unset -f __sandshell_prompt", "deny", "deny"],
    ["unset x", "allow", "allow"],
    ["unset -f f", "allow", "allow"],
    ["declare -r x", "allow", "allow"],
    ["declare -p PATH", "allow", "allow"],
    ["f() { local x; }", "allow", "allow"],
    ["echo {a} >f", "allow", "ask"], // strict is read-only
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: `: {PATH}>/dev/null` sets PATH to a descriptor number", () => {
    expect(tripped(": {PATH}>/dev/null; ls", { setup: plantLs("10") })).toBe(true);
  });
  it("real bash: `: {BASH_CMDS[ls]}>/dev/null` makes `ls` run ./10", () => {
    const setup = (d: string): void => {
      writeFileSync(join(d, "10"), "#!/bin/sh\n: > F\n");
      chmodSync(join(d, "10"), 0o755);
    };
    expect(tripped(": {BASH_CMDS[ls]}>/dev/null; ls", { setup })).toBe(true);
  });
  it("real bash: `unset PATH` makes bash look for programs in the current directory", () => {
    const setup = (d: string): void => {
      writeFileSync(join(d, "ls"), "#!/bin/sh\n: > F\n");
      chmodSync(join(d, "ls"), 0o755);
    };
    expect(tripped("unset PATH; ls", { setup })).toBe(true);
  });
});

describe("declaration builtins behind builtin, command or ! are the same builtins", () => {
  it.each<Row>([
    ["builtin unset PATH", "ask", "deny"],
    ["command unset PATH", "ask", "deny"],
    ["builtin export PAGER", "ask", "deny"],
    ["command export PAGER", "ask", "deny"],
    ["builtin export PAGER=x", "ask", "deny"],
    ["builtin readonly PATH", "ask", "deny"],
    ["builtin declare -r PATH", "ask", "deny"],
    ["builtin declare PATH=x", "ask", "deny"],
    ["command declare -x PAGER", "ask", "deny"],
    ["builtin unset PATH[\\$\\(touch\\ /etc/F\\)]", "deny", "deny"],
    ["builtin declare x=1", "allow", "allow"],
    ["command export LANG=C", "allow", "allow"],
    ["builtin unset x", "allow", "allow"],
    // tree-sitter reads a declaration builtin after `!` as a plain command.
    ["! unset PATH", "ask", "deny"],
    ["! export PATH=/tmp", "ask", "deny"],
    ["! declare -x PAGER", "ask", "deny"],
    ["! unset x", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: `builtin unset PATH` makes bash look for programs in the current directory", () => {
    const setup = (d: string): void => {
      writeFileSync(join(d, "ls"), "#!/bin/sh\n: > F\n");
      chmodSync(join(d, "ls"), 0o755);
    };
    expect(tripped("builtin unset PATH; ls", { setup })).toBe(true);
    expect(tripped("! unset PATH; ls", { setup })).toBe(true);
  });
});

describe("export NAME and declare -x NAME without a value hand NAME on, like export NAME=…", () => {
  it.each<Row>([
    ["export PAGER", "ask", "deny"],
    ["export GIT_PAGER", "ask", "deny"],
    ["declare -x PAGER", "ask", "deny"],
    ["typeset -x PAGER", "ask", "deny"],
    ["export -- PAGER", "ask", "deny"],
    ["local -x PATH", "ask", "deny"],
    ["export -f f", "ask", "deny"],
    ["export 'BASH_FUNC_ls%%'", "ask", "deny"],
    ["export LANG LC_ALL", "allow", "allow"],
    ["export NODE_ENV=production", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: `export BASH_ENV` hands an earlier value to every bash started after it", () => {
    const setup = (d: string): void => writeFileSync(join(d, "e.sh"), ": > F\n");
    expect(tripped("BASH_ENV=$PWD/e.sh; export BASH_ENV; bash -c :", { setup })).toBe(true);
  });
});

describe("set and shopt options: a positive list, the rest ask", () => {
  it.each<Row>([
    ["set -H", "ask", "deny"],
    ["set -o histexpand", "ask", "deny"],
    ["set -t", "ask", "deny"],
    ["set -o onecmd", "ask", "deny"],
    ["set -b", "ask", "deny"],
    ["set +m", "ask", "deny"],
    ["set +o history", "ask", "deny"],
    ["shopt -u promptvars", "ask", "deny"],
    ["shopt -s cdspell", "ask", "deny"],
    ["shopt -s dirspell", "ask", "deny"],
    ["shopt -s extglob", "allow", "allow"],
    ["shopt -s failglob", "ask", "deny"],
    ["shopt -s expand_aliases", "ask", "deny"],
    ["shopt -s localvar_inherit", "ask", "deny"],
    ["set -euo pipefail", "allow", "allow"],
    ["set -x", "allow", "allow"],
    ["set +H", "allow", "allow"],
    ["set -o noclobber", "allow", "allow"],
    ["shopt -s nullglob dotglob globstar", "ask", "deny"], // a glob that matches nothing vanishes: test/guard/bypass-hidden-arguments.test.ts
    ["shopt -s dotglob globstar", "allow", "allow"],
    ["shopt -s nocasematch", "allow", "allow"],
    ["shopt -u extglob", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  // bash reads `o` as taking the next word as its option name only when there is one that is not empty and does not
  // start with - or +; otherwise it lists the options and goes on with the rest of the bundle and the next word.
  it.each<Row>([
    ["set -oH", "ask", "deny"],
    ["set -eoH", "ask", "deny"],
    ["set -xoH", "ask", "deny"],
    ["set -ouH", "ask", "deny"],
    ["set -o -H", "ask", "deny"],
    ["set -o -oH", "ask", "deny"],
    ["set -oH pipefail", "ask", "deny"],
    ["set -eo pipefail -H", "ask", "deny"],
    ["set -oo pipefail posix", "ask", "deny"],
    ["set -ok", "ask", "deny"],
    ["set -o", "allow", "allow"],
    ["set +o", "allow", "allow"],
    ["set -oe", "allow", "allow"],
    ["set -oe pipefail", "allow", "allow"],
    ["set -o +H", "allow", "allow"],
    ["set -o -- -H", "allow", "allow"], // -H is a positional parameter
    ["set -o '' -H", "allow", "allow"], // so is -H here: the empty word ends the options
  ])("set -o bundles: %j", async (...row) => expectVerdicts(row));

  it("real bash: `set -oH` and `set -o -H` turn history expansion on (o without a name lists the options)", () => {
    expect(tripped("set +H\nset -oH\necho F; touch !#:1", { interactive: true })).toBe(true);
    expect(tripped("set +H\nset -eoH\necho F; touch !#:1", { interactive: true })).toBe(true);
    expect(tripped("set +H\nset -o -H\necho F; touch !#:1", { interactive: true })).toBe(true);
    expect(tripped("set +H\nset -o -- -H\necho F; touch !#:1", { interactive: true })).toBe(false);
  });

  it("real bash: after `set -H`, `echo F; touch !#:1` runs `touch F`, a line the guard never saw", () => {
    expect(tripped("set +H\nset -H\necho F; touch !#:1", { interactive: true })).toBe(true);
    expect(tripped("set +H\necho F; touch !#:1", { interactive: true })).toBe(false);
  });
  it("the guard reads `touch !#:1` as a file named !#:1 in the workspace, so the set -H line must ask", async () => {
    expect((await guardFor("balanced")).check("touch !#:1").decision).toBe("allow");
  });
});

describe("a function named like a builtin shadows it", () => {
  it.each<Row>([
    ["eval() { :; }", "ask", "deny"],
    ["trap() { :; }", "ask", "deny"],
    ["source() { :; }", "ask", "deny"],
    [".() { :; }", "ask", "deny"],
    ["enable() { :; }", "ask", "deny"],
    ["builtin() { :; }", "ask", "deny"],
    ["command() { :; }", "ask", "deny"],
    ["exec() { :; }", "ask", "deny"],
    ["set() { :; }", "ask", "deny"],
    ["shopt() { :; }", "ask", "deny"],
    ["cd() { :; }", "ask", "deny"],
    ["printf() { :; }", "ask", "deny"],
    ["echo() { :; }", "ask", "deny"],
    ["read() { :; }", "ask", "deny"],
    ["function eval { :; }", "ask", "deny"],
    // tree-sitter does not parse these definitions: refused as a syntax error, which is stricter still.
    ["unset() { :; }", "deny", "deny"],
    ["export() { :; }", "deny", "deny"],
    ["__sandshell_prompt() { :; }", "deny", "deny"],
    ["function __sandshell_prompt { echo hi; }", "deny", "deny"],
    ["myfn() { echo hi; }", "allow", "allow"],
  ])("%j", async (...row) => expectVerdicts(row));

  it("real bash: a function named eval runs in place of the builtin", () => {
    expect(tripped("eval() { touch F; }; eval ls")).toBe(true);
  });
});
