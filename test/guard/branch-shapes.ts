// Seeded random scripts of loops, branches, assignments, `cd`, functions, links, pipelines and code inside code:
// the shapes whose state the guard's walk carries from one round of a loop to the next (branching.ts). For
// differential checks: two ways of walking them must find the same facts, and two builds the same verdicts.
import { mulberry32 } from "../lib/random.ts";

const SIMPLE = [
  "x=/tmp", "x=rm", "x=1", "x=$((x+1))", "y=$x", "unset x", "read x", "export PATH=$x", "cd /tmp", "cd $x", "cd ..", "cd .. && ls", "cd $x || exit",
  "$x -rf /", "rm -rf $y", "ls $x", "echo $i", "echo $l > $x", "cat f | $y", "f", "f() { x=rm; }", "g() { cd /; }", "g", "h() { f; }", "h",
  "eval $x", 'bash -c "$y"', "echo $(ls $x)", "source ./s", "declare -n r=x", "IFS=/", "a[$x]=1", "let x++", "break", "sleep 1", "( cd /etc; ls )",
  "z=${x:=/bin}", "echo ${y:-$x}", "printf -v x %s /", "mapfile x", "x+=/a", "alias ls=$x", 'trap "$x" EXIT', "PATH=$x ls", "echo hi &", "x=a &",
  "echo rm -rf /", "printf 'rm -rf /\\n'", "echo $x", "cat", "sh", "ln -s /etc $x", "echo hi > $x/passwd", "(( x = y + 1 ))", "k", "f | f &",
];

/** `count` scripts from `seed`: statements and nested branches and loops, up to 4 deep. */
export function branchScripts(count: number, seed: number): string[] {
  const next = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const block = (depth: number): string => {
    const parts: string[] = [];
    const n = 1 + Math.floor(next() * 4);
    for (let j = 0; j < n; j++) {
      if (depth < 4 && next() < 0.35) {
        const body = block(depth + 1);
        parts.push(
          pick([
            `for i in a $x; do ${body}; done`,
            `for ((i=0;i<3;i++)); do ${body}; done`,
            `while read l; do ${body}; done`,
            `while :; do ${body}; done`,
            `until [ -z $x ]; do ${body}; done`,
            `select s in a b; do ${body}; done`,
            `if [ -f $x ]; then ${body}; fi`,
            `if true; then ${body}; else ${block(depth + 1)}; fi`,
            `case $x in a) ${body};; *) ${block(depth + 1)};; esac`,
            `{ ${body}; }`,
            `for i in a; do ${body}; done | sh`,
            `k() { ${body}; }`,
            `${pick(SIMPLE)} | while read l; do ${body}; done | sh`,
            `for i in a; do ${body}; done &`,
          ]),
        );
      } else parts.push(pick(SIMPLE));
    }
    return parts.join(next() < 0.8 ? "; " : " && ");
  };
  return Array.from({ length: count }, () => block(0));
}
