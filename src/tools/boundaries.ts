// Where one field of a tool call's arguments could end and another begin: the check that keeps argument repair from
// moving text between fields (a note read into `command`). Pure, linear in the text: no regular expression here scans
// backwards or retries.
//
// - fieldBoundary(value): a repaired value (or key) in which the end of a string (a quote) is followed, with anything
//   short on the same line in between, by something shaped like a key and a colon: `"name":` or a bare `name:`.
//   That is a field boundary, whatever separates the two (a comma, none, `;`, `|`, `،`, a letter, a comment): the
//   principle, not a list of separators. A repair that leaves one is refused; when honest text looks the same (JSON
//   with two keys inside a broken string, `print("hi", {"a": 1})`), refusing is right.
// - joinedStrings(raw): a `+` before a string, which jsonrepair joins to the string before it (the quote between, the
//   evidence of a boundary, is gone from the repaired value).
// - duplicateKey(json): a key named twice in one object of valid JSON (JSON.parse keeps the last, a reader sees the
//   first).

import { INPUT } from "../limits.ts";

/** Characters a model or a lenient parser may use as quotes. */
const QUOTES = new Set([..."\"'`\u00B4\u201C\u201D\u201E\u201F\u2018\u2019\u201A\u201B\u00AB\u00BB\u2039\u203A\u300C\u300D\u300E\u300F\uFF02\uFF07"]);
/** Between a key and its value: a colon, its look-alikes, and `=` (see bareKeyAt for when `=` counts). */
const COLONS = new Set([":", "=", "\uFF1A", "\uFF1D", "\uFE55", "\uFE13", "\uFE30", "\u2236", "\uA789", "\u02F8", "\u05C3"]);
const EQUALS = new Set(["=", "\uFF1D"]);
const BRACKETS = new Set(["{", "}", "[", "]", "(", ")"]);

function isLineBreak(c: string): boolean {
  return c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029" || c === "\u0085" || c === "\v" || c === "\f";
}

/** Any white space (JavaScript's \s: line and paragraph separators, no-break and ideographic spaces, the BOM). */
function isSpace(c: string): boolean {
  return /\s/u.test(c) || c === "\u0085";
}

/** An invisible format character (zero-width spaces and joiners, the soft hyphen, bidi marks): part of a word, never a gap. */
function isInvisible(c: string): boolean {
  return /\p{Cf}/u.test(c) && c !== "\uFEFF";
}

/** White space within a line. */
function isBlank(c: string): boolean {
  return !isLineBreak(c) && isSpace(c);
}

/** A character of a bare (unquoted) key: anything but white space, quotes, colons, brackets, a comma and a backslash. */
function isBareKeyChar(c: string): boolean {
  return !isSpace(c) && !QUOTES.has(c) && !COLONS.has(c) && !BRACKETS.has(c) && c !== "," && c !== "\\";
}

interface Tables {
  /** The next quote at or after i. */
  quote: Int32Array;
  /** The next quote at or after i that blanks and a colon follow (the end of a quoted key). */
  keyEnd: Int32Array;
  /** The next line break at or after i. */
  lineEnd: Int32Array;
  /** The first position at or after i that is not blank. */
  nonBlank: Int32Array;
  /** Where the run of bare-key characters that holds i ends. */
  wordEnd: Int32Array;
  /** After a `/*` at i: the position after the next `*\/`. */
  commentEnd: Int32Array;
}

/** One backward pass. */
function tables(s: string): Tables {
  const n = s.length;
  const t: Tables = {
    quote: new Int32Array(n + 1).fill(n),
    keyEnd: new Int32Array(n + 1).fill(n),
    lineEnd: new Int32Array(n + 1).fill(n),
    nonBlank: new Int32Array(n + 1).fill(n),
    wordEnd: new Int32Array(n + 1).fill(n),
    commentEnd: new Int32Array(n + 1).fill(n),
  };
  let close = n; // the position after the next `*/`
  for (let i = n - 1; i >= 0; i--) {
    const c = s[i]!;
    t.lineEnd[i] = isLineBreak(c) ? i : t.lineEnd[i + 1]!;
    t.nonBlank[i] = isBlank(c) ? t.nonBlank[i + 1]! : i;
    t.quote[i] = QUOTES.has(c) ? i : t.quote[i + 1]!;
    const after = t.nonBlank[i + 1]!;
    t.keyEnd[i] = QUOTES.has(c) && after < n && COLONS.has(s[after]!) ? i : t.keyEnd[i + 1]!;
    t.wordEnd[i] = isBareKeyChar(c) ? t.wordEnd[i + 1]! : i;
    if (c === "*" && s[i + 1] === "/") close = i + 2;
    t.commentEnd[i] = close;
  }
  return t;
}

