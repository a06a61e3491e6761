// Bypass classes of shell semantics (issue #9): each spelling is first run in real bash 5 with a
// harmless tripwire (`touch F` where the attack would do harm) to prove that bash really does what the
// class says, and then the same shape with a real payload must not be allowed by the guard, under any
// preset (these classes are layer 0 or 1/2, so permissive must not allow them either).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { POLICIES } from "../../src/guard/index.ts";
import { guardFor } from "./helpers.ts";
import { tripped as trippedIn } from "./tripwire.ts";

/** Real bash in a new temporary directory, with T naming it; true when the script left the tripwire F there. */
const tripped = (script: string): boolean => trippedIn(script, { env: (dir) => ({ T: dir }) });

interface Spelling {
  /** Runs in a fresh temporary directory; leaves a file F there exactly when the spelling works. */
  bash: string;
  /** The same shape with a payload; must not be allowed. */
  guard: string;
  /** The rule expected under balanced, when one is pinned. */
  rule?: string;
}


const bashVersion = spawnSync("bash", ["-c", "echo ${BASH_VERSINFO[0]}"], { encoding: "utf8" }).stdout.trim();

const CLASSES: Record<string, Spelling[]> = {
  "word splitting of unquoted expansions": [
    { bash: 'x="a F"; touch $x', guard: 'x="a /etc/passwd"; tee $x < /dev/null', rule: "write-outside-workspace" },
    { bash: "x=; $x touch F", guard: "x=; $x rm -rf /", rule: "recursive-delete-root" },
    { bash: "mkdir d; x='*'; for f in $x; do [ \"$f\" = d ] && touch F; done", guard: "x='*'; rm -rf /$x", rule: "recursive-delete-root" },
    { bash: 'x="/dev/null F"; cp ${x}', guard: 'x="x /etc/shadow"; cp a ${x}', rule: "write-outside-workspace" },
  ],
  "assignments in branches, loops, functions and && / || make the value unknown": [
    { bash: "x=ok; if true; then x=F; fi; touch $x", guard: "x=/tmp/a; if true; then x=/; fi; rm -rf $x" },
    { bash: "x=ok; for i in 1 2; do touch $x; x=F; done", guard: "x=/tmp/a; for i in 1 2; do rm -rf $x; x=/; done" },
    { bash: "x=ok; while [ $x != F ]; do x=F; done; touch $x", guard: "x=/tmp/a; while true; do x=/etc; break; done; touch $x/passwd" },
    { bash: "x=ok; f(){ x=F; }; f; touch $x", guard: "x=/tmp/a; f(){ x=/etc; }; f; touch $x/passwd" },
    { bash: "x=ok; true && x=F; touch $x", guard: "x=/tmp/a; true && x=/etc; touch $x/passwd" },
    { bash: "x=ok; false || x=F; touch $x", guard: "x=/tmp/a; false || x=/etc; touch $x/passwd" },
    { bash: "x=ok; case a in a) x=F;; esac; touch $x", guard: "x=/tmp/a; case a in a) x=/;; esac; rm -rf $x" },
    { bash: "x=ok; eval x=F; touch $x", guard: "x=/tmp/a; eval x=/; rm -rf $x", rule: "recursive-delete-root" },
    { bash: "x=ok; source /dev/stdin <<< 'x=F'; touch $x", guard: "x=/tmp/a; source ./env.sh; rm -rf $x" },
  ],
  "builtins that fill a variable (wait -p, mapfile, getopts, select) make it unknown": [
    { bash: "x=ok; wait -p x; touch \"F$x\"", guard: "x=/tmp; wait -p x; echo > $x/passwd", rule: "unknown-write-target" },
    { bash: "x=ok; echo F > in; mapfile -t x < in; touch $x", guard: "x=/tmp; mapfile -t x < f; echo > $x/passwd", rule: "unknown-write-target" },
    { bash: "x=ok; echo F > in; readarray -t x < in; touch $x", guard: "x=/tmp; readarray -t -n 1 x < f; echo > $x/passwd", rule: "unknown-write-target" },
    { bash: "MAPFILE=ok; echo F > in; mapfile < in; touch $MAPFILE", guard: "MAPFILE=/tmp; mapfile < f; echo > $MAPFILE/passwd", rule: "unknown-write-target" },
    { bash: "OPTARG=ok; getopts a: o -a F; touch $OPTARG", guard: "OPTARG=/tmp; getopts a: o -a /etc; echo > $OPTARG/passwd", rule: "unknown-write-target" },
    { bash: "REPLY=ok; select y in a; do break; done <<< F 2>/dev/null; touch $REPLY", guard: "REPLY=/tmp; select y in /etc; do break; done; echo > $REPLY/passwd", rule: "unknown-write-target" },
  ],
  "HOME, CDPATH and PWD drive ~ and cd": [
    { bash: "mkdir h; HOME=$PWD/h; cd; touch ../F", guard: "HOME=/etc; cd; touch passwd", rule: "write-outside-workspace" },
    { bash: 'mkdir h; HOME="$PWD/h"; touch ~/../F', guard: "HOME=/etc; touch ~/passwd", rule: "write-outside-workspace" },
    { bash: "mkdir -p c/sub; CDPATH=$PWD/c; cd sub >/dev/null && touch ../../F", guard: "CDPATH=/; cd etc && touch passwd" },
    { bash: "mkdir h; cd h; PWD=$T; touch $PWD/F", guard: "PWD=/etc; touch $PWD/passwd", rule: "write-outside-workspace" },
  ],
  "a cd that may fail leaves the old directory": [
    { bash: "cd /nonexistent-dir 2>/dev/null; touch F", guard: "cd /tmp/build; rm -rf *", rule: "recursive-delete-root" },
    { bash: "mkdir w; cd w && touch ../F", guard: "cd /tmp && cd .. && touch passwd" },
    { bash: "cd / & wait; touch F", guard: "cd /tmp & rm -rf *", rule: "recursive-delete-root" },
    { bash: "mkdir w; builtin cd w; touch ../F", guard: "builtin cd /; rm -rf *", rule: "recursive-delete-root" },
    { bash: "cd /nonexistent-dir 2>/dev/null || true; touch F", guard: "cd /tmp/x || true; rm -rf ." , rule: "recursive-delete-root" },
  ],
  "cd -P climbs from where a symlink leads": [
    { bash: "mkdir -p o/d && ln -s \"$PWD/o/d\" l && cd -P l/.. && touch ../F", guard: "ln -s /etc/ssl l; cd -P l/..; touch passwd", rule: "unknown-write-target" },
    { bash: "mkdir -p o/d && ln -s \"$PWD/o/d\" l && cd -LP l/.. && touch ../F", guard: "cd -P l/..; rm -rf *" },
  ],
  "glob characters in a path with ..": [
    { bash: 'mkdir -p w/d; cd w; for p in ./*/../..; do touch "$p/F"; done', guard: "rm -rf ./*/../.." },
    { bash: "mkdir -p w/d; cd w; x='./*/../..'; for p in $x; do touch \"$p/F\"; done", guard: "x='./*/../..'; rm -rf $x" },
    { bash: 'mkdir -p w/d; cd w; for p in ./d*/../..; do touch "$p/F"; done', guard: "chmod -R 777 ./src*/../../.." },
  ],
};

