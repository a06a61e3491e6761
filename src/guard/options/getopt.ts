// GNU getopt_long, as the programs the guard allows parse their arguments: bundles (`-zo FILE`),
// attached values (`-oFILE`, `--out=FILE`), unique-prefix abbreviations of long options (`--rec`,
// `--outp=`), optional arguments (`--color`, `--color=auto`), `--`, and options after operands
// (GNU permutes unless POSIXLY_CORRECT is set, which the guard never lets an agent set unasked).
// An option the spec does not name is an error, never skipped: the caller treats it as "not known safe".

import { DYN, type Word } from "../facts.ts";

/** `forbidden`: a real option the spec leaves out, kept so that an abbreviation of it is never read as a listed one. */
export type Arity = "none" | "required" | "optional" | "forbidden";

export interface OptionTable {
  short: Map<string, Arity>;
  long: Map<string, Arity>;
  /** `-5` means `-n 5` (head, tail, uniq, git log): a dash and digits is a known option. */
  numeric: boolean;
  /** Options end at the first operand (bash's builtins, POSIX getopt); GNU getopt_long permutes and reads on. */
  stopAtOperand?: boolean;
}

/** One option as the program sees it: its canonical name (`o` or `output`), and its value. */
export interface Opt {
  name: string;
  value: Word | null;
  /** The word it came from, for messages. */
  word: Word;
}

export type Parsed =
  | { ok: true; opts: Opt[]; operands: Word[] }
  | { ok: false; /** What the spec does not know, as written. */ unknown: string };

/**
 * `short` in getopt(3) syntax (`"nc:z"`: `:` takes a value, `::` an optional attached one);
 * `long` as names with `=` for a value and `=?` for an optional one (`"lines="`, `"color=?"`).
 */
export function optionTable(short: string, long: readonly string[], numeric = false, unlisted: readonly string[] = [], stopAtOperand = false): OptionTable {
  const s = new Map<string, Arity>();
  for (let i = 0; i < short.length; i++) {
    const c = short[i]!;
    if (short[i + 1] === ":" && short[i + 2] === ":") {
      s.set(c, "optional");
      i += 2;
    } else if (short[i + 1] === ":") {
      s.set(c, "required");
      i++;
    } else s.set(c, "none");
  }
  const l = new Map<string, Arity>();
  for (const name of long) {
    if (name.endsWith("=?")) l.set(name.slice(0, -2), "optional");
    else if (name.endsWith("=")) l.set(name.slice(0, -1), "required");
    else l.set(name, "none");
  }
  for (const name of unlisted) l.set(name, "forbidden");
  return { short: s, long: l, numeric, ...(stopAtOperand ? { stopAtOperand } : {}) };
}

function sub(w: Word, value: string): Word {
  return { raw: w.raw, value, dynamic: value.includes(DYN), glob: w.glob };
}

/** Spellings programs accept for one option: an abbreviation of both is not ambiguous to getopt_long. */
const SAME_OPTION: Record<string, string> = { colour: "color" };

/** The long option `name` stands for: itself, or the one option it is a unique prefix of. */
export function resolveLong(table: OptionTable, name: string): string | null {
  if (table.long.has(name)) return name;
  let found: string | null = null;
  for (const k of table.long.keys()) {
    if (k.startsWith(name)) {
      const canonical = SAME_OPTION[k] ?? k;
      if (found !== null && found !== canonical) return null; // ambiguous: getopt_long refuses it too
      found = canonical;
    }
  }
  return found;
}

export function getopt(args: readonly Word[], table: OptionTable): Parsed {
  const opts: Opt[] = [];
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const written = eq > 0 ? v.slice(2, eq) : v.slice(2);
      if (written.includes(DYN)) return { ok: false, unknown: w.raw };
      const name = resolveLong(table, written);
      if (name === null) return { ok: false, unknown: w.raw };
      const arity = table.long.get(name)!;
      if (arity === "forbidden") return { ok: false, unknown: w.raw };
      if (eq > 0) {
        if (arity === "none") return { ok: false, unknown: w.raw };
        opts.push({ name, value: sub(w, v.slice(eq + 1)), word: w });
      } else if (arity === "required") {
        const next = args[++i];
        if (!next) return { ok: false, unknown: w.raw };
        opts.push({ name, value: next, word: w });
      } else opts.push({ name, value: null, word: w });
      continue;
    }
    if (v.startsWith("-") && v.length > 1) {
      if (table.numeric && /^-\d+$/.test(v)) {
        opts.push({ name: "#", value: sub(w, v.slice(1)), word: w });
        continue;
      }
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        const arity = c === DYN ? undefined : table.short.get(c);
        if (arity === undefined) return { ok: false, unknown: w.raw };
        if (arity === "none") {
          opts.push({ name: c, value: null, word: w });
          continue;
        }
        const attached = v.slice(j + 1);
        if (attached) opts.push({ name: c, value: sub(w, attached), word: w });
        else if (arity === "required") {
          const next = args[++i];
          if (!next) return { ok: false, unknown: w.raw };
          opts.push({ name: c, value: next, word: w });
        } else opts.push({ name: c, value: null, word: w });
        break;
      }
      continue;
    }
    if (table.stopAtOperand) {
      operands.push(...args.slice(i));
      break;
    }
    operands.push(w);
  }
  return { ok: true, opts, operands };
}

