// Words as bash expands them, on both parsing paths: quotes and escapes removed, known variables looked up,
// brace and tilde expansion, an unquoted expansion split at IFS and globbed. What the guard cannot know
// stands as DYN (facts.ts).

import { GUARD } from "../limits.ts";
import { decodeAnsiC as decodeAnsiCAsBash } from "../lib/text.ts";
import { BRACE_OPEN, BRACE_TILDE, expandBraces, markUnquoted, QUOTED, unmark } from "./braces.ts";
import { DYN, type Word } from "./facts.ts";
import { EXPANSION_BARE, EXPANSION_CLOSE, EXPANSION_OPEN, type PlainWord } from "./plain.ts";
import type { Scope } from "./scope.ts";
import type { SyntaxNode } from "./tree.ts";

/**
 * Adds a part's words to `list`; `joined` (the text between it and the word before, "" or a backslash-newline)
 * when bash reads the two as one word: the part is glued to the last word instead.
 */
export function appendWords(list: Word[], ws: readonly Word[], joined: string | null): void {
  const prev = list[list.length - 1];
  const w = ws[0];
  if (joined !== null && prev && w && ws.length === 1) {
    list[list.length - 1] = { raw: prev.raw + joined + w.raw, value: prev.value + w.value, dynamic: prev.dynamic || w.dynamic, glob: prev.glob || w.glob };
  } else list.push(...ws);
}

/** Unquoted word text: escapes removed (an escaped character is quoted), the rest marked for brace and tilde expansion. */
function markWordText(text: string): string {
  if (!text.includes("\\")) return markUnquoted(text);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\" || i === text.length - 1) out += markUnquoted(c);
    else if (text[++i] !== "\n") out += QUOTED + text[i] + QUOTED; // a backslash-newline is nothing
  }
  return out;
}

/** Text between the parts of a word: marked when unquoted. */
function between(text: string, quoted: boolean): string {
  return quoted ? unescape(text, true) : markWordText(text);
}

/** Quoted text, or the value of an expansion, in an unquoted word: bracketed so brace expansion reads it as text. */
function quote(text: string, quoted: boolean): string {
  return quoted ? text : QUOTED + text + QUOTED;
}

/** Text of a double-quoted or unquoted segment with its backslash escapes applied. */
function unescape(text: string, quoted: boolean): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\" || i === text.length - 1) {
      out += c;
      continue;
    }
    const n = text[++i]!;
    if (n === "\n") continue; // line continuation
    if (quoted && !'$`"\\'.includes(n)) out += "\\";
    out += n;
  }
  return out;
}

/** Where a word stands: a command's argument (split and globbed), a redirect's target (globbed, one word), or a value (neither). */
export type WordMode = "argv" | "redirect" | "value";

/** A variable's value as the script set it, DYN when unknown; undefined when the guard knows nothing of it. */
export function lookupVar(name: string, scope: Scope, home: string): string | undefined {
  if (name === "HOME") return scope.get("HOME") ?? home;
  if (name === "PWD") return scope.get("PWD") ?? pwdOf(scope);
  return scope.get(name);
}

/** $PWD: known only while the directory is certain. */
function pwdOf(scope: Scope): string {
  return scope.cwd !== null && scope.alts.length === 0 ? scope.cwd : DYN;
}

