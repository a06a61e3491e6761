// Where one field of a tool call's arguments could end and another begin: the checks that keep argument repair from
// moving text between fields (a note read into `command`). Pure, linear in the text: no regular expression here scans
// backwards or retries.
//
// - fieldBoundary(value): a repaired value (or key) that holds the end of one string and the start of another key, in
//   any spelling a lenient reader could take for one (any quote, a missing comma, `;` or a fullwidth comma between,
//   comments, `=` for `:`, keys with spaces, escaped quotes or any length). A repair that leaves one is refused.
// - duplicateKey(json): a key named twice in one object of valid JSON (JSON.parse keeps the last, a reader sees the
//   first).

/** Characters a model or a lenient parser may use as quotes. */
const QUOTES = new Set([..."\"'`\u201C\u201D\u201E\u201F\u2018\u2019\u201A\u201B\u00AB\u00BB\u2039\u203A\u300C\u300D\u300E\u300F\uFF02\uFF07"]);
/** Characters that may separate two fields: comma and semicolon, also fullwidth and ideographic. */
const SEPARATORS = new Set([",", ";", "\uFF0C", "\uFF1B", "\u3001"]);
/** A separator a bare (unquoted) key needs before it: a `;` before a word is too common in shell text. */
const BARE_SEPARATORS = new Set([",", "\uFF0C", "\u3001"]);
/** Between a key and its value. */
const COLONS = new Set([":", "=", "\uFF1A", "\uFF1D"]);
const BRACKETS = new Set(["{", "}", "[", "]"]);

/** Any white space (JavaScript's \s: line and paragraph separators, no-break and ideographic spaces, the BOM), and zero-width spaces. */
function isSpace(c: string): boolean {
  return /\s/u.test(c) || c === "\u200B" || c === "\u200C" || c === "\u200D" || c === "\u2060";
}

/** White space within a line. */
function isBlank(c: string): boolean {
  return c !== "\n" && c !== "\r" && c !== "\u2028" && c !== "\u2029" && isSpace(c);
}

function isBareKeyChar(c: string): boolean {
  return !isSpace(c) && !QUOTES.has(c) && !SEPARATORS.has(c) && !COLONS.has(c) && !BRACKETS.has(c) && c !== "(" && c !== ")" && c !== "\\";
}

/**
 * For each position: where the next "quote, then spaces, then a colon" starts on this line (the end of a quoted key),
 * and where the next line break is. One backward pass.
 */
function keyEnds(s: string): { keyEnd: Int32Array; lineEnd: Int32Array; colonEnd: Int32Array; stop: Int32Array; quote: Int32Array } {
  const n = s.length;
  const keyEnd = new Int32Array(n + 1).fill(n);
  const lineEnd = new Int32Array(n + 1).fill(n);
  /** The next colon before any quote or separator (for bare keys). */
  const colonEnd = new Int32Array(n + 1).fill(n);
  /** The next quote or separator. */
  const stop = new Int32Array(n + 1).fill(n);
  /** The next quote. */
  const quote = new Int32Array(n + 1).fill(n);
  let nextNonBlank = n;
  for (let i = n - 1; i >= 0; i--) {
    const c = s[i]!;
    const newline = c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029";
    lineEnd[i] = newline ? i : lineEnd[i + 1]!;
    const nb = nextNonBlank; // the first position after i that is not blank (a line break included)
    if (!isBlank(c)) nextNonBlank = i;
    const closesKey = QUOTES.has(c) && nb < n && COLONS.has(s[nb]!);
    keyEnd[i] = closesKey ? i : keyEnd[i + 1]!;
    quote[i] = QUOTES.has(c) ? i : quote[i + 1]!;
    stop[i] = QUOTES.has(c) || SEPARATORS.has(c) ? i : stop[i + 1]!;
    colonEnd[i] = COLONS.has(c) ? i : newline ? n : colonEnd[i + 1]!;
  }
  return { keyEnd, lineEnd, colonEnd, stop, quote };
}

/**
 * Skips spaces, comments (`/* … *\/`, `// …`), separators and brackets from `i` (an opening bracket only after a closing
 * one: `"}, {"note":` ends one object and starts another, while `"hi", {"a": 1}` is code); says whether a separator was
 * passed.
 */
function skipBetween(s: string, i: number): { at: number; separated: boolean } {
  let separated = false;
  let closed = false;
  while (i < s.length) {
    const c = s[i]!;
    if (isSpace(c) || c === "+") i++; // `"a" + "b"`: jsonrepair joins the strings
    else if (c === "}" || c === "]") {
      closed = true;
      i++;
    } else if ((c === "{" || c === "[") && closed) i++;
    else if (SEPARATORS.has(c)) {
      if (BARE_SEPARATORS.has(c)) separated = true;
      i++;
    } else if (c === "/" && s[i + 1] === "*") {
      const end = s.indexOf("*/", i + 2);
      i = end === -1 ? s.length : end + 2;
    } else if (c === "/" && s[i + 1] === "/") {
      const end = s.indexOf("\n", i + 2);
      i = end === -1 ? s.length : end + 1;
    } else break;
  }
  return { at: i, separated };
}

/**
 * The first place in `s` where a string seems to end and another key to begin (`hi", "note": "x`), or null. The
 * text from there, for the message.
 */
export function fieldBoundary(s: string): string | null {
  let ends: ReturnType<typeof keyEnds> | null = null;
  for (let i = 0; i < s.length; i++) {
    if (!QUOTES.has(s[i]!)) continue;
    const { at: j, separated } = skipBetween(s, i + 1);
    if (j >= s.length) continue;
    ends ??= keyEnds(s);
    const c = s[j]!;
    let hit = false;
    if (QUOTES.has(c)) {
      // A quoted key: a quote later on this line that a colon follows ("note":, “note”:, "a\"b\"":, "k k … k" =), or
      // the very next quote, on any line ("no⏎te":).
      const end = ends.keyEnd[j + 1]!;
      hit = end < s.length && (end < ends.lineEnd[j + 1]! || end === ends.quote[j + 1]!);
    } else if (isBareKeyChar(c)) {
      if (separated) {
        // `, my note: "x`: words up to a colon on this line, no quote or separator in between.
        const colon = ends.colonEnd[j]!;
        hit = colon < ends.lineEnd[j]! && colon < ends.stop[j]! && s[colon] !== "=";
      } else {
        // `" note: "x` with no comma: one word, a colon (or `=` with a space beside it: `note = "x`, unlike a shell's
        // `B="x"`), then a quote.
        let k = j;
        while (k < s.length && isBareKeyChar(s[k]!)) k++;
        const before = k;
        while (k < s.length && isBlank(s[k]!)) k++;
        const spaced = k > before;
        if (k < s.length && COLONS.has(s[k]!)) {
          const equals = s[k] === "=" || s[k] === "\uFF1D";
          k++;
          const after = k;
          while (k < s.length && isBlank(s[k]!)) k++;
          hit = k < s.length && QUOTES.has(s[k]!) && (!equals || spaced || k > after);
        }
      }
    }
    if (hit) return s.slice(i, Math.min(s.length, Math.max(j + 1, ends.lineEnd[j]!)));
  }
  return null;
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