/** A quoted key starts at j (a quote): a quote later on this line that a colon follows (`"note":`, `“note”:`, `"a\\"b\\"":`), or the very next quote, on any line (`"no⏎te":`). */
function quotedKeyAt(s: string, t: Tables, n: number, j: number): boolean {
  const end = t.keyEnd[j + 1]!;
  return end < n && (end < t.lineEnd[j + 1]! || end === t.quote[j + 1]!);
}

/** A letter, a digit, `_`, `$` or any character past ASCII: what a word, and so a bare key, starts with (`-d`, `+=` and `.x` are not keys). */
function isWordChar(c: string): boolean {
  return c > "\u007F" || /[A-Za-z0-9_$]/.test(c);
}

/**
 * A bare key starts at j: key characters, blanks, a colon, then a value: a quote (`note: "x`), or anything after a
 * blank (`| note: x`) unless the key is written straight after a quote that opens a string (`echo "Usage: x"`). `=`
 * counts only before a quote and with a blank beside it (`note = "x`): `B="x"` and `a = $1` are assignments.
 */
function bareKeyAt(s: string, t: Tables, n: number, j: number, afterOpening: boolean): boolean {
  if (!isWordChar(s[j]!)) return false;
  const word = t.wordEnd[j]!;
  if (word === j) return false;
  const colon = t.nonBlank[word]!;
  if (colon >= n || !COLONS.has(s[colon]!)) return false;
  const value = t.nonBlank[colon + 1]!;
  if (value >= n || isLineBreak(s[value]!)) return false;
  if (QUOTES.has(s[value]!)) return !EQUALS.has(s[colon]!) || colon > word || value > colon + 1;
  return !EQUALS.has(s[colon]!) && !afterOpening && value > colon + 1;
}

/** The quote at i reads as one that opens a string: at the start, or after white space, `=`, `(`, `[`, `{`, `$`, `\\` or another quote. */
function opening(s: string, i: number): boolean {
  if (i === 0) return true;
  const c = s[i - 1]!;
  return isSpace(c) || QUOTES.has(c) || "=([{$\\".includes(c);
}

/**
 * The first place in `s` where a string seems to end and another key to begin (`hi", "note": "x`, `hi"، note: "x`),
 * or null; the text from there, for the message. After each quote: white space and comments (any number of lines),
 * then at most INPUT.fieldGapChars other characters, all on one line, then a quoted or bare key.
 */
export function fieldBoundary(text: string): string | null {
  const s = unentity(text);
  const n = s.length;
  let t: Tables | null = null;
  for (let i = 0; i < n; i++) {
    if (!QUOTES.has(s[i]!)) continue;
    t ??= tables(s);
    let j = i + 1;
    let gap = 0;
    /** A line ended after a gap character: more gap characters would be on a second line. */
    let lineAfterGap = false;
    /** j starts a word (a bare key starts only there). */
    let wordStart = true;
    /** Inside a comment until here: its text costs nothing, but a key in it still counts (a comment that hides `"note": "x` in a value hides nothing from bash). */
    let commentTo = -1;
    let hit = false;
    while (j < n) {
      const c = s[j]!;
      if (j === commentTo) wordStart = true;
      if (QUOTES.has(c)) {
        hit = quotedKeyAt(s, t, n, j);
        break;
      }
      if (wordStart && bareKeyAt(s, t, n, j, j === i + 1 && opening(s, i))) {
        hit = true;
        break;
      }
      if (commentTo < j && c === "/" && (s[j + 1] === "*" || s[j + 1] === "/")) {
        commentTo = s[j + 1] === "*" ? t.commentEnd[j + 2]! : t.lineEnd[j]!;
        j += 2;
        wordStart = true;
      } else if (isInvisible(c)) {
        j++; // costs nothing and neither starts nor ends a word
      } else if (isSpace(c)) {
        if (isLineBreak(c) && gap > 0) lineAfterGap = true;
        wordStart = true;
        j++;
      } else {
        if (j >= commentTo) {
          if (lineAfterGap || gap >= INPUT.fieldGapChars) break;
          gap++;
        }
        wordStart = !isWordChar(c);
        j++;
      }
    }
    if (hit) return text.slice(i, Math.min(n, Math.max(j + 1, t.lineEnd[j]!)));
  }
  return null;
}

