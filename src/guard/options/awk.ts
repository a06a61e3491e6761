// awk programs, tokenized well enough to be sure they run nothing and write nothing: strings and regex
// literals are skipped, then any `system`, `getline` fed by a command, `|` (a pipe to or from a
// command), `|&`, `@load`/`@include`, or a `>`/`>>` inside a print statement (output to a file) means
// "not known safe". A `>` inside parentheses (`print ($1 > 5)`) is a comparison; bare `print a > b` is
// always a redirect in awk.

import type { Word } from "../facts.ts";
import type { ProgramSpec } from "./spec.ts";

const REGEX_BEFORE = /[(,{};!~&|?:=<>+\-*%^\n]/;

/** Why the program is not known safe, or null. */
export function awkUnsafe(program: string): string | null {
  let parens = 0;
  let inPrint = false;
  let prev = "\n"; // the last significant character or word
  for (let i = 0; i < program.length; i++) {
    const c = program[i]!;
    if (c === "#") {
      while (i < program.length && program[i] !== "\n") i++;
      prev = "\n";
      inPrint = false;
      continue;
    }
    if (c === '"') {
      for (i++; i < program.length && program[i] !== '"'; i++) if (program[i] === "\\") i++;
      if (i >= program.length) return "a string does not end";
      prev = '"';
      continue;
    }
    if (c === "/" && (REGEX_BEFORE.test(prev) || /^(?:print|printf|return|in|getline)$/.test(prev))) {
      for (i++; i < program.length && program[i] !== "/"; i++) {
        if (program[i] === "\\") i++;
        else if (program[i] === "\n") return "a regular expression does not end";
        else if (program[i] === "[") {
          // A bracket expression may hold a `/`.
          for (i++; i < program.length && program[i] !== "]"; i++) if (program[i] === "\\") i++;
        }
      }
      if (i >= program.length) return "a regular expression does not end";
      prev = "/re/";
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < program.length && /[A-Za-z0-9_]/.test(program[j]!)) j++;
      const word = program.slice(i, j);
      i = j - 1;
      if (word === "system") return "it calls system()";
      if (word === "getline" && /[|]/.test(prev)) return "getline reads from a command";
      if (word === "print" || word === "printf") inPrint = true;
      prev = word;
      continue;
    }
    if (c === "@") return "it loads an extension or includes a file";
    if (c === "|") {
      if (program[i + 1] === "|") {
        i++;
        prev = "|";
        continue;
      }
      return "it pipes to or from a command";
    }
    if (c === ">" && inPrint && parens === 0) return "it writes a file with print >";
    if (c === "(") parens++;
    if (c === ")") parens = Math.max(0, parens - 1);
    if (c === ";" || c === "\n" || c === "{" || c === "}") inPrint = false;
    if (c !== " " && c !== "\t") prev = c;
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
  reason: "awk whose program runs no command and writes no file",
  examples: ["awk '{print $1}' x", "awk -F: '$3 > 100 {print $1}' /etc/passwd", "awk 'NR%2==0' x", "awk '{ s += $2 } END { print s / NR }' x", "awk '/a|b/ {print}' x", "awk '$1 || $2' x"],
  nearMisses: [
    "awk '{system(\"id\")}'", "awk '{print > \"/tmp/x\"}' y", "awk '{print | \"sh\"}' x", "awk 'BEGIN{\"id\" | getline x}'", "awk -f prog.awk x",
    "gawk '@load \"x\"'", "awk --exec=x", "awk '{print $1 >> \"out\"}' x",
  ],
};