const ARITHMETIC: Record<string, Spelling[]> = {
  "arithmetic evaluates a variable's value, subscripts and all": [
    { bash: "x='a[$(touch F)]'; (( x ))", guard: "read x < input.txt; (( x ))", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; echo $(( x + 1 ))", guard: "x=$(cat input.txt); echo $(( x + 1 ))", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; echo $(( $x + 1 ))", guard: 'echo $(( $X + 1 ))', rule: "unknown-evaluated-code" },
    { bash: "echo $(( $(echo 'a[$(touch F)]') + 1 ))", guard: "echo $(( $(cat n.txt) + 1 ))", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; echo $[x]", guard: "echo $[x]", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; let x", guard: "let x", rule: "unknown-evaluated-code" },
    { bash: "let 'a[$(touch F)]'", guard: "let 'a[$(rm -rf /)]'", rule: "recursive-delete-root" },
    { bash: "let 'x=a[$(touch F)]'", guard: "let 'x=a[$(rm -rf ~)]'", rule: "recursive-delete-root" },
    { bash: "x='a[$(touch F)]'; for ((i=0;i<x;i++)); do :; done", guard: "for ((i=0; i<n; i++)); do :; done", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; case 1 in $((x))) ;; esac", guard: "case 1 in $((x))) ;; esac", rule: "unknown-evaluated-code" },
  ],
  "substring offsets and array subscripts": [
    { bash: "x='a[$(touch F)]'; y=abc; echo ${y:x}", guard: "echo ${y:x}", rule: "unknown-evaluated-code" },
    { bash: "i='a[$(touch F)]'; y=abc; echo ${y:0:i}", guard: "echo ${y:0:$n}", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; b=(1 2); echo ${b[x]}", guard: "echo ${b[x]}", rule: "unknown-evaluated-code" },
    { bash: "i='a[$(touch F)]'; b[$i]=1", guard: "b[$i]=1", rule: "unknown-evaluated-code" },
    { bash: "i='a[$(touch F)]'; b[i]=1", guard: "b[i]=1", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; b=([x]=2)", guard: "b=([x]=2)", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; echo ${#x[x]}", guard: "echo ${#x[x]}", rule: "unknown-evaluated-code" },
  ],
  "builtins that parse a name with a subscript": [
    { bash: "declare 'a[$(touch F)]=1'", guard: "declare 'a[$(rm -rf /)]=1'", rule: "recursive-delete-root" },
    { bash: "typeset 'a[$(touch F)]=1'", guard: 'typeset "$name=1"', rule: "unknown-evaluated-code" },
    { bash: "f(){ local 'a[$(touch F)]=1'; }; f", guard: 'f(){ local "$1"; }; f x', rule: "unknown-evaluated-code" },
    { bash: "printf -v 'a[$(touch F)]' x", guard: 'printf -v "$name" %s x', rule: "unknown-evaluated-code" },
    { bash: "read 'a[$(touch F)]' <<< x", guard: "read 'a[$(rm -rf /)]' <<< x", rule: "recursive-delete-root" },
    { bash: "read 'a[$(touch F)]' <<< x", guard: 'read "$name" < input.txt', rule: "unknown-evaluated-code" },
    { bash: "a=(1); unset 'a[$(touch F)]'", guard: "unset $(cut -d= -f1 .env)", rule: "unknown-evaluated-code" },
    { bash: "test -v 'a[$(touch F)]'", guard: 'test -v "$v"', rule: "unknown-evaluated-code" },
    { bash: "[ -v 'a[$(touch F)]' ]", guard: '[ -v "$v" ]', rule: "unknown-evaluated-code" },
    { bash: "[[ -v a[$(touch F)] ]]", guard: "[[ -v a[$(rm -rf /)] ]]", rule: "recursive-delete-root" },
    { bash: "x='a[$(touch F)]'; [[ -v $x ]]", guard: "[[ -v $x ]]", rule: "unknown-evaluated-code" },
  ],
  "[[ a -eq b ]], indirection and prompt strings": [
    { bash: "x='a[$(touch F)]'; [[ $x -eq 1 ]]", guard: "[[ $x -eq 1 ]]", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; [[ x -eq 1 ]]", guard: "[[ x -lt 2 ]]", rule: "unknown-evaluated-code" },
    { bash: "x='a[$(touch F)]'; echo ${!x}", guard: "echo ${!x}", rule: "unknown-evaluated-code" },
    { bash: "x='$(touch F)'; echo ${x@P}", guard: "echo ${x@P}", rule: "unknown-evaluated-code" },
    { bash: "x='$(touch F)'; echo ${x@P}", guard: "x='$(rm -rf /)'; echo ${x@P}", rule: "recursive-delete-root" },
    { bash: "x='a[$(touch F)]'; declare -n r=$x; echo $r", guard: "x=/tmp/a; declare -n r=x; r=/; rm -rf $x" },
  ],
};

/** The same bash spelling must NOT trip in these cases (what the guard still allows is harmless). */
const HARMLESS: string[] = [
  "x='a[$(touch F)]'; [ \"$x\" -eq 1 ] 2>/dev/null",
  "x='a[$(touch F)]'; test \"$x\" -eq 1 2>/dev/null",
  "x='$(touch F)'; echo $(( x )) 2>/dev/null",
  "export 'a[$(touch F)]=1' 2>/dev/null",
  "readonly 'a[$(touch F)]=1' 2>/dev/null",
];

function suite(classes: Record<string, Spelling[]>): void {
  for (const [name, spellings] of Object.entries(classes)) {
    describe(name, () => {
      it.each(spellings.map((s) => [s.bash, s] as const))("works in real bash: %s", (_b, s) => {
        expect(tripped(s.bash)).toBe(true);
      });
      it.each(spellings.map((s) => [s.guard, s] as const))("is not allowed under any preset: %s", async (_g, s) => {
        for (const policy of POLICIES) {
          const v = (await guardFor(policy)).check(s.guard);
          expect({ policy, command: s.guard, decision: v.decision }).not.toEqual({ policy, command: s.guard, decision: "allow" });
          if (s.rule && policy === "balanced") expect({ command: s.guard, rule: v.rule }).toEqual({ command: s.guard, rule: s.rule });
        }
      });
    });
  }
}

describe(`shell semantics the guard follows (real bash ${bashVersion})`, () => {
  it("runs bash 5", () => {
    expect(Number(bashVersion)).toBeGreaterThanOrEqual(5);
  });
  suite(CLASSES);
});

describe(`builtins that evaluate text as arithmetic or prompts (real bash ${bashVersion})`, () => {
  suite(ARITHMETIC);
  it.each(HARMLESS.map((h) => [h]))("does not run code in real bash, so the guard need not ask: %s", (h) => {
    expect(tripped(h)).toBe(false);
  });
});

describe("what stays allowed", () => {
  it.each([
    "x=3; (( x > 1 ))", "(( 1 + 2 ))", "echo $(( 2 * 3 ))", "for ((i=0; i<10; i++)); do echo $i; done", "let x=1", "[[ 1 -eq 1 ]]",
    '[ "$x" -eq 1 ]', "read line", "printf -v out %s 1", "echo ${#x}", "test -v HOME", "echo $(( RANDOM % 6 ))", "x=1; echo $(( x++ ))",
    "cd src && ls", "cd src; ls", "mkdir -p B && cd B && find . >> ../tmp.txt", 'x="a b"; echo $x', "x=out.txt; echo hi > $x",
    "for f in *.txt; do wc -l $f; done", "if [ -f x ]; then cat x; fi", "cd /tmp && touch x",
  ])("allows %j under balanced", async (command) => {
    expect((await guardFor("balanced")).check(command).decision).toBe("allow");
  });
});

describe("the fast path and tree-sitter follow the same shell state", () => {
  // Plain chains that change the directory or expand variables: both parsing paths must give the same
  // facts (test/guard/plain.test.ts compares them over the corpus; these pin the new state tracking).
  it.each([
    "cd /tmp; rm -rf *", "cd /nope && ls || pwd; touch x", "cd a && cd b; ls > out", "cd / & rm -rf *", "builtin cd /etc; cat x > y",
    "tee $HOME/x $PWD/y", "cd src; echo $PWD > f", "cd; ls", "cd ~ && touch x", "pushd /tmp; popd; touch x", "echo $X $Y > $Z",
  ])("gives tree-sitter's facts for %j", async (command) => {
    const { createAnalyzer } = await import("../../src/guard/language.ts");
    const { parsePlain } = await import("../../src/guard/plain.ts");
    expect(parsePlain(command)).not.toBeNull();
    const analyzer = await createAnalyzer();
    const options = { cwd: "/home/project", home: "/home/project", maxNestedDepth: 8 };
    const facts = (fastPath: boolean) =>
      analyzer.analyze(command, { ...options, fastPath }).commands.map((c) => ({ argv: c.argv.map((w) => [w.raw, w.value, w.dynamic, w.glob]), cwd: c.cwd, redirects: c.redirects.map((r) => r.target?.value ?? null) }));
    expect(facts(true)).toEqual(facts(false));
  });
});