/**
 * Where `text` holds a `+` before a string (`"echo hi" + "note": "x`), which jsonrepair joins to the string before it
 * (ended there, or at the `+` itself): the text around it, or null. Linear: each `+` looks forward over white space and
 * comments.
 */
export function joinedStrings(text: string): string | null {
  const s = unentity(text);
  const n = s.length;
  // Searches only forward from where the last one ended: linear however many `+` and comments there are.
  const found = { "*/": -2, "\n": -2 };
  const next = (what: "*/" | "\n", from: number): number => {
    if (found[what] === -1 || found[what] >= from) return found[what];
    return (found[what] = s.indexOf(what, from));
  };
  for (let p = s.indexOf("+"); p !== -1; p = s.indexOf("+", p + 1)) {
    let f = p + 1;
    for (;;) {
      while (f < n && (isSpace(s[f]!) || isInvisible(s[f]!))) f++;
      if (s[f] === "\\" && f + 1 < n && QUOTES.has(s[f + 1]!)) f++; // `+ \"b\"` starts a string too
      else if (s[f] === "/" && (s[f + 1] === "*" || s[f + 1] === "/")) {
        const end = next(s[f + 1] === "*" ? "*/" : "\n", f + 2);
        f = end === -1 ? n : end + (s[f + 1] === "*" ? 2 : 1);
      } else break;
    }
    // A quote that ends the value (`-exec rm {} +"}`) starts nothing.
    let after = f + 1;
    while (after < n && isSpace(s[after]!)) after++;
    const ends = after >= n || "}],:".includes(s[after]!);
    if (f < n && QUOTES.has(s[f]!) && !ends) return text.slice(Math.max(0, p - 20), Math.min(n, f + 40));
  }
  return null;
}

/**
 * Quotes spelled another way that a reader (and jsonrepair) takes for a quote: HTML entities (`&quot;`) and JSON escapes
 * left as text (`\\u0022`), as one quote and spaces, so positions stay.
 */
function unentity(s: string): string {
  if (!s.includes("&") && !s.includes("\\u")) return s;
  return s.replace(/&(?:quot|apos|#0*3[49]|#[xX]0*2[27]);|\\u00(?:22|27)/gi, (m) => '"' + " ".repeat(m.length - 1));
}

/**
 * The first key named twice in one object of `json` (valid JSON: JSON.parse accepted it), or null. Walks the text
 * once, keeping the keys of each open object.
 */
export function duplicateKey(json: string): string | null {
  const stack: Array<Set<string> | null> = [];
  /** Per open object: the next string is a key. */
  const expectKey: boolean[] = [];
  let i = 0;
  const n = json.length;
  while (i < n) {
    const c = json[i]!;
    if (c === "{") {
      stack.push(new Set());
      expectKey.push(true);
      i++;
    } else if (c === "[") {
      stack.push(null);
      expectKey.push(false);
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      expectKey.pop();
      i++;
    } else if (c === ",") {
      if (stack.length > 0 && stack[stack.length - 1] !== null) expectKey[expectKey.length - 1] = true;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      const top = stack.length - 1;
      if (top >= 0 && stack[top] !== null && expectKey[top] === true) {
        const key = JSON.parse(json.slice(i, j + 1)) as string;
        if (stack[top]!.has(key)) return key;
        stack[top]!.add(key);
        expectKey[top] = false;
      }
      i = j + 1;
    } else i++;
  }
  return null;
}