/**
 * A word whose text is not known before it runs, and may turn out to be an option: it starts with one (`$X`,
 * `"$(…)"`, a leading `*`), or it may split into several words, any of which may (`a$X` with X=`b --output=/x`).
 */
export function mayBeOption(w: Word): boolean {
  return w.value.startsWith(DYN) || (w.glob && /^[*?[]/.test(w.value)) || mayBeSeveral(w);
}

/**
 * A word bash may turn into several words (or none) that the guard cannot see: one with an unquoted expansion of
 * a value it does not know (`$X`, `$(cat f)`, `` `…` ``, `a$X`; a known value is split already), or the input
 * xargs appends. `"$X"` is one word.
 */
export function mayBeSeveral(w: Word): boolean {
  return w.several === true || (w.dynamic && splitsIntoWords(w.raw));
}

/**
 * Whether a word as written holds a `$…` or `` `…` `` outside quotes (bash splits its value at blanks), or a quoted
 * `"$@"`/`"${a[@]}"` (one word per element). Quotes are followed as bash reads them; where this reading is unsure (a
 * quote inside `"$(…)"`), it errs towards yes. `$$`, `$#`, `$?`, `$!`, `$-`, `${#x}` and `$((…))` are one word.
 */
export function splitsIntoWords(raw: string): boolean {
  let dq = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\") i++;
    else if (c === '"') dq = !dq;
    else if (dq) {
      // "$@", "${a[@]}", "${!p@}": quoted, and still one word per element
      if (c === "$" && /^\$(?:@|\{!?[A-Za-z_0-9]*(?:\[@\]|@))/.test(raw.slice(i, i + 80))) return true;
    }
    else if (c === "'") {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) return true;
      i = end;
    } else if (c === "`") return true;
    else if (c === "$") {
      const n = raw[i + 1];
      if (n === '"') {
        dq = true; // $"…" is a quoted string
        i++;
      } else if (n === "'") {
        // $'…': backslash escapes inside
        let j = i + 2;
        while (j < raw.length && raw[j] !== "'") j += raw[j] === "\\" ? 2 : 1;
        i = j;
      } else if (n === "(" && raw[i + 2] === "(") {
        // $((…)): a number, one word (IFS, which could split it, is a variable the guard never lets change unasked)
        const end = arithmeticEnd(raw, i + 1);
        if (end < 0) return true;
        i = end;
      } else if (n !== undefined && "$#?!-".includes(n)) i++; // the shell's pid, counts, status, flags: one word
      else if (n === "{" && raw[i + 2] === "#" && /^\{#[A-Za-z_][A-Za-z0-9_]*\}/.test(raw.slice(i + 1))) i = raw.indexOf("}", i); // ${#x}: a length
      else if (n !== undefined && /[A-Za-z_0-9{(@*]/.test(n)) return true;
    }
  }
  return false;
}

/**
 * How many expansions a word as written holds when every one is a number (or the shell's flags): `$$`, `$#`, `$?`,
 * `$!`, `$-`, `${#x}`, `$((…))`; null when it holds any other (`$f`, `${f}`, `$(…)`, backticks), whose value may hold
 * a `/` and `..` (`> ./"$f"` with f=../../x). Quotes are followed as in splitsIntoWords. `globs` receives, for each
 * expansion in order, a glob of the text it may be (`$!` is empty before any background job: `*`).
 */
export function numberExpansions(raw: string, globs?: string[]): number | null {
  let dq = false;
  let count = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\") i++;
    else if (c === '"') dq = !dq;
    else if (c === "'" && !dq) {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) return null;
      i = end;
    } else if (c === "`") return null;
    else if (c === "$") {
      const n = raw[i + 1];
      if (n === '"' && !dq) {
        dq = true; // $"…" is a quoted string
        i++;
      } else if (n === "'" && !dq) {
        let j = i + 2;
        while (j < raw.length && raw[j] !== "'") j += raw[j] === "\\" ? 2 : 1;
        i = j;
      } else if (n === "(" && raw[i + 2] === "(") {
        const end = arithmeticEnd(raw, i + 1);
        if (end < 0) return null;
        i = end;
        count++;
        globs?.push("[-0-9]*");
      } else if (n !== undefined && "$#?!-".includes(n)) {
        i++;
        count++;
        // `$!` is empty before a background job, `$-` is letters: any text; the others are digits
        globs?.push(n === "!" || n === "-" ? "*" : "[0-9]*");
      } else if (n === "{" && /^\{#[A-Za-z_][A-Za-z0-9_]*\}/.test(raw.slice(i + 1, i + 260))) {
        i = raw.indexOf("}", i);
        count++;
        globs?.push("[0-9]*");
      } else if (n !== undefined && /[A-Za-z_0-9{(@*]/.test(n)) return null;
    }
  }
  return count;
}

/** Where the `(` at `open` closes (its index), counting nested parentheses; -1 when it does not. */
function arithmeticEnd(raw: string, open: number): number {
  let depth = 0;
  for (let i = open; i < raw.length; i++) {
    if (raw[i] === "(") depth++;
    else if (raw[i] === ")" && --depth === 0) return i;
  }
  return -1;
}
