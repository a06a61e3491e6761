// The declaration builtins: `export`, `declare`, `typeset`, `local`, `readonly` and `unset`, as a declaration
// command of tree-sitter or as a plain command behind `builtin`/`command`. What their flags make of the names
// and values they are given: exported, pinned, unset, printed, a nameref, an array whose value is code.

import { literalWord } from "./argv.ts";
import { DYN, type Command, type Word } from "./facts.ts";
import type { SyntaxNode } from "./tree.ts";
import { appendWords, fields } from "./words.ts";
import { affects, forget, makeCommand, shellAssigns, SKIP, type Analysis, type Ctx } from "./analysis.ts";
import { assignment, assignValue, compoundValue, type DeclaredArray } from "./assignments.ts";
import { evaluatedName } from "./evaluated-text.ts";

/** Builtins whose operands are names they declare, export or unset. */
export const DECLARES = new Set(["export", "declare", "typeset", "local", "readonly", "unset"]);

/**
 * `export`, `declare`, `typeset`, `local`, `readonly`, `unset` as tree-sitter reads them (a declaration_command):
 * the command, its assignments and the names it declares. Its words with substitutions go to `words`.
 */
export function declarationCommand(a: Analysis, node: SyntaxNode, ctx: Ctx, words: SyntaxNode[], where: string | undefined): Command {
  const fact = makeCommand(a, node.text, [], [], ctx);
  const keyword = node.children[0]?.text ?? "";
  let nameref = false;
  // tree-sitter splits one word in several parts with nothing between them (`unset a[2]` is the name `a` and
  // the word `[2]`; `unset a[\$\(x\)]` three parts): to bash they are one word, judged as one.
  const names: Word[] = [];
  let lastEnd = -1;
  for (const c of node.children) {
    if (!c.isNamed) fact.argv.push(literalWord(c.text));
    else if (c.type === "variable_assignment") {
      // The flags before it say whether bash may read its value as a compound array assignment.
      assignment(a, c, fact, ctx, words, true, keyword !== "unset" ? declaredArray(keyword, names) : false);
    }
    else if (c.type === "variable_name" || !SKIP.has(c.type)) {
      const ws = c.type === "variable_name" ? [literalWord(c.text)] : fields(c, ctx.scope, a.home, "argv");
      if (c.type !== "variable_name") words.push(c);
      // tree-sitter reads `unset PS{0,1}` and `export PATH{,}=x` as a name and a word; to bash they are one
      // word whose braces expand into several names (PS0 PS1; PATH=x PATH=x). Fail closed.
      if (c.type !== "variable_name" && lastEnd === c.startIndex && c.text.startsWith("{")) {
        a.script.problem ??= {
          line: c.startPosition.row + 1,
          column: c.startPosition.column + 1,
          cause: `the guard's parser splits \`${node.text.slice(0, c.endIndex - node.startIndex).split(/\s/).pop()}\` in two where bash expands its braces into several names: write the names out`,
          ...(where ? { where } : {}),
        };
      }
      appendWords(names, ws, lastEnd === c.startIndex ? "" : null);
      lastEnd = c.endIndex;
      continue;
    }
    lastEnd = -1;
  }
  fact.argv.push(...names);
  if (declares(a, fact, ctx, keyword, names)) nameref = true;
  // A nameref makes one name stand for another: the guard follows neither from here on.
  if (nameref) {
    ctx.scope.forgetAll();
    affects(a, ctx, { opaque: true });
  }
  return fact;
}

/**
 * What the flags before an assignment given to declare, typeset, local, readonly or export say about its value:
 * bash reads a value that (after quotes and expansions) starts with `(` and ends with `)` as a compound array
 * assignment, running its `$(…)` and subscripts, under `-a`/`-A`, and for declare, typeset and local also when
 * the name is already an array (which the guard cannot know). A flag word not known (`declare $f x=…`) may be
 * `-a`.
 */
