import { GUARD, WORKSPACE } from "../../src/limits.ts";

// Commands shaped to make a checker do super-linear work: long chains, deep nesting, many heredocs or
// assignments, values that double, long words, globs, braces, arithmetic. Each is built to about the size
// asked for; test/guard/worst-case.test.ts runs them at the command limit and bench/guard-worst.ts times them.

/** The deepest directory below the workspace that the guard still follows (GUARD.maxKnownPathChars). */
function deepest(): string {
  return "abcdefg/".repeat(Math.floor((GUARD.maxKnownPathChars - WORKSPACE.length - 16) / 8));
}

/** `unit` repeated until the text is about `size` characters long, then `tail`. */
function repeat(unit: string, size: number, head = "", tail = ""): string {
  const n = Math.max(1, Math.floor((size - head.length - tail.length) / unit.length));
  return head + unit.repeat(n) + tail;
}

/** `open` n times, `middle`, `close` n times: about `size` characters. */
function nest(open: string, middle: string, close: string, size: number): string {
  const n = Math.max(1, Math.floor((size - middle.length) / (open.length + close.length)));
  return open.repeat(n) + middle + close.repeat(n);
}

/** Distinct units (`unit(i)`) joined until about `size` characters. */
function numbered(unit: (i: number) => string, size: number, tail = ""): string {
  const parts: string[] = [];
  let length = tail.length;
  for (let i = 0; length < size; i++) {
    const u = unit(i);
    parts.push(u);
    length += u.length;
  }
  return parts.join("") + tail;
}

