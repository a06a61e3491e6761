// Brace expansion, as bash 5 does it (braces.c), on a word whose unquoted characters that matter to it are
// marked. Bash expands braces before anything else, on the word's text, so `touch {/var/tmp/x,y}` touches
// /var/tmp/x and `rm {-rf,/}` is `rm -rf /`: a guard that judged the word as one relative name would judge a
// word bash never runs. The parser marks the unquoted `{` `}` `,` `.` `~` of a word (quoted ones, escaped ones
// and the values of expansions stay plain text, and quoted text or an expansion is bracketed by QUOTED so that
// `{"1"..3}` is no sequence); this module expands the marked text and reads the marks back as characters.

/** Marks for unquoted characters (Unicode private use; the guard's own DYN is U+0000). */
export const BRACE_OPEN = "\uE000";
export const BRACE_CLOSE = "\uE001";
export const BRACE_COMMA = "\uE002";
export const BRACE_DOT = "\uE003";
export const BRACE_TILDE = "\uE004";
/** Brackets text that was quoted or came from an expansion. */
export const QUOTED = "\uE005";

/** What each mark (U+E000 + index) stands for. */
const TO_CHAR = ["{", "}", ",", ".", "~", ""];

// unmark and markUnquoted run on every word of every command: a loop that copies only where a character changes,
// not a replace() that calls a function per match.

/** The text bash sees once the marks are read back as the characters they stand for. */
export function unmark(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i) - 0xe000;
    if (k < 0 || k > 5) continue;
    out += text.slice(from, i) + TO_CHAR[k]!;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Marks the characters of unquoted word text that brace expansion and tilde expansion read. */
export function markUnquoted(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const mark = c === "{" ? BRACE_OPEN : c === "}" ? BRACE_CLOSE : c === "," ? BRACE_COMMA : c === "." ? BRACE_DOT : c === "~" ? BRACE_TILDE : null;
    if (mark === null) continue;
    out += text.slice(from, i) + mark;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

import { GUARD } from "../limits.ts";

class TooMany extends Error {}

export interface Limit {
  words: number;
  chars: number;
}

/**
 * The words bash makes of a marked word by brace expansion, still marked (the caller reads `~` and then the
 * marks back), without the words it leaves empty (bash drops them: `touch {,x}` touches x alone); null when
 * following it would pass a limit (the caller then treats the word as unknown).
 */
export function expandBraces(text: string, limit: Limit = { words: GUARD.maxBraceWords, chars: GUARD.maxBraceChars }): string[] | null {
  if (!text.includes(BRACE_OPEN)) return [text];
  // Each brace scans the rest of the word for its match: a longer word costs too much to follow.
  if (text.length > GUARD.maxBraceWordChars) return null;
  try {
    const words = expand(text, limit);
    return words.filter((w) => w.includes(QUOTED) || unmark(w) !== "");
  } catch (e) {
    if (e instanceof TooMany) return null;
    throw e;
  }
}

/** Index of the BRACE_CLOSE matching the BRACE_OPEN just before `from`, or -1. */
function matchingClose(text: string, from: number): number {
  let level = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === BRACE_OPEN) level++;
    else if (c === BRACE_CLOSE) {
      if (level === 0) return i;
      level--;
    }
  }
  return -1;
}

function product(a: string[], b: string[], limit: Limit): string[] {
  if (a.length * b.length > limit.words) throw new TooMany();
  const chars = a.reduce((n, x) => n + x.length, 0) * b.length + b.reduce((n, y) => n + y.length, 0) * a.length;
  if (chars > limit.chars) throw new TooMany();
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return out;
}

