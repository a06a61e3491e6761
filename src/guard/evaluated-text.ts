// Text bash evaluates as code inside a command's words: arithmetic (`(( ))`, `$(( ))`, `let`, subscripts,
// `${x:off:len}`, `[[ a -eq b ]]`), names parsed with their subscripts (`read NAME`, `printf -v NAME`,
// `[[ -v NAME ]]`), and the `${…}` forms that assign, name a variable to read, or expand a prompt string.
// Commands such text runs are judged as commands; what the guard cannot see marks the command.

import { checkArithmetic, expandArithmetic, substitutions } from "./arith.ts";
import { literalWord } from "./argv.ts";
import { DYN, type Command, type Word } from "./facts.ts";
import type { Scope } from "./scope.ts";
import type { SyntaxNode } from "./tree.ts";
import { lookupVar, word } from "./words.ts";
import { nested, shellAssigns, type Analysis, type Ctx } from "./analysis.ts";

/** Shell variables that always hold a number (unless the script assigns them). */
const SHELL_NUMBERS = new Set(["RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS", "OPTIND", "HISTCMD", "COLUMNS", "LINES", "SHLVL"]);

/** Arithmetic comparison operators of `[[ ]]` (each side is evaluated as arithmetic). */
const ARITH_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** `off:len` split at its first colon outside brackets. */
function splitTopColon(text: string): string[] {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === ":" && depth === 0) return [text.slice(0, i), text.slice(i + 1)];
  }
  return [text];
}

/** A variable as arithmetic reads it: the shell's own counters are numbers unless the script set them. */
function arithLookup(a: Analysis, scope: Scope): (name: string) => string | undefined {
  return (name) => {
    const v = lookupVar(name, scope, a.home);
    if (v === undefined && SHELL_NUMBERS.has(name)) return "0";
    return v;
  };
}

/**
 * Text bash evaluates as arithmetic (`expanded`: shell expansions already done, as in a word's value).
 * Commands a subscript in it runs are judged as commands; what the guard cannot see marks `fact`.
 */
export function arith(a: Analysis, text: string, expanded: boolean, what: string, fact: Command, ctx: Ctx): void {
  const lookup = arithLookup(a, ctx.scope);
  const inner = (t: string): void => arith(a, t, false, what, fact, ctx);
  const evaluated = expanded ? text : expandArithmetic(text, lookup, inner);
  const r = checkArithmetic(evaluated, lookup, a.arithBudget);
  if (r.unknown !== null) fact.evaluatesUnknown ??= `${what} on ${r.unknown}`;
  for (const code of r.code) a.run(code, { ...nested(ctx), via: "a subscript in arithmetic" }, "in a subscript that arithmetic evaluates");
  for (const name of r.assigned) shellAssigns(a, fact, ctx, name, true);
}

/** A variable name that bash parses, subscript and all (`read NAME`, `printf -v NAME`, `test -v NAME`). */
export function evaluatedName(a: Analysis, word: Word, what: string, fact: Command, ctx: Ctx): void {
  if (word.dynamic) {
    fact.evaluatesUnknown ??= `${what} \`${word.raw}\` (a name whose subscript would be evaluated)`;
    return;
  }
  const sub = /^[A-Za-z_][A-Za-z0-9_]*\[([^]*)\]/.exec(word.value);
  if (sub && sub[1] !== "@" && sub[1] !== "*") arith(a, sub[1]!, true, `the subscript of ${what}`, fact, ctx);
}

/** `${…}` forms that evaluate text: `${x:off:len}`, `${a[i]}`, `${x@P}`, `${!x}`. */
export function expansionCode(a: Analysis, node: SyntaxNode, fact: Command, ctx: Ctx): void {
  const text = node.text;
  const lookup = arithLookup(a, ctx.scope);
  const m = /^\$\{([!#]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[[^\]]*\])?([^]*)\}$/.exec(text);
  if (!m) return;
  const [, prefix, name, subscript, rest] = m as unknown as [string, string, string, string | undefined, string];
  const bang = prefix === "!";
  if (subscript && subscript !== "[@]" && subscript !== "[*]") arith(a, subscript.slice(1, -1), false, `the subscript of ${text}`, fact, ctx);
  if (bang && !subscript && !/^[@*]$/.test(rest) && /^[A-Za-z_]/.test(name)) {
    // `${!x}`: x's value names the variable to read, subscript and all.
    const v = lookup(name);
    if (v === undefined || v.includes(DYN)) fact.evaluatesUnknown ??= `${text} on \`${name}\` (it names the variable to read)`;
    else evaluatedName(a, literalWord(v), text, fact, ctx);
  }
  if (/^:?=/.test(rest) && /^[A-Za-z_]/.test(name)) {
    // `${NAME:=…}`, `${NAME=…}` assign NAME wherever the word stands (an argument, `[[ ]]`, a case subject, a
    // heredoc); `${!x:=…}` assigns the variable x names.
    const target = bang ? lookup(name) : name;
    if (target === undefined || target.includes(DYN)) fact.evaluatesUnknown ??= `${text} on \`${name}\` (it names the variable to assign)`;
    else shellAssigns(a, fact, ctx, target);
  }
  if (rest === "@P") {
    // A prompt string: its $(…) and `…` run.
    const v = /^[A-Za-z_]/.test(name) ? lookup(name) : undefined;
    if (v === undefined || v.includes(DYN)) fact.evaluatesUnknown ??= `${text} on \`${name}\` (a prompt string)`;
    else for (const code of substitutions(v)) {
      a.run(code, { ...nested(ctx), via: "a prompt string" }, "in a prompt string");
    }
  }
  const substring = /^:(?![-=?+])([^]*)$/.exec(rest);
  if (substring) {
    // Offset and length are arithmetic; split at the first top-level colon.
    const parts = splitTopColon(substring[1]!);
    for (const part of parts) arith(a, part, false, `the offset of ${text}`, fact, ctx);
  }
}

/** `[[ a -eq b ]]` evaluates both sides as arithmetic; `[[ -v name ]]` parses name's subscript. */
export function testCode(a: Analysis, node: SyntaxNode, fact: Command, ctx: Ctx): void {
  const todo: SyntaxNode[] = [node];
  while (todo.length) {
    const n = todo.pop()!;
    if (n.type === "command_substitution" || n.type === "process_substitution") continue;
    const op = n.children.find((c) => c.type === "test_operator");
    // `[ a -eq b ]` compares integers without evaluating them; only `[[ ]]` evaluates.
    if (op && n.type === "binary_expression" && ARITH_TESTS.has(op.text) && node.children[0]?.type === "[[") {
      for (const side of n.namedChildren) if (side !== op) arith(a, side.text, false, `[[ ${op.text} ]]`, fact, ctx);
    } else if (op && n.type === "unary_expression" && (op.text === "-v" || op.text === "-R")) {
      const operand = n.namedChildren.find((c) => c !== op);
      if (operand) evaluatedName(a, word(operand, ctx.scope, a.home), `${node.children[0]?.type ?? "["} ${op.text}`, fact, ctx);
    }
    todo.push(...n.namedChildren);
  }
}