function declaredArray(keyword: string, before: readonly Word[]): DeclaredArray {
  let array = keyword === "declare" || keyword === "typeset" || keyword === "local";
  let assoc = false;
  for (const w of before) {
    if (w.dynamic && (w.value.startsWith(DYN) || w.value.startsWith("-"))) array = true;
    else if (/^-[A-Za-z]+$/.test(w.value)) {
      if (w.value.includes("a") || w.value.includes("A")) array = true;
      if (w.value.includes("A")) assoc = true;
    }
  }
  return { keyword, array, assoc };
}

/**
 * The names a declaration builtin (`export`, `declare`, `typeset`, `local`, `readonly`, `unset`) is given,
 * written plainly or behind `builtin`/`command`, as bash reads them. What the flags make of the names:
 * `-p`/`-f`/`-F` of declare only print; `export NAME` and `declare -x NAME` hand NAME to every later program
 * (judged like `export NAME=…`); `export -f f` hands the function on as the variable BASH_FUNC_f%%; anything
 * else (unset, local, readonly, `export -n`, `declare -r`, `builtin declare x=1`…) sets, unsets or pins a shell
 * variable (judged like `NAME=…`). True when a flag makes a nameref (`-n`).
 */
export function declares(a: Analysis, fact: Command, ctx: Ctx, keyword: string, names: readonly Word[]): boolean {
  // declare, typeset, local and unset parse a name given as text, subscript and all; export and readonly do not.
  const parsesNames = keyword === "declare" || keyword === "typeset" || keyword === "local" || keyword === "unset";
  const flags = names.filter((w) => /^[-+][A-Za-z]+$/.test(w.value)).map((w) => w.value);
  const on = (letters: RegExp): boolean => flags.some((f) => f[0] === "-" && letters.test(f.slice(1)));
  const functions = on(/[fF]/);
  const prints = (keyword === "declare" || keyword === "typeset") && flags.length > 0 && flags.every((f) => /^-[pfF]+$/.test(f));
  const exports = (keyword === "export" && !on(/n/)) || on(/x/);
  let nameref = false;
  for (const w of names) {
    if (/^[-+][A-Za-z]*$/.test(w.value) && !w.dynamic) {
      if (/^[-+][A-Za-z]*n/.test(w.value)) nameref = true;
      continue;
    }
    if (w.value === "--") continue;
    // `export 'PATH=/tmp'`, `export {PATH,x}=/tmp`, `declare "x=$v"`: a word that reads `NAME=value` once expanded
    // is an assignment to the builtin, whatever quotes made it. A name not known before it runs may be any variable.
    const m = keyword !== "unset" ? /^([^=]+?)(\+?)=([^]*)$/.exec(w.value) : null;
    const computed = m !== null && m[1]!.includes(DYN);
    if (computed) {
      ctx.scope.forgetAll();
      // Named as written (`"$(cat name)`), for the reason the environment row gives.
      const written = w.raw.includes("=") ? w.raw.slice(0, w.raw.indexOf("=")) : w.raw;
      assignValue(a, written, { raw: w.raw, value: m[3]!, dynamic: true, glob: false }, false, fact, ctx, false);
    }
    if (w.dynamic && !parsesNames) continue; // a computed name: the option spec asks (computedName)
    const name = w.value.split("=")[0]!;
    if (parsesNames) evaluatedName(a, name.includes(DYN) ? { ...w, dynamic: true } : literalWord(name), keyword, fact, ctx);
    if (name.includes(DYN)) continue;
    if (keyword === "unset" && functions) continue; // `unset -f f` removes a function (session-names judges its name)
    if (exports && functions) (fact.exports ??= []).push(`BASH_FUNC_${name}%%`);
    else if (prints) forget(a, ctx, name);
    else if (exports) {
      (fact.exports ??= []).push(name);
      forget(a, ctx, name);
    } else shellAssigns(a, fact, ctx, name);
    if (m && !computed) {
      const value: Word = { raw: w.raw, value: m[3]!, dynamic: m[3]!.includes(DYN), glob: false };
      if (!exports || !functions) compoundValue(a, declaredArray(keyword, names.slice(0, names.indexOf(w))), m[1]!, value, m[2] === "+", fact, ctx);
      assignValue(a, m[1]!, value, m[2] === "+", fact, ctx, true);
    }
  }
  return nameref;
}