function expand(text: string, limit: Limit): string[] {
  const open = text.indexOf(BRACE_OPEN);
  if (open < 0) return [text];
  const preamble = text.slice(0, open);
  const close = matchingClose(text, open + 1);
  // No matching close: this brace is a plain character, and what follows it may still expand (`{a{b,c}`).
  if (close < 0) return expand(text.slice(open + 1), limit).map((w) => preamble + BRACE_OPEN + w);
  const amble = text.slice(open + 1, close);
  const parts = topLevelParts(amble);
  const tack = parts.length > 1 ? expandParts(parts, limit) : sequence(amble, limit);
  // Neither a list nor a sequence (`{a}`, `{}`, `{{a,b}}`): this brace is a plain character, and what follows it may expand.
  if (tack === null) return expand(text.slice(open + 1), limit).map((w) => preamble + BRACE_OPEN + w);
  return product(tack.map((t) => preamble + t), expand(text.slice(close + 1), limit), limit);
}

/** `a,b{c,d},e`: the comma-separated parts at this level. */
function topLevelParts(amble: string): string[] {
  const parts: string[] = [];
  let level = 0;
  let start = 0;
  for (let i = 0; i < amble.length; i++) {
    const c = amble[i];
    if (c === BRACE_OPEN) level++;
    else if (c === BRACE_CLOSE && level > 0) level--;
    else if (c === BRACE_COMMA && level === 0) {
      parts.push(amble.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(amble.slice(start));
  return parts;
}

/** Each part expanded, in order. */
function expandParts(parts: string[], limit: Limit): string[] {
  const out: string[] = [];
  for (const p of parts) {
    out.push(...expand(p, limit));
    if (out.length > limit.words) throw new TooMany();
  }
  return out;
}

const DOTS = BRACE_DOT + BRACE_DOT;
const INTEGER = /^[-+]?\d+$/;

/** `1..5`, `a..e`, `01..10..2`, `-3..3`: the words of a sequence expression, or null when it is none. */
function sequence(amble: string, limit: Limit): string[] | null {
  const parts = amble.split(DOTS);
  if (parts.length !== 2 && parts.length !== 3) return null;
  const [lhs, rhs, inc] = parts as [string, string, string | undefined];
  if (inc !== undefined && !INTEGER.test(inc)) return null;
  let step = inc === undefined ? 1 : Math.abs(Number(inc));
  if (!Number.isSafeInteger(step)) return null;
  if (step === 0) step = 1;
  const out: string[] = [];
  const push = (w: string): void => {
    out.push(w);
    if (out.length > limit.words) throw new TooMany();
  };
  if (INTEGER.test(lhs) && INTEGER.test(rhs)) {
    const a = Number(lhs);
    const b = Number(rhs);
    // Beyond 32 bits bash's arithmetic and ours could part ways: not known.
    if (Math.abs(a) > 2 ** 31 || Math.abs(b) > 2 ** 31) throw new TooMany();
    // A leading zero on either end pads every word to the longer end's width.
    const width = /^[-+]?0\d/.test(lhs) || /^[-+]?0\d/.test(rhs) ? Math.max(lhs.length, rhs.length) : 0;
    const dir = a <= b ? 1 : -1;
    for (let n = a; dir > 0 ? n <= b : n >= b; n += dir * step) push(pad(n, width));
    return out;
  }
  if (/^[A-Za-z]$/.test(lhs) && /^[A-Za-z]$/.test(rhs)) {
    const a = lhs.charCodeAt(0);
    const b = rhs.charCodeAt(0);
    const dir = a <= b ? 1 : -1;
    for (let n = a; dir > 0 ? n <= b : n >= b; n += dir * step) push(String.fromCharCode(n));
    return out;
  }
  return null;
}

function pad(n: number, width: number): string {
  const digits = String(Math.abs(n));
  const sign = n < 0 ? "-" : "";
  return sign + digits.padStart(width - sign.length, "0");
}

/**
 * The words bash makes of a plain word (a name, read as unquoted text) by brace expansion: `PS{0,1}` is PS0 PS1;
 * null past the limits.
 */
export function braceWords(word: string): string[] | null {
  return expandBraces(markUnquoted(word))?.map(unmark) ?? null;
}
