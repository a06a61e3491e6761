// Text that bash evaluates as arithmetic: `(( ))`, `$(( ))`, `let`, `${x:off:len}`, subscripts, the
// operands of `[[ a -eq b ]]`. Arithmetic reads a variable's value as an expression in its turn, and a
// subscript in it is expanded: `x='a[$(touch F)]'; (( x ))` runs touch. So a name whose value the guard
// cannot see is code it cannot see, and `$(…)` inside such text is a command to judge.

import { GUARD } from "../limits.ts";
import { DYN } from "./facts.ts";
import { DYN_NUM } from "./scope.ts";

export interface ArithCheck {
  /** What the guard cannot see (`x`, "a command's output"), or null. */
  unknown: string | null;
  /** Command text that a subscript in it runs: to be judged as commands. */
  code: string[];
  /** Names the text assigns (their values are integers afterwards). */
  assigned: string[];
}

/** Levels of a value naming another value before the guard gives up. */
const MAX_DEPTH = 8;
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ASSIGN_OP = /^\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)/;

/** A known value that arithmetic can read without evaluating anything: a number, or an unknown integer. */
export function numeric(v: string): boolean {
  return v === DYN_NUM || /^\s*[-+]?\s*(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)\s*$/.test(v) || v.trim() === "";
}

/** Whether `++` or `--` (then blanks) ends `t` before `i`: a pre-increment of the name at `i`. */
function incrementBefore(t: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(t[j]!)) j--;
  return j >= 1 && (t[j] === "+" || t[j] === "-") && t[j - 1] === t[j];
}

/** Where the bracket or parenthesis opened at `open` closes, or -1. */
function closing(text: string, open: number, left: string, right: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === left) depth++;
    else if (text[i] === right && --depth === 0) return i;
  }
  return -1;
}

/**
 * Checks `text` as bash's arithmetic evaluator reads it (shell expansions already done; DYN marks what
 * they left unknown). `lookup` gives a variable's value: undefined or holding DYN when unknown. `budget`:
 * characters still to be read (shared by the checks of one command), spent as text and values are read.
 */