export const WORST_SHAPES: Record<string, (size: number) => string> = {
  "cd chain": (s) => repeat("cd a && ", s, "", "ls"),
  "cd chain, ;": (s) => repeat("cd a; ", s, "", "ls"),
  "cd chain, ||": (s) => repeat("cd a || ", s, "", "ls"),
  "cd and back": (s) => repeat("cd a && cd .. && ", s, "", "ls"),
  "cd into many places": (s) => numbered((i) => `cd d${i} || `, s, "ls"),
  "&& chain": (s) => repeat("true && ", s, "", "ls"),
  "; chain": (s) => repeat("ls; ", s),
  "| chain": (s) => repeat("cat | ", s, "", "cat"),
  "newline chain": (s) => repeat("ls\n", s),
  "background chain": (s) => repeat("sleep 1 & ", s),
  "nested $( )": (s) => nest("echo $(", "ls", ")", s),
  "nested \"$( )\"": (s) => nest('echo "$(', "ls", ')"', s),
  "nested <( )": (s) => nest("cat <(", "ls", ")", s),
  "nested ( )": (s) => nest("(", "ls", ")", s),
  "nested { ; }": (s) => nest("{ ", "ls", "; }", s),
  "nested if": (s) => nest("if true; then ", "ls", "; fi", s),
  "nested while": (s) => nest("while false; do ", "ls", "; done", s),
  "nested for": (s) => nest("for x in a b; do ", "ls $x", "; done", s),
  "nested case": (s) => nest("case a in a) ", "ls", ";; esac", s),
  "nested functions": (s) => nest("f() { ", "ls", "; }", s),
  "nested bash -c": (s) => nest("bash -c '", "ls", "'", s),
  "if chain": (s) => repeat("if true; then cd a; fi; ", s, "", "ls"),
  "branches that cd": (s) => numbered((i) => `if x; then cd d${i}; fi; `, s, "rm -rf x"),
  "functions": (s) => numbered((i) => `f${i}() { cd d${i}; x${i}=1; }; f${i}; `, s, "ls"),
  "heredocs": (s) => repeat("cat <<EOF\nhello $x\nEOF\n", s),
  "heredocs on one line": (s) => {
    const starts: string[] = [];
    const bodies: string[] = [];
    for (let i = 0, length = 4; length < s - 40; i++) {
      starts.push(` <<E${i}`);
      bodies.push(`x\nE${i}\n`);
      length += starts[i]!.length + bodies[i]!.length;
    }
    return `cat${starts.join("")}\n${bodies.join("")}`;
  },
  "one big heredoc": (s) => repeat("line $HOME `x` $(y)\n", s, "cat <<EOF\n", "EOF\n"),
  "assignments": (s) => numbered((i) => `v${i}=a${i}; `, s, "ls"),
  "assignments and substitutions": (s) => numbered((i) => `v${i}=a; echo $(true); `, s, "ls"),
  "assignments in a pipeline": (s) => numbered((i) => `v${i}=a | `, s, "ls"),
  "value doubling": (s) => repeat("x=$x$x; ", s, "x=aa; ", "ls $x"),
  "value doubling, quoted": (s) => repeat('x="$x$x"; ', s, "x=/etc; ", 'rm -rf "$x"'),
  "value doubling, exported": (s) => repeat("export x=$x$x; ", s, "x=aa; ", "ls"),
  "value growing": (s) => repeat("x=${x}abcdefgh; ", s, "", "ls $x"),
  "path growing": (s) => repeat("p=$p/a; ", s, "", "touch $p"),
  "variable chain": (s) => numbered((i) => `v${i + 1}=$v${i}$v${i}; `, s, "ls $v1"),
  "long word": (s) => repeat("a", s, "echo "),
  "long quoted word": (s) => repeat("a", s, "echo '", "'"),
  "long path": (s) => repeat("a/", s, "ls "),
  "long path with ..": (s) => repeat("a/../", s, "rm -rf "),
  "many words": (s) => repeat(" a", s, "echo"),
  "many paths": (s) => repeat(" a/b", s, "rm"),
  "many globs": (s) => repeat(" a*", s, "ls"),
  "long glob": (s) => repeat("*/", s, "ls "),
  "glob then ..": (s) => repeat("*/../", s, "rm -rf "),
  "brace expansion": (s) => repeat("{a,b}", s, "echo "),
  "nested braces": (s) => nest("{a,", "b", "}", s),
  "huge arithmetic": (s) => repeat("1+", s, "echo $((", "1))"),
  "nested arithmetic": (s) => nest("(", "1", ")", s).replace(/^/, "echo $((").concat("))"),
  "arithmetic of variables": (s) => repeat("x+", s, "x=1; echo $((", "x))"),
  "let": (s) => repeat(" x+=1", s, "let"),
  "nested ${ }": (s) => nest("${x:-", "a", "}", s).replace(/^/, "echo "),
  "[[ ]] chain": (s) => repeat("a == a && ", s, "[[ ", "a == a ]]"),
  "many redirects": (s) => repeat(" >a", s, "ls"),
  "many sed scripts": (s) => repeat(" -e p", s, "sed", " f"),
  "long sed script": (s) => repeat("s/a/b/;", s, "sed '", "' f"),
  "long awk program": (s) => repeat("print $1;", s, "awk '{", "}' f"),
  "long python -c": (s) => repeat("print(1);", s, "python3 -c '", "'"),
  "many quoted parts": (s) => repeat("'a'\"b\"", s, "echo "),
  "many words, split": (s) => repeat(" a", s, 'x="', '"; rm $x'),
  "eval chain": (s) => repeat("eval ", s, "", "ls"),
  "xargs chain": (s) => repeat("xargs ", s, "", "ls"),
  "env chain": (s) => repeat("env ", s, "", "ls"),
  "find -exec": (s) => repeat(" -exec ls {} ;", s, "find ."),
  "backticks": (s) => repeat("`ls` ", s, "echo "),
  "comments": (s) => repeat("# a comment\n", s, "", "ls"),
  "line continuations": (s) => repeat("a \\\n", s, "echo "),
  // Aimed at particular work: a deep working directory met by every later word, `cd` with many operands,
  // arithmetic values that name each other, a value run as code again and again, and the shapes that make
  // tree-sitter-bash itself slow (a pipeline with one quoted or assigning stage, error recovery).
  "deep cwd, many commands": (s) => repeat("ls; ", s, `cd ${deepest()}; `),
  "deep cwd, many words": (s) => repeat(" a", s, `cd ${deepest()}; rm`),
  "many cd operands": (s) => repeat(" a", s, "cd"),
  "nested $(( ))": (s) => nest("$(( 1 + ", "1", " ))", s).replace(/^/, "echo "),
  "arithmetic values that name others": (s) => {
    const names = "abcdefgh".split("");
    const defs = names.map((n, i) => `${n}='${`${names[i + 1] ?? "1"}+`.repeat(1500)}0'; `).join("");
    return repeat("$((a)) ", s, defs + "echo ");
  },
  "a value run as code": (s) => repeat('eval "$x"; ', s, `x='${"ls -l a; ".repeat(400)}'; `),
  "a value run by bash -c": (s) => repeat('bash -c "$x"; ', s, `x='${"ls -l a; ".repeat(400)}'; `),
  "pipeline with a quoted stage": (s) => repeat("y | ", s, "", '"$x"'),
  "pipeline with an assignment": (s) => repeat("y | ", s, "", "a=1 x"),
  "two heredocs per line": (s) => repeat("cat <<A <<B\nx\nA\nB\n", s),
  "unbalanced parens": (s) => repeat(")", s, "echo "),
  // Nesting just under GUARD.maxSyntaxDepth, over and over: what is read once per level costs depth × size.
  "&& chain, parsed": (s) => repeat("true $x && ", s, "", "ls"),
  "&& chains just under the depth limit": (s) => repeat(`${"a $x && ".repeat(Math.floor(GUARD.maxSyntaxDepth * 0.9))}b; `, s),
  "nesting just under the depth limit": (s) => repeat(`${"echo $(".repeat(Math.floor(GUARD.maxSyntaxDepth / 4))}ls${")".repeat(Math.floor(GUARD.maxSyntaxDepth / 4))}; `, s),
  "${ } just under the depth limit": (s) => repeat(`echo ${"${x:-".repeat(Math.floor(GUARD.maxSyntaxDepth / 3))}a${"}".repeat(Math.floor(GUARD.maxSyntaxDepth / 3))}; `, s),
};

export const WORST_SIZES = { "64 KB": 64 * 1024, "256 KB": 256 * 1024, "1 MB": 1024 * 1024 } as const;
