// tree-sitter-bash needs memory and time quadratic in the stages of one pipeline, and all of it in one step of
// the parse (where no progress callback can stop it): `y | ` 16,000 times and then `"$x"` or `a=1 x` takes
// 2 GB at 64 KB and stops the parser. So before a long text is parsed, this finds, without parsing it, how
// many stages the longest pipeline in it may have, and a text past GUARD.maxPipelineStages is refused unparsed.
//
// It may count too many (a `|` in an odd place, a word that looks like a keyword), never too few where it can
// help it: each level of nesting (`( )`, `$( )`, `{ }`, backticks, `if`/`while`/`for`/`case` … `fi`/`done`/
// `esac`) counts its own pipelines, a `;`, `&`, `&&`, `||` or line end ends the pipeline of its level only, an
// opener is taken wherever a word may be one (more nesting only means more counting), a closer only where a
// command starts, quotes and heredoc bodies are skipped as bash reads them, and a heredoc whose delimiter it
// cannot read makes the answer "unknown" (Infinity).

type Kind = "code" | "paren" | "subst" | "brace" | "backtick" | "if" | "loop" | "case" | "dquote" | "arith" | "param";

interface Frame {
  kind: Kind;
  /** `|` seen in the current pipeline of this level. */
  pipes: number;
  /** Open parentheses (arith) or braces (param) inside this frame. */
  depth: number;
}

const OPENERS: Record<string, Kind> = { if: "if", while: "loop", until: "loop", for: "loop", select: "loop", case: "case" };
const CLOSERS: Record<string, Kind> = { fi: "if", done: "loop", esac: "case" };
/** What ends a word in code. */
const BREAK = /[\s;&|()<>]/;
const DELIMITER = /^[A-Za-z0-9_.,:@%+=-]+$/;

/** The most stages one pipeline in `source` may have; Infinity when it cannot tell. */
export function longestPipeline(source: string): number {
  const n = source.length;
  const frames: Frame[] = [{ kind: "code", pipes: 0, depth: 0 }];
  const heredocs: { delimiter: string }[] = [];
  let most = 0;
  // A word may start here (after a blank or an operator), and a command may start here (after an operator).
  let wordStart = true;
  let commandStart = true;
  // The last operator was `|`, `&&` or `||`: a line end after it does not end the pipeline.
  let continues = false;
  const push = (kind: Kind, depth = 0) => frames.push({ kind, pipes: 0, depth });
  const top = () => frames[frames.length - 1]!;
  const end = () => {
    top().pipes = 0;
  };

  for (let i = 0; i < n; i++) {
    const f = top();
    const c = source[i]!;
    if (f.kind === "dquote" || f.kind === "param") {
      if (c === "\\") i++;
      else if (f.kind === "dquote" && c === '"') frames.pop();
      else if (f.kind === "param" && c === "{") f.depth++;
      else if (f.kind === "param" && c === "}" && --f.depth === 0) frames.pop();
      else if (f.kind === "param" && c === "'") i = skipSingle(source, i);
      else if (f.kind === "param" && c === '"') push("dquote");
      else if (c === "`") push("backtick");
      else if (c === "$") i = dollar(source, i, push, true);
      wordStart = commandStart = false;
      continue;
    }
    if (f.kind === "arith") {
      if (c === "(") f.depth++;
      else if (c === ")" && --f.depth === 0) frames.pop();
      else if (c === "\\") i++;
      else if (c === '"') push("dquote");
      else if (c === "'") i = skipSingle(source, i);
      else if (c === "`") push("backtick");
      else if (c === "$") i = dollar(source, i, push, true);
      continue;
    }
    // Code: the top level, a subshell, a substitution, a group or a compound command.
    if (c === " " || c === "\t") {
      wordStart = true;
      continue;
    }
    if (c === "\\") {
      if (source[i + 1] !== "\n") wordStart = commandStart = continues = false;
      i++;
      continue;
    }
    if (c === "\n") {
      if (!continues) end();
      wordStart = commandStart = true;
      if (heredocs.length) {
        i = skipBodies(source, i, heredocs);
        heredocs.length = 0;
      }
      continue;
    }
    if (c === "#" && wordStart) {
      const nl = source.indexOf("\n", i);
      i = (nl < 0 ? n : nl) - 1;
      continue;
    }
    if (c === "|") {
      if (source[i + 1] === "|") {
        i++;
        end();
      } else {
        if (source[i + 1] === "&") i++;
        most = Math.max(most, ++f.pipes);
      }
      wordStart = commandStart = continues = true;
      continue;
    }
    if (c === "&") {
      const redirect = source[i + 1] === ">" || source[i - 1] === ">" || source[i - 1] === "<";
      if (!redirect) {
        continues = source[i + 1] === "&";
        if (continues) i++;
        end();
        wordStart = commandStart = true;
      }
      continue;
    }
    if (c === ";") {
      end();
      wordStart = commandStart = true;
      continues = false;
      continue;
    }
    continues = false;
    if (c === "(") {
      if (source[i + 1] === "(" && commandStart) {
        push("arith", 2);
        i++;
      } else push("paren");
      wordStart = commandStart = true;
      continue;
    }
    if (c === ")") {
      if (f.kind === "paren" || f.kind === "subst") frames.pop();
      wordStart = true;
      commandStart = false;
      continue;
    }
    if (c === "<" && source[i + 1] === "<" && source[i + 2] === "<") {
      i += 2; // a here-string
      wordStart = true;
      commandStart = false;
      continue;
    }
    if (c === "<" && source[i + 1] === "<") {
      const doc = readHeredoc(source, i);
      if (!doc) return Infinity;
      heredocs.push(doc);
      i = doc.end - 1;
      wordStart = true;
      commandStart = false;
      continue;
    }
    if (c === "<" || c === ">") {
      wordStart = true;
      commandStart = false;
      continue;
    }
    if (c === "'") {
      i = skipSingle(source, i);
    } else if (c === '"') {
      push("dquote");
    } else if (c === "`") {
      if (f.kind === "backtick") frames.pop();
      else push("backtick");
    } else if (c === "$") {
      i = dollar(source, i, push, false);
    } else if (wordStart) {
      // A word: a keyword opens or closes a level; `{` and `}` alone are words too.
      let j = i;
      while (j < n && !BREAK.test(source[j]!) && source[j] !== "'" && source[j] !== '"' && source[j] !== "`" && source[j] !== "$" && source[j] !== "\\") j++;
      const word = source.slice(i, j);
      const opens = OPENERS[word] ?? (word === "{" ? "brace" : undefined);
      const closes = CLOSERS[word] ?? (word === "}" ? "brace" : undefined);
      if (opens && (j === n || BREAK.test(source[j]!))) {
        push(opens);
        i = j - 1;
        wordStart = commandStart = true;
        continue;
      }
      if (closes && commandStart && f.kind === closes && (j === n || BREAK.test(source[j]!))) {
        frames.pop();
        i = j - 1;
        wordStart = true;
        commandStart = false;
        continue;
      }
      i = Math.max(i, j - 1);
    }
    wordStart = commandStart = false;
  }
  return most + 1;
}

