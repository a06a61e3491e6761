// awk programs, tokenized well enough to be sure they run nothing and write nothing: strings and regex
// literals are skipped, then any `system`, `getline` fed by a command, `|` (a pipe to or from a
// command), `|&`, `@load`/`@include`, or a `>`/`>>` inside a print statement (output to a file) means
// "not known safe". A `>` inside parentheses (`print ($1 > 5)`) is a comparison; bare `print a > b` is
// always a redirect in awk.
//
// Whether a `/` divides or starts a regular expression decides what is code and what is text, so it is
// decided the way awk's own lexers decide it: a `/` after something that ends an operand (a name, a
// number, a string, a regex, `]`, or a `)` that does not close an `if`/`while`/`for`/`switch` condition)
// divides; anywhere else it starts a regex. Where awks disagree (after `x++`, `getline` or a bare
// `length`: mawk 1.3.4 reads a regex, gawk a division), the program is not known safe: one of them would
// run what the other reads as text (`else /"/; system("…") # "` hides the call from a naive reader).

import { DYN, type Word } from "../facts.ts";
import { literalWord } from "../argv.ts";
import type { ProgramSpec } from "./spec.ts";

const KEYWORDS = new Set([
  "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do", "break", "continue", "next", "nextfile",
  "exit", "return", "delete", "in", "print", "printf", "switch", "case", "default",
]);
const CONDITION = new Set(["if", "while", "for", "switch"]);
/** Names after which awks disagree on what a `/` is. */
const AMBIGUOUS = new Set(["getline", "length"]);

/** What the last token leaves: an operand (so `/` divides), an operator (so `/` starts a regex), or a place where awks disagree. */
type After = "operand" | "operator" | "ambiguous";

/** `getline < FILE`, `getline VAR < FILE`: the `<` right after getline and an optional variable reads a file. */
const GETLINE_INPUT = /getline\s*(?:(?:\$?[A-Za-z_0-9]+)(?:\[[^\]\n]*\])?\s*)?$/;
/** `ARGV[1] = "FILE"`: awk reads what the program puts in ARGV as an input file. */
const ARGV_SET = /^ARGV\s*\[[^\]\n]*\]\s*=(?!=)\s*(?:"((?:[^"\\\n]|\\[^\n])*)"(?=\s*(?:[;}\n#]|$)))?/;

/**
 * Why the program is not known safe, or null. `reads` collects the files the program itself reads (`getline < "f"`,
 * `ARGV[1] = "f"`): their names when written as a string alone, else DYN (a name it computes).
 */
export function awkUnsafe(program: string, reads: string[] = []): string | null {
  let after: After = "operator";
  let inPrint = false;
  let word = ""; // the last name read, to know whether a `(` opens a condition
  const parens: boolean[] = []; // per open `(`: does it hold an if/while/for/switch condition?
  for (let i = 0; i < program.length; i++) {
    const c = program[i]!;
    if (c === " " || c === "\t" || (c === "\\" && program[i + 1] === "\n")) {
      if (c === "\\") i++;
      continue;
    }
    const last = word;
    word = "";
    if (c === "#") {
      while (i < program.length && program[i] !== "\n") i++;
      i--;
      continue;
    }
    // awk reads on past a newline after `,`, `&&`, `||`, `{`, `do`, `else` (gawk also after `?` and `:`): after an
    // operator the print statement goes on (`print "a",⏎"b" > "F"` writes F), so only a newline after an operand
    // (or a bare `print`) ends it. A newline awk refuses there only makes the guard stricter.
    if (c === "\n" && inPrint && after === "operator" && last !== "print" && last !== "printf") continue;
    if (c === "\n" || c === ";" || c === "{" || c === "}") {
      inPrint = false;
      after = "operator";
      continue;
    }
    if (c === '"') {
      for (i++; i < program.length && program[i] !== '"'; i++) if (program[i] === "\\") i++;
      if (i >= program.length) return "a string does not end";
      after = "operand";
      continue;
    }
    if (c === "/") {
      if (after === "ambiguous") return "a `/` after `++`, `--`, `getline` or `length` divides in one awk and starts a regular expression in another";
      if (after === "operand") {
        after = "operator"; // division (or `/=`)
        continue;
      }
      for (i++; i < program.length && program[i] !== "/"; i++) {
        if (program[i] === "\\") i++;
        else if (program[i] === "\n") return "a regular expression does not end";
        else if (program[i] === "[") {
          const end = bracketEnd(program, i);
          if (end === null) return "a bracket expression in a regular expression that awks may read differently (only `[:class:]` may open inside one)";
          i = end;
        }
      }
      if (i >= program.length) return "a regular expression does not end";
      after = "operand";
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < program.length && /[A-Za-z0-9_]/.test(program[j]!)) j++;
      const name = program.slice(i, j);
      const argv = name === "ARGV" ? ARGV_SET.exec(program.slice(i)) : null;
      if (argv) reads.push(argv[1] !== undefined && !argv[1].includes("\\") ? argv[1] : DYN);
      i = j - 1;
      if (name === "system") return "it calls system()";
      if (name === "print" || name === "printf") inPrint = true;
      after = AMBIGUOUS.has(name) ? "ambiguous" : KEYWORDS.has(name) ? "operator" : "operand";
      word = name;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      while (i + 1 < program.length && /[0-9.eE]/.test(program[i + 1]!)) i++;
      after = "operand";
      continue;
    }
    if (c === "@") return "it loads an extension or includes a file";
    if (c === "|") {
      if (program[i + 1] !== "|") return "it pipes to or from a command";
      i++;
      after = "operator";
      continue;
    }
    if (c === ">" && inPrint && parens.length === 0) return "it writes a file with print >";
    if (c === "<" && GETLINE_INPUT.test(program.slice(Math.max(0, i - 200), i))) {
      const file = /^\s*"((?:[^"\\\n]|\\[^\n])*)"(?=\s*(?:[)>;}\n#]|$))/.exec(program.slice(i + 1));
      reads.push(file && !file[1]!.includes("\\") ? file[1]! : DYN);
    }
    if ((c === "+" || c === "-") && program[i + 1] === c) {
      // `x++` (postfix) leaves an operand behind, but mawk 1.3.4 reads a `/` after it as a regex.
      i++;
      after = after === "operand" ? "ambiguous" : "operator";
      continue;
    }
    if (c === "(") {
      parens.push(CONDITION.has(last));
      after = "operator";
      continue;
    }
    if (c === ")") {
      after = parens.pop() ? "operator" : "operand";
      continue;
    }
    after = c === "]" ? "operand" : "operator";
  }
  return null;
}