export function checkArithmetic(text: string, lookup: (name: string) => string | undefined, budget: { left: number } = { left: Infinity }): ArithCheck {
  const out: ArithCheck = { unknown: null, code: [], assigned: [] };
  const local = new Map<string, string>();
  const read = (name: string): string | undefined => local.get(name) ?? lookup(name);
  const visit = (t: string, depth: number, origin: string | null): void => {
    if (out.unknown !== null) return;
    // A value is read as an expression each time a name in it is met (`a` = `b+b+…`, `b` = `c+c+…` takes
    // exponential time): past the characters `budget` allows, the rest is unknown.
    if ((budget.left -= t.length) < 0) {
      out.unknown = `\`${origin ?? t.slice(0, 12)}\` (values that name others more than the guard reads)`;
      return;
    }
    if (depth > MAX_DEPTH) {
      out.unknown = `\`${origin ?? t}\` (a value that names another too many times)`;
      return;
    }
    if (t.includes(DYN) && t !== DYN_NUM) {
      out.unknown = origin ? `\`${origin}\`` : "an expansion or a command's output";
      return;
    }
    let i = 0;
    while (i < t.length && out.unknown === null) {
      const rest = t.slice(i);
      const c = t[i]!;
      if (/\d/.test(c)) {
        i += NUMBER.exec(rest)?.[0].length ?? 1;
        // `10#x`-style digits and a number glued to letters are still one token.
        while (i < t.length && /[A-Za-z0-9_@#]/.test(t[i]!)) i++;
        continue;
      }
      if (c === "$" && t[i + 1] === "(") {
        // A command substitution in text that is evaluated: a subscript expands it (the command runs).
        const end = closing(t, i + 1, "(", ")");
        out.code.push(t.slice(i + 2, end < 0 ? t.length : end));
        i = end < 0 ? t.length : end + 1;
        continue;
      }
      if (c === "`") {
        const end = t.indexOf("`", i + 1);
        out.code.push(t.slice(i + 1, end < 0 ? t.length : end));
        i = end < 0 ? t.length : end + 1;
        continue;
      }
      if (c === "$") {
        // `$x` / `${x}` inside evaluated text (a subscript) is expanded there.
        const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(rest);
        if (!m) {
          out.unknown = `\`${rest.slice(0, 12)}\``;
          return;
        }
        const name = (m[1] ?? m[2])!;
        const v = read(name);
        if (v === undefined || (v.includes(DYN) && v !== DYN_NUM)) out.unknown = `\`${name}\``;
        else if (!numeric(v)) visit(v, depth + 1, name);
        i += m[0].length;
        continue;
      }
      const m = NAME.exec(rest);
      if (m) {
        const name = m[0];
        let j = i + name.length;
        if (t[j] === "[") {
          // An array element: its subscript is arithmetic too; its value the guard does not follow.
          const end = closing(t, j, "[", "]");
          visit(t.slice(j + 1, end < 0 ? t.length : end), depth + 1, null);
          j = end < 0 ? t.length : end + 1;
          const after = t.slice(j);
          if (out.unknown === null && !ASSIGN_OP.test(after)) out.unknown = `\`${t.slice(i, j)}\` (an array element)`;
          // `x[0]=1` sets $x itself (element 0 is the variable): the caller forgets x, not as a number (`x[1]=1` leaves it).
          if (ASSIGN_OP.test(after) || /^\s*(?:\+\+|--)/.test(after) || incrementBefore(t, i)) {
            local.set(name, DYN);
            out.assigned.push(t.slice(i, j));
          }
          i = j;
          continue;
        }
        const after = t.slice(j);
        const assign = ASSIGN_OP.exec(after);
        const incdec = /^\s*(?:\+\+|--)/.test(after) || incrementBefore(t, i);
        if (assign && assign[0].trim() === "=") {
          // A plain `x = …` does not read x.
        } else {
          const v = read(name);
          if (v === undefined || (v.includes(DYN) && v !== DYN_NUM)) {
            out.unknown = `\`${name}\``;
            if (assign || incdec) out.assigned.push(name); // `(( x++ ))` with x unknown still sets x
            return;
          }
          if (!numeric(v)) visit(v, depth + 1, name);
        }
        if (assign || incdec) {
          local.set(name, DYN_NUM);
          out.assigned.push(name);
        }
        i = j;
        continue;
      }
      i++;
    }
  };
  visit(text, 0, null);
  return out;
}

/** The commands of the `$(…)` and `` `…` `` in text that the shell expands again (a prompt string). */
export function substitutions(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === "$" && text[i + 1] === "(") {
      const end = closing(text, i + 1, "(", ")");
      out.push(text.slice(i + 2, end < 0 ? text.length : end));
      if (end < 0) break;
      i = end;
    } else if (text[i] === "`") {
      const end = text.indexOf("`", i + 1);
      out.push(text.slice(i + 1, end < 0 ? text.length : end));
      if (end < 0) break;
      i = end;
    }
  }
  return out;
}

/**
 * Shell expansions in arithmetic source text, as bash does them before evaluating: `$x` by its value,
 * `$(( … ))` checked on its own and read as a number, `${#…}`, `$#`, `$?`, `$$`, `$!` as numbers; any
 * other expansion and command output as unknown (DYN). Quotes are removed.
 */
export function expandArithmetic(src: string, lookup: (name: string) => string | undefined, inner: (text: string) => void): string {
  let out = "";
  let i = 0;
  // Past GUARD.maxKnownValueChars substituted, values are unknown: `$x$x$x…` costs what its text does.
  let substituted = 0;
  const value = (name: string): string => {
    const v = lookup(name);
    return v === undefined || (substituted += v.length) > GUARD.maxKnownValueChars ? DYN : v;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"') {
      i++;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      out += src.slice(i + 1, end < 0 ? src.length : end);
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (c === "\\" && i + 1 < src.length) {
      out += src[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const end = src.indexOf("`", i + 1);
      out += DYN;
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (c !== "$") {
      out += c;
      i++;
      continue;
    }
    const rest = src.slice(i);
    if (rest.startsWith("$((")) {
      const end = closing(src, i + 1, "(", ")");
      inner(src.slice(i + 3, end < 0 ? src.length : end - 1));
      out += "0";
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (rest.startsWith("$(")) {
      const end = closing(src, i + 1, "(", ")");
      out += DYN;
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (rest.startsWith("${")) {
      const end = closing(src, i + 1, "{", "}");
      const body = src.slice(i + 2, end < 0 ? src.length : end);
      if (body.startsWith("#") && body.length > 1) out += "0";
      else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(body)) out += value(body);
      else out += DYN;
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*|[#?$!])/.exec(rest);
    if (m) {
      out += /^[#?$!]$/.test(m[1]!) ? "0" : value(m[1]!);
      i += m[0].length;
      continue;
    }
    out += DYN;
    i += 2;
  }
  return out;
}
