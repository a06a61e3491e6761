// Source text that bash and tree-sitter read differently, found or evened out on the text itself, beside the
// parse: where a `${…}` really ends, a `#` that a backslash-newline joins to a word, the `<>` operator
// tree-sitter lacks; and text written as the inside of a double-quoted string, to be parsed as one.

/**
 * Where bash ends the `${…}` that `text` starts with (one past its `}`), or null: a backslash escapes the
 * next character, double quotes, backticks and `$(…)` nest, and so does an inner `${`; a bare `{` does not
 * (`${x/{a,b}` ends at the first `}`, where tree-sitter reads a brace expansion and reads on). Single quotes
 * are not special here, as bash treats them in the cases where tree-sitter sees a string (`${x#\'}`).
 */
export function dollarBraceEnd(text: string): number | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") i++;
    else if (c === "$" && text[i + 1] === "{") {
      depth++;
      i++;
    } else if (c === "}") {
      if (--depth === 0) return i + 1;
    } else if (c === '"' || c === "`") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "$" && text[i + 1] === "(") {
      let parens = 0;
      for (i++; i < text.length; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "(") parens++;
        else if (text[i] === ")" && --parens === 0) break;
      }
    }
  }
  return null;
}

/**
 * `ls\⏎#; cmd`: bash removes the backslash-newline first, so the `#` is part of the word `ls#` and `cmd`
 * runs; tree-sitter reads a comment. The index of such a backslash, or null. (A `#` after a blank or an
 * operator starts a comment for both; `\\⏎` is an escaped backslash, no continuation.)
 */
export function commentAfterContinuation(source: string): number | null {
  // `echo \ # $(cmd)`: an escaped blank is part of the word, so the `#` after it is too; tree-sitter reads a comment.
  for (let i = source.search(/\\[ \t]#/); i >= 0; i = nextMatch(source, /\\[ \t]#/g, i + 1)) {
    let j = i;
    while (j > 0 && source[j - 1] === "\\") j--;
    if ((i - j) % 2 === 0 && !quotedAt(source, i)) return i; // an odd run of backslashes: the blank is escaped
  }
  for (let i = source.indexOf("\\\n#"); i >= 0; i = source.indexOf("\\\n#", i + 1)) {
    let k = i;
    for (;;) {
      let j = k;
      while (j > 0 && source[j - 1] === "\\") j--;
      if ((k - j) % 2 === 1) break; // this backslash is escaped: not a continuation
      // Several continuations in a row join too: look before them.
      if (j >= 2 && source[j - 1] === "\n" && source[j - 2] === "\\") {
        k = j - 2;
        continue;
      }
      const before = source[j - 1];
      if (before === undefined) break;
      // A blank or an operator before it ends the word, unless it is escaped itself (`\;`).
      let b = j - 1;
      while (b > 0 && source[b - 1] === "\\") b--;
      if (!/[\s;&|()<>]/.test(before) || (j - 1 - b) % 2 === 1) {
        if (!quotedAt(source, i)) return i;
      }
      break;
    }
  }
  return null;
}

/** Whether `at` lies inside single or double quotes, by a plain left-to-right scan (no nesting in `$(…)`). */
function quotedAt(source: string, at: number): boolean {
  let quote: string | null = null;
  for (let i = 0; i < at; i++) {
    const c = source[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === "\\") i++;
    else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') quote = c;
  }
  return quote !== null;
}

function nextMatch(source: string, re: RegExp, from: number): number {
  re.lastIndex = from;
  return re.exec(source)?.index ?? -1;
}

/**
 * tree-sitter-bash has no `<>` (open for reading and writing, `exec 3<>/dev/tcp/h/80`): it reads `cmd <>f` as a
 * syntax error. It gets `< ` in its place, the same length, so that every node keeps its place in the source, and
 * the redirect's operator is read back from the source. Not after a backslash (`\<>f` is the word `<` and `>f`) or
 * another `<`; inside quotes, comments and heredoc bodies the change is text for text.
 */
export function readWriteAsRead(source: string): string {
  return source.includes("<>") ? source.replace(/(?<![<\\])<>/g, "< ") : source;
}

/** `text` as the inside of a double-quoted string: its bare `"` escaped, everything else (escapes, `$(…)`) as it is. */
export function asDoubleQuoted(text: string): string {
  return text.replace(/\\[\s\S]|"/g, (m) => (m === '"' ? '\\"' : m));
}