/** An unquoted expansion of a known value: bash splits it at IFS and globs it. */
function bareExpansion(v: string, scope: Scope): { value: string; splits: boolean; glob: boolean } {
  // With IFS changed, nobody knows where it splits.
  if (scope.has("IFS")) return { value: DYN, splits: false, glob: false };
  return { value: v, splits: v === "" || /[ \t\n]/.test(v), glob: /[*?[]/.test(v) };
}

const WHOLE_EXPANSION = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$/;
// A glob character and, after it, a `..` part (`*/../..`). Not one regular expression: `[*?[].*?\/\.\.` tried at
// every glob character of `*/*/*/…` is quadratic.
function globThenDotDot(v: string): boolean {
  const g = v.search(/[*?[]/);
  return g >= 0 && /\/\.\.(?:\/|$)/.test(v.slice(g + 1));
}

/** The words a word becomes once expanded, by the same rules on both parsing paths. */
function finishWord(raw: string, value: string, dynamic: boolean, glob: boolean, splits: boolean, mode: WordMode): Word[] {
  if (splits) {
    if (mode === "argv" && WHOLE_EXPANSION.test(raw)) {
      return value.split(/[ \t\n]+/).filter((f) => f !== "").map((f) => ({ raw, value: f, dynamic: false, glob: glob && /[*?[]/.test(f) }));
    }
    value = DYN;
  }
  // `./*/../..`: where `..` climbs from depends on what the glob matched (and a match may be a symlink).
  if (glob && mode !== "value" && globThenDotDot(value) && !value.startsWith(DYN)) value = DYN + value;
  return [{ raw, value, dynamic: dynamic || value.includes(DYN), glob }];
}

/** The static value of a word node: quotes and escapes removed, known variables substituted. */
export function word(node: SyntaxNode, scope: Scope, home: string, mode: WordMode = "value"): Word {
  return fields(node, scope, home, mode)[0] ?? { raw: node.text, value: "", dynamic: false, glob: false };
}

/**
 * The static value of a word node, as the words bash makes of it: an unquoted `$x` whose known value
 * holds blanks splits into several words (none when it is empty) in a command's arguments; elsewhere,
 * or inside a longer word, such a value is unknown.
 */
export function fields(node: SyntaxNode, scope: Scope, home: string, mode: WordMode, braces = mode !== "value"): Word[] {
  // One object, not closures: this runs for every word of every command.
  const st: Expanding = { scope, home, mode, dynamic: false, glob: false, splits: false, substituted: 0 };
  // Unquoted text comes back with its `{ } , . ~` marked (braces.ts), so that brace expansion, which bash does
  // first, and tilde expansion see only what bash sees; the marks are read back below.
  const marked = visit(st, node, false);
  let words = [marked];
  if (braces && marked.includes(BRACE_OPEN)) {
    // `touch {/var/tmp/x,y}`, `rm {-rf,/}`: the words bash runs. Too many to follow (or a redirect's target that
    // becomes several words, which bash refuses): unknown. The value of `declare x={a,b}` is the end of the
    // word `x={a,b}`, which is never empty: its empty alternatives stay.
    const expanded = expandBraces(mode === "value" ? QUOTED + marked : marked);
    if (expanded === null || (mode === "redirect" && expanded.length !== 1)) return [{ raw: node.text, value: DYN, dynamic: true, glob: st.glob }];
    words = expanded;
  }
  if (words.length === 1 && words[0] === marked) {
    const value = tilde(st, marked);
    return finishWord(node.text, value, st.dynamic || value.includes(DYN), st.glob, st.splits, mode);
  }
  const out: Word[] = [];
  for (const w of words) {
    const value = tilde(st, w);
    out.push(...finishWord(node.text, value, value.includes(DYN), st.glob, st.splits, mode));
  }
  return out;
}

/** One word being expanded by fields(): where, and what was found so far. */
interface Expanding {
  readonly scope: Scope;
  readonly home: string;
  readonly mode: WordMode;
  dynamic: boolean;
  glob: boolean;
  splits: boolean;
  /**
   * Characters substituted into this word so far: past GUARD.maxKnownValueChars the rest is unknown, so that
   * `$x$x$x…` costs what its text does, not its text times x's length.
   */
  substituted: number;
}

function lookup(st: Expanding, name: string): string {
  const v = lookupVar(name, st.scope, st.home);
  if (v === undefined || (st.substituted += v.length) > GUARD.maxKnownValueChars) {
    st.dynamic = true;
    return DYN;
  }
  return v;
}

function bare(st: Expanding, v: string): string {
  if (st.mode === "value" || v.includes(DYN)) return v;
  const e = bareExpansion(v, st.scope);
  st.splits ||= e.splits;
  st.glob ||= e.glob;
  return e.value;
}

/** Tilde expansion (of an unquoted leading ~ only), and the marks read back. */
function tilde(st: Expanding, w: string): string {
  const value = unmark(w);
  if (!w.startsWith(BRACE_TILDE)) return value;
  if (value === "~" || value.startsWith("~/")) return (st.scope.get("HOME") ?? st.home) + value.slice(1);
  if (value === "~+" || value.startsWith("~+/")) return pwdOf(st.scope) + value.slice(2);
  return DYN + value.slice(value.indexOf("/") >= 0 ? value.indexOf("/") : value.length);
}

function visit(st: Expanding, n: SyntaxNode, quoted: boolean): string {
  switch (n.type) {
    case "word":
    case "number": {
      const t = n.text;
      if (!quoted && /(?<!\\)[*?[]/.test(t)) st.glob = true;
      return quoted ? unescape(t, true) : markWordText(t);
    }
    case "brace_expression":
      return quoted ? n.text : markUnquoted(n.text);
    case "raw_string":
      return quote(n.text.slice(1, -1), quoted);
    case "ansi_c_string":
      return quote(decodeAnsiCAsBash(n.text.slice(2, -1)), quoted); // octal and hex escapes are bytes, read as UTF-8, as bash does
    case "string":
    case "translated_string":
    case "heredoc_body":
    case "concatenation": {
      const inner = n.type === "string" || n.type === "translated_string" || n.type === "heredoc_body";
      // Text between child nodes (string content tree-sitter leaves unnamed) counts too.
      let out = "";
      let pos = n.startIndex;
      const text = n.text;
      const base = n.startIndex;
      for (let k = 0; k < n.children.length; k++) {
        const c = n.children[k]!;
        if (c.startIndex > pos) out += between(text.slice(pos - base, c.startIndex - base), inner || quoted);
        if (c.isNamed) {
          // Inside quotes tree-sitter folds whitespace before `$x` or `$(…)` into that node (`" $x"`).
          if (inner && c.type !== "string_content" && c.type !== "heredoc_content") out += /^\s*/.exec(c.text)![0];
          out += visit(st, c, inner || quoted);
        } else if (c.type === '"' && c.endIndex - c.startIndex > 1) {
          // …and whitespace before a closing quote into the quote token (`" "`).
          out += unescape(c.text.slice(0, -1), true);
        } else if (c.type === "$") {
          // A lone `$` is itself; `$$` (the shell's pid) comes as one unnamed token. The `$` that opens a `$"…"`
          // string is not text: bash translates the string (nothing to translate: the string itself), so
          // `> $"/var/tmp/x"` writes /var/tmp/x, not ./$/var/tmp/x.
          const next = n.children[k + 1];
          if (c.text === "$" && next?.type === "string" && next.startIndex === c.endIndex) {
            // `$"…"` (tree-sitter's translated_string, or `$` and a string in a concatenation): the string follows
          } else if (c.text === "$") out += "$";
          else {
            st.dynamic = true;
            out += DYN;
          }
        } else if (c.type !== '"' && c.type !== '$"' && n.type !== "heredoc_body") out += c.type;
        pos = c.endIndex;
      }
      if (n.endIndex > pos) out += between(text.slice(pos - base), inner || quoted);
      return inner ? quote(out, quoted) : out;
    }
    case "string_content":
    case "heredoc_content":
      return n.type === "heredoc_content" ? n.text.replace(/\\([$`\\])/g, "$1") : unescape(n.text, true);
    case "simple_expansion": {
      const name = n.namedChildren[0]?.text ?? "";
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return (st.dynamic = true), DYN;
      return quoted ? lookup(st, name) : quote(bare(st, lookup(st, name)), false);
    }
    case "expansion": {
      const kids = n.namedChildren;
      if (kids.length === 1 && kids[0]!.type === "variable_name" && n.text === "${" + kids[0]!.text + "}") return quoted ? lookup(st, kids[0]!.text) : quote(bare(st, lookup(st, kids[0]!.text)), false);
      st.dynamic = true;
      return DYN;
    }
    default:
      st.dynamic = true;
      return DYN;
  }
}

const EXPANSION = new RegExp(`([${EXPANSION_OPEN}${EXPANSION_BARE}])([^${EXPANSION_CLOSE}]*)${EXPANSION_CLOSE}`, "g");

/** The words a word of the fast path (plain.ts) becomes, by the rules fields() follows on tree-sitter's nodes. */
export function plainWords(w: PlainWord, scope: Scope, home: string, mode: WordMode): Word[] {
  let value = w.tilde ? (scope.get("HOME") ?? home) + w.value.slice(1) : w.value;
  let dynamic = false;
  let glob = w.glob;
  let splits = false;
  if (value.includes(EXPANSION_OPEN) || value.includes(EXPANSION_BARE)) {
    let substituted = 0; // as in fields(): past GUARD.maxKnownValueChars substituted, the rest is unknown
    value = value.replace(EXPANSION, (_m, open: string, name: string) => {
      if (name === "$(" || name === "`") {
        dynamic = true;
        return DYN;
      }
      const known = /^[A-Za-z_]/.test(name) ? lookupVar(name, scope, home) : undefined;
      if (known === undefined || (substituted += known.length) > GUARD.maxKnownValueChars) {
        dynamic = true;
        return DYN;
      }
      if (open === EXPANSION_OPEN || mode === "value" || known.includes(DYN)) return known;
      const e = bareExpansion(known, scope);
      splits ||= e.splits;
      glob ||= e.glob;
      return e.value;
    });
  }
  return finishWord(w.raw, value, dynamic, glob, splits, mode);
}
