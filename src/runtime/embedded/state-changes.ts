// Can a command line change the shell's functions or arrays? just-bash copies both into each exec() and drops the
// copies at its end, so a line that may change them ends with the full trailer (transform.ts TRAILER_SOURCE: function
// names and texts, `declare -p` of the arrays: three command substitutions). Most lines cannot (`echo hi`, `ls`,
// `cd src && make`): their variables, cwd and $? come back in exec()'s own final environment, and the trailer is one
// assignment. The look is conservative: anything it cannot tell counts as a change.

import { literalText, type WordNode } from "./ast.ts";
import type { ScriptNode } from "./transform.ts";

/** Builtins that can define, remove or fill functions and arrays, or run text as code in this shell. */
const CHANGERS = new Set(["source", ".", "eval", "unset", "declare", "typeset", "local", "readonly", "mapfile", "readarray", "trap", "enable"]);

/** Builtins that change arrays only with some arguments: `read -a`, `printf -v a[0]`, `let 'a[1]=2'`, `command eval`. */
function changesWith(name: string, args: WordNode[]): boolean {
  const texts = args.map((a) => literalText(a));
  if (texts.some((t) => t === null)) return name === "read" || name === "printf" || name === "let" || name === "command" || name === "builtin";
  const words = texts as string[];
  switch (name) {
    case "read":
      return words.some((w) => /^-[a-zA-Z]*a/.test(w));
    case "printf":
      return words.some((w) => w.startsWith("-v"));
    case "let":
      return words.some((w) => w.includes("["));
    case "command":
    case "builtin": {
      const first = words.find((w) => !w.startsWith("-"));
      return !(words[0] === "-v" || words[0] === "-V") && first !== undefined && (CHANGERS.has(first) || changesWith(first, []));
    }
    default:
      return false;
  }
}

interface Node {
  type?: unknown;
  [key: string]: unknown;
}

/**
 * True when the line may change functions or arrays: it defines a function, calls one of `functions` or an alias in
 * `aliases`, runs a command whose name is not plain text, runs one of CHANGERS, assigns to an array or an element,
 * or uses an array element in arithmetic.
 */
export function mayChangeFunctionsOrArrays(ast: ScriptNode, functions: ReadonlySet<string>, aliases: ReadonlySet<string>): boolean {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    const node = value as Node;
    switch (node.type) {
      case "FunctionDef":
      case "ArithArrayElement":
        return true;
      case "ArithAssignment":
        if (node.subscript !== null && node.subscript !== undefined) return true;
        break;
      case "Assignment":
        if (node.array !== null || String(node.name).includes("[")) return true;
        break;
      case "SimpleCommand": {
        const name = node.name as WordNode | null;
        if (name !== null) {
          const text = literalText(name);
          if (text === null || CHANGERS.has(text) || functions.has(text) || aliases.has(text)) return true;
          if (changesWith(text, (node.args as WordNode[] | undefined) ?? [])) return true;
        }
        break;
      }
    }
    for (const key in node) {
      if (key === "sourceText" || key === "type") continue;
      const v = node[key];
      if (v !== null && typeof v === "object") stack.push(v);
    }
  }
  return false;
}