/**
 * Where the bracket expression opening at `open` ends (the index of its `]`), read the way gawk's and mawk's
 * lexers both read it: a `/` inside it is part of it (`/[/]/`, `/[[:alpha:]/]/`), a `]` first (after an
 * optional `^`) is literal, a backslash takes the next character, and `[:name:]` is read whole. Any other `[`
 * inside (`[[=a=]`, `[[.a.]`, `[[:alpha]`), a newline or no end: null, since there the awks part ways with
 * each other or with the guard (mawk knows no `[=`/`[.`), and a reader one token off reads code as text.
 */
export function bracketEnd(program: string, open: number): number | null {
  let i = open + 1;
  if (program[i] === "^") i++;
  if (program[i] === "]") i++;
  for (; i < program.length; i++) {
    const c = program[i];
    if (c === "]") return i;
    if (c === "\\") i++;
    else if (c === "\n") return null;
    else if (c === "[") {
      const m = /^\[:[a-z]+:\]/.exec(program.slice(i, i + 16));
      if (!m) return null;
      i += m[0].length - 1;
    }
  }
  return null;
}

export const AWK: ProgramSpec = {
  names: ["awk", "gawk", "mawk", "nawk"],
  short: "F:v:",
  long: ["field-separator=", "assign=", "posix", "traditional", "re-interval", "characters-as-bytes", "sandbox", "help", "version"],
  operands: ["text", "read"],
  check(p, args: readonly Word[]) {
    void args;
    const program = p.operands[0];
    if (!program) return "awk without a program";
    if (program.dynamic) return "the awk program is not known before it runs";
    return awkUnsafe(program.value);
  },
  // Its input files, and the files the program reads itself (`getline < "/etc/passwd"`), judged like operands.
  files(p) {
    const program = p.operands[0];
    const own: string[] = [];
    if (program && !program.dynamic) awkUnsafe(program.value, own);
    const computed = (): Word => ({ raw: "(a file the awk program names)", value: DYN, dynamic: true, glob: false });
    return { writes: [], reads: [...p.operands.slice(1), ...own.map((f) => (f === DYN ? computed() : literalWord(f)))] };
  },
  reason: "awk whose program runs no command and writes no file",
  examples: ["awk 'BEGIN { while ((getline l < \"notes.txt\") > 0) print l }'", "awk '{print $1}' x", "awk -F: '$3 > 100 {print $1}' /etc/passwd", "awk 'NR%2==0' x", "awk '{ s += $2 } END { print s / NR }' x", "awk '/a|b/ {print}' x", "awk '$1 || $2' x"],
  nearMisses: [
    "awk '{system(\"id\")}'", "awk '{print > \"/tmp/x\"}' y", "awk '{print | \"sh\"}' x", "awk 'BEGIN{\"id\" | getline x}'", "awk -f prog.awk x",
    "gawk '@load \"x\"'", "awk --exec=x", "awk '{print $1 >> \"out\"}' x", "awk '{print $1,\n$2 > \"out\"}' x",
  ],
};