/** The index of the `'` closing the one at `i` (the end when there is none). */
function skipSingle(source: string, i: number): number {
  const close = source.indexOf("'", i + 1);
  return close < 0 ? source.length : close;
}

/** `$…` at `i` in code or in quotes: opens what it starts; returns the index of its last character read. */
function dollar(source: string, i: number, push: (kind: Kind, depth?: number) => void, quoted: boolean): number {
  const next = source[i + 1];
  if (next === "'" && !quoted) {
    // $'…': backslash escapes, up to the next unescaped '.
    let j = i + 2;
    while (j < source.length && source[j] !== "'") j += source[j] === "\\" ? 2 : 1;
    return j;
  }
  if (next === "(" && source[i + 2] === "(") {
    push("arith", 2);
    return i + 2;
  }
  if (next === "(") {
    push("subst");
    return i + 1;
  }
  if (next === "{") {
    push("param", 1);
    return i + 1;
  }
  return i;
}

/** The heredoc whose `<<` is at `i`: its delimiter, unquoted, and where the word ends; null when it is not plain. */
function readHeredoc(source: string, i: number): { delimiter: string; end: number } | null {
  let j = i + 2;
  if (source[j] === "-") j++;
  while (source[j] === " " || source[j] === "\t") j++;
  const start = j;
  while (j < source.length && !BREAK.test(source[j]!)) j++;
  const delimiter = source.slice(start, j).replace(/^(['"])(.*)\1$/, "$2");
  return DELIMITER.test(delimiter) ? { delimiter, end: j } : null;
}

/**
 * Skips the bodies of the heredocs started on the line ending at `nl`; returns the index of the last line end
 * read. A body ends at the first line that is its delimiter between blanks, as tree-sitter ends it (bash wants
 * the delimiter alone, after tabs for `<<-`; where they differ the guard refuses the command after parsing it).
 */
function skipBodies(source: string, nl: number, heredocs: readonly { delimiter: string }[]): number {
  let at = nl;
  for (const doc of heredocs) {
    for (;;) {
      if (at >= source.length) return source.length;
      let lineEnd = source.indexOf("\n", at + 1);
      if (lineEnd < 0) lineEnd = source.length;
      const line = source.slice(at + 1, lineEnd);
      at = lineEnd;
      if (line.trim() === doc.delimiter) break;
    }
  }
  return at;
}
