// Assignments as bash makes them: `NAME=value` before a command, alone, or given to a declaration builtin
// (`declare x=…`). The subscripts they evaluate, a declaration's value that bash reads as a compound array
// assignment (code and all), the prompt code bash runs later (PROMPT_COMMAND, PS0–PS4), and the value the
// script's state keeps.

import { literalWord } from "./argv.ts";
import { DYN, variableOf, type Command, type Word } from "./facts.ts";
import { asDoubleQuoted } from "./source-text.ts";
import type { SyntaxNode } from "./tree.ts";
import { fields, word } from "./words.ts";
import { affects, forget, nested, type Analysis, type Ctx } from "./analysis.ts";
import { arith, evaluatedName } from "./evaluated-text.ts";

/** What a declaration builtin's flags make of an assignment's value (see declaredArray, declarations.ts). */
export interface DeclaredArray {
  keyword: string;
  /** Bash may read a value `(…)` as a compound array assignment. */
  array: boolean;
  /** `-A`: the keys are strings, not arithmetic. */
  assoc: boolean;
}

/**
 * An assignment node (`NAME=value`, `a[i]=x`, `a=(…)`): its subscripts, its value (whose node goes to `words`, for
 * the substitutions in it) and the variable it sets; `persistent` when it stays in the shell (not a command's prefix).
 * `declared`: an argument of declare, typeset, local, export or readonly, which bash brace-expands as a whole
 * word (`declare x={a,/etc}` is `declare x=a x=/etc`), unlike a plain assignment.
 */
export function assignment(a: Analysis, node: SyntaxNode, fact: Command, ctx: Ctx, words: SyntaxNode[], persistent: boolean, declared: DeclaredArray | false = false): void {
  const nameNode = node.childForFieldName("name");
  const name = nameNode?.text ?? "";
  const valueNode = node.childForFieldName("value");
  // `a[i]=x`, `a=([i]=x)`: the subscripts are arithmetic (for an indexed array).
  const sub = /^[A-Za-z_][A-Za-z0-9_]*\[([^]*)\]$/.exec(name);
  if (sub && sub[1] !== "@" && sub[1] !== "*") arith(a, sub[1]!, false, `the subscript of ${name}=`, fact, ctx);
  // `declare -A m=([k]=v)`: an associative array's keys are strings, not arithmetic (their substitutions
  // still run, as the words they are).
  if (valueNode?.type === "array" && !(declared && declared.assoc)) {
    // tree-sitter splits one element in parts with nothing between them (`[\$\(cmd\)]=1` is `[` and the rest):
    // to bash they are one word.
    const elements: SyntaxNode[][] = [];
    for (const c of valueNode.namedChildren) {
      const last = elements[elements.length - 1];
      if (last && last[last.length - 1]!.endIndex === c.startIndex) last.push(c);
      else elements.push([c]);
    }
    for (const parts of elements) {
      const text = parts.map((c) => c.text).join("");
      const key = /^\[([^\]]*)\]\+?=/.exec(text);
      if (!key) continue;
      arith(a, key[1]!, false, `the subscript [${key[1]}]=`, fact, ctx);
      // `x=([\$\(cmd\)]=1)`: bash removes the quotes, then evaluates the subscript as arithmetic, which runs
      // the `$(cmd)` the backslashes hid. The subscript is judged after quote removal too (as `unset a[…]`).
      if (/[\\'"]/.test(key[1]!)) {
        const value = parts.map((c) => word(c, ctx.scope, a.home));
        const removed = /^\[([^]*?)\]\+?=/.exec(value.map((w) => w.value).join(""));
        const element = literalWord(`x[${removed?.[1] ?? DYN}]`);
        evaluatedName(a, value.some((w) => w.dynamic) || !removed ? { ...element, raw: text, dynamic: true } : element, `the subscript [${key[1]}]=`, fact, ctx);
      }
    }
  }
  if (valueNode) words.push(valueNode);
  const append = /^[^=]*\+=/.test(node.text);
  const values = valueNode ? (declared ? fields(valueNode, ctx.scope, a.home, "value", true) : [word(valueNode, ctx.scope, a.home)]) : [literalWord("")];
  for (const value of values) {
    if (declared && valueNode?.type !== "array") compoundValue(a, declared, name, value, append, fact, ctx);
    assignValue(a, name, value, append, fact, ctx, persistent);
  }
}

/** A declaration's quoted or expanded value that bash reads as `(…)` code: judged as the code it is. */
export function compoundValue(a: Analysis, declared: DeclaredArray, name: string, value: Word, append: boolean, fact: Command, ctx: Ctx): void {
  if (!declared.array) return;
  const v = value.value;
  if (value.dynamic || v.includes(DYN)) {
    // Unknown unless the known text before or after the expansion rules out `(` … `)`.
    const first = v.indexOf(DYN);
    const last = v.lastIndexOf(DYN) + DYN.length;
    const mayOpen = first === 0 || v.startsWith("(");
    const mayClose = last === v.length || v.endsWith(")");
    if (mayOpen && mayClose) fact.evaluatesUnknown ??= `${declared.keyword} ${name}=\`${value.raw}\` (a value bash reads as a compound array assignment, code and all, when it reads \`(…)\`)`;
    return;
  }
  if (!(v.startsWith("(") && v.endsWith(")"))) return;
  const base = variableOf(name) ?? "x";
  const code = `${declared.assoc ? "declare -A " : ""}${base}${append ? "+" : ""}=${v}`;
  const via = `${declared.keyword} ${name}=…`;
  a.run(code, { ...nested(ctx), via }, `in the value of ${via} (a compound array assignment)`);
}

/** One variable set to one value: for the rules, for the prompt code bash runs later, and for the scope. */
export function assignValue(a: Analysis, name: string, value: Word, append: boolean, fact: Command, ctx: Ctx, persistent: boolean): void {
  fact.assignments.push({ name, value });
  // Text bash runs later: PROMPT_COMMAND before each prompt, and the $(…) of PS0, PS1, PS2 and PS4 each time
  // the prompt is shown. It is judged now, as if it were written here.
  // `PS4[0]=…` and `PROMPT_COMMAND[1]=…` too: element 0 is the variable, and bash runs every element of PROMPT_COMMAND.
  const base = variableOf(name);
  if (base !== null && /^(?:PROMPT_COMMAND|PS[0124])$/.test(base) && !value.dynamic && value.value.trim()) {
    const code = base === "PROMPT_COMMAND" ? value.value : `: "${asDoubleQuoted(value.value)}"`;
    a.run(code, { ...nested(ctx), via: name }, `in ${name}`);
  }
  if (!persistent) return;
  setVar(a, ctx, name, value, append);
}

/** A plain assignment as the script makes it. */
function setVar(a: Analysis, ctx: Ctx, name: string, value: Word, append: boolean): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    // `a[i]=x`: an element, not a value the guard follows; `$a` is element 0, so a's value is not known after it.
    const base = variableOf(name);
    if (base !== null) forget(a, ctx, base);
    return;
  }
  affects(a, ctx, { name });
  // `cd ..` goes up from $PWD, not from where the shell is: after PWD=…, nobody knows where it goes.
  if (name === "PWD") ctx.scope.lostCwd();
  const old = append ? (ctx.scope.get(name) ?? DYN) : "";
  if (value.dynamic || old.includes(DYN)) ctx.scope.forget(name);
  else ctx.scope.set(name, old + value.value);
}
