// The plain subset of bash, parsed without tree-sitter: words, quotes with no expansion inside, `|`,
// `&&`, `||`, `;`, `&` and simple redirects, on one line. Most agent commands are like that (`ls -la`,
// `npm test 2>&1 | tail -5`), and tree-sitter-bash costs tens of microseconds on every pipeline.
// Anything outside the subset returns null and goes to tree-sitter, so this can only be faster, never
// more lenient: test/guard/plain.test.ts proves both paths give the same facts over the NL2Bash corpus.

export interface PlainWord {
  raw: string;
  value: string;
  glob: boolean;
  /** Unquoted leading `~` or `~/`: the home directory. */
  tilde: boolean;
  /** Where the word starts in the source (to keep substitutions in source order). */
  start: number;
  /** Commands of its `$(…)` and backtick substitutions, each parsed as a plain script of its own. */
  subs: readonly PlainStatement[][];
}

export interface PlainRedirect {
  op: string;
  fd: number | null;
  target: PlainWord;
}

export interface PlainCommand {
  text: string;
  words: PlainWord[];
  redirects: PlainRedirect[];
}

export interface PlainStatement {
  /** One command, or the stages of a pipeline. */
  commands: PlainCommand[];
  background: boolean;
  /** `&&` or `||` when the next statement runs only on this one's success or failure. */
  op: "&&" | "||" | null;
}

// Unquoted characters that may appear in a plain word. Everything else (`$`, `` ` ``, `\`, `(`, `)`,
// `{`, `}`, `#`, `!`, newlines, control characters) sends the input to tree-sitter.
const WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-*?[]~^";
// A table, not a regular expression: this runs once per character of nearly every command.
const WORD_CHAR = new Uint8Array(128);
for (const c of WORD_CHARS) WORD_CHAR[c.charCodeAt(0)] = 1;
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select", "time", "coproc", "[[", "]]", "[", "!", "{", "}", "export", "declare", "typeset", "local", "readonly", "unset"]);
// `a[i]=1` assigns an array element (its subscript is arithmetic): tree-sitter's, as every assignment is.
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\+?=|\[)/;

function isWordCode(code: number): boolean {
  return code > 127 || WORD_CHAR[code] === 1;
}

/** Marks an expansion inside a plain word's value: EXPANSION_OPEN + name + EXPANSION_CLOSE. */
export const EXPANSION_OPEN = "\u0001";
export const EXPANSION_CLOSE = "\u0002";
/** The same for an unquoted expansion (bash splits and globs its value). */
export const EXPANSION_BARE = "\u0003";

/** `$NAME`, `${NAME}` or a special parameter (`$1`, `$?`, `$@`, …) at `at`; null for anything else. */
function readExpansion(source: string, at: number): { text: string; end: number } | null {
  const next = source[at + 1] ?? "";
  if (/[A-Za-z_]/.test(next)) {
    let end = at + 2;
    while (end < source.length && /[A-Za-z0-9_]/.test(source[end]!)) end++;
    return { text: EXPANSION_OPEN + source.slice(at + 1, end) + EXPANSION_CLOSE, end };
  }
  if (next === "{") {
    const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(source.slice(at + 1, at + 260));
    return m ? { text: EXPANSION_OPEN + m[1] + EXPANSION_CLOSE, end: at + 1 + m[0].length } : null;
  }
  if (/[0-9@*#?$!]/.test(next)) return { text: EXPANSION_OPEN + next + EXPANSION_CLOSE, end: at + 2 };
  return null;
}

/**
 * `$(…)` at `at` whose contents are themselves plain: the parsed contents and where it ends. The closing
 * parenthesis is found past quoted text and nested parentheses; `$((…))` arithmetic is not taken.
 */
function readSubstitution(source: string, at: number, level: number): { statements: PlainStatement[]; end: number } | null {
  if (source[at + 2] === "(") return null;
  let depth = 1;
  let j = at + 2;
  while (j < source.length) {
    const c = source[j]!;
    if (c === "'") {
      const close = source.indexOf("'", j + 1);
      if (close < 0) return null;
      j = close + 1;
      continue;
    }
    if (c === '"') {
      let k = j + 1;
      while (k < source.length && source[k] !== '"') k += source[k] === "\\" ? 2 : 1;
      if (k >= source.length) return null;
      j = k + 1;
      continue;
    }
    if (c === "\\") {
      j += 2;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) break;
    j++;
  }
  if (depth !== 0) return null;
  const statements = parsePlain(source.slice(at + 2, j), level + 1);
  return statements ? { statements, end: j + 1 } : null;
}

/** Shared by every word without substitutions (most of them); never pushed to. */
const NO_SUBS: readonly PlainStatement[][] = Object.freeze([]);

/** Substitutions nested deeper than this go to tree-sitter: each level here scans its text again. */
const MAX_DEPTH = 8;

export function parsePlain(source: string, depth = 0): PlainStatement[] | null {
  if (depth > MAX_DEPTH) return null;
  return new PlainLexer(source, depth).run();
}

class PlainLexer {
  private readonly n: number;
  private readonly statements: PlainStatement[] = [];
  private commands: PlainCommand[] = [];
  private words: PlainWord[] = [];
  private redirects: PlainRedirect[] = [];
  private cmdStart = -1;
  private cmdEnd = -1;
  private i = 0;

  constructor(
    private readonly source: string,
    private readonly depth: number,
  ) {
    this.n = source.length;
  }

  private readWord(): PlainWord | null {
    const source = this.source;
    const n = this.n;
    let i = this.i;
    const start = i;
    let value = "";
    let glob = false;
    let subs: PlainStatement[][] | null = null;
    while (i < n) {
      const c = source[i]!;
      if (c === "'") {
        const close = source.indexOf("'", i + 1);
        if (close < 0) return null;
        value += source.slice(i + 1, close);
        i = close + 1;
      } else if (c === '"') {
        let j = i + 1;
        let inner = "";
        for (;;) {
          const d = source[j];
          if (d === undefined) return null;
          if (d === '"') break;
          if (d === "`") return null;
          if (d === "$") {
            // `$NAME`, `${NAME}` and special parameters expand (resolved later, or unknown); before `/`, `"` or a
            // space `$` is itself; anything else (`$(…)`, `${X:-y}`) is tree-sitter's.
            if (/[\s/"'.,:;=+%^~-]/.test(source[j + 1] ?? "")) {
              inner += d;
              j++;
              continue;
            }
            if (source[j + 1] === "(") {
              const sub = readSubstitution(source, j, this.depth);
              if (!sub) return null;
              (subs ??= []).push(sub.statements);
              inner += EXPANSION_OPEN + "$(" + EXPANSION_CLOSE;
              j = sub.end;
              continue;
            }
            const x = readExpansion(source, j);
            if (!x) return null;
            inner += x.text;
            j = x.end;
            continue;
          }
          if (d === "\\") {
            const e = source[j + 1];
            if (e === undefined || e === "\n") return null;
            inner += e === "$" || e === "`" || e === '"' || e === "\\" ? e : "\\" + e;
            j += 2;
            continue;
          }
          // A run of plain characters is copied as one slice, not a character at a time.
          let k = j + 1;
          while (k < n) {
            const code = source.charCodeAt(k);
            if (code === 34 || code === 36 || code === 92 || code === 96) break; // " $ \ `
            k++;
          }
          inner += source.slice(j, k);
          j = k;
        }
        value += inner;
        i = j + 1;
      } else if (c === "`" && i !== start) {
        return null;
      } else if (c === "$" && source[i + 1] === "(") {
        const sub = readSubstitution(source, i, this.depth);
        if (!sub) return null;
        (subs ??= []).push(sub.statements);
        value += EXPANSION_OPEN + "$(" + EXPANSION_CLOSE;
        i = sub.end;
      } else if (c === "`" && i === start) {
        // Only a whole word: tree-sitter splits a word before a backtick in its middle, where bash does not.
        const close = source.indexOf("`", i + 1);
        const inner = close < 0 ? null : source.slice(i + 1, close);
        // Backslashes inside backticks are special; those go to tree-sitter.
        const statements = inner === null || inner.includes("\\") ? null : parsePlain(inner, this.depth + 1);
        if (!statements) return null;
        (subs ??= []).push(statements);
        value += EXPANSION_OPEN + "`" + EXPANSION_CLOSE;
        i = close + 1;
      } else if (c === "$") {
        const x = readExpansion(source, i);
        if (!x) return null;
        value += EXPANSION_BARE + x.text.slice(1);
        i = x.end;
      } else if (c === "\\") {
        // Escapes tree-sitter reads as bash does: `\;` `\(` `\)` `\!` as whole words (find), `\*` `\?` `\.` in words.
        const e = source[i + 1];
        const whole = i === start && i + 2 <= n && /^[\s;|&]?$/.test(source[i + 2] ?? "");
        if (e === undefined || !(/[*?.]/.test(e) || (whole && /[;()!]/.test(e)))) return null;
        value += e;
        i += 2;
      } else if (c === "{") {
        // An empty `{}` (find -exec, xargs -I{}) never expands; any other brace may: tree-sitter's side.
        if (source[i + 1] !== "}") return null;
        value += "{}";
        i += 2;
      } else if (isWordCode(source.charCodeAt(i))) {
        let j = i;
        for (; j < n; j++) {
          const code = source.charCodeAt(j);
          if (!isWordCode(code)) break;
          if (code === 42 || code === 63 || code === 91) glob = true; // * ? [
        }
        value += source.slice(i, j);
        i = j;
      } else break;
    }
    this.i = i;
    if (i === start) return null;
    const raw = source.slice(start, i);
    let tilde = false;
    if (raw[0] === "~") {
      if (raw === "~" || raw.startsWith("~/")) tilde = true;
      else return null; // ~user, ~+ and friends: tree-sitter's side
    }
    return { raw, value, glob, tilde, start, subs: subs ?? NO_SUBS };
  }

  private endCommand(): boolean {
    const words = this.words;
    if (words.length === 0) return false; // `| |`, `&& ;`, a redirect with no command: not plain
    const head = words[0]!.raw;
    if (RESERVED.has(head) || head.startsWith("[") || ASSIGNMENT.test(head)) return false;
    this.commands.push({ text: this.source.slice(this.cmdStart, this.cmdEnd), words, redirects: this.redirects });
    this.words = [];
    this.redirects = [];
    this.cmdStart = -1;
    return true;
  }

  private endStatement(background: boolean, op: PlainStatement["op"] = null): boolean {
    if (!this.endCommand()) return false;
    this.statements.push({ commands: this.commands, background, op });
    this.commands = [];
    return true;
  }

  run(): PlainStatement[] | null {
    const source = this.source;
    const n = this.n;
    // After `|`, `&&` or `||` a command must follow; bash calls the alternative a syntax error.
    let pending = false;
    while (this.i < n) {
      const i = this.i;
      const c = source[i]!;
      if (c === " " || c === "\t") {
        this.i++;
        continue;
      }
      if (this.cmdStart < 0 && c !== ";" && c !== "|" && c !== "&") this.cmdStart = i;
      if (c === "|") {
        if (source[i + 1] === "|") {
          if (!this.endStatement(false, "||")) return null;
          this.i += 2;
        } else {
          if (source[i + 1] === "&" || !this.endCommand()) return null;
          this.i++;
        }
        pending = true;
        continue;
      }
      if (c === "&") {
        if (source[i + 1] === "&") {
          if (!this.endStatement(false, "&&")) return null;
          this.i += 2;
          pending = true;
          continue;
        }
        if (source[i + 1] !== ">") {
          if (!this.endStatement(true)) return null;
          this.i++;
          continue;
        }
      }
      if (c === ";") {
        if (source[i + 1] === ";" || !this.endStatement(false)) return null;
        this.i++;
        continue;
      }
      // Redirects: [N]> [N]>> [N]< [N]>| &> &>> [N]>&M [N]>&- [N]<&M
      let fd: number | null = null;
      let j = i;
      while (j < n && source[j]! >= "0" && source[j]! <= "9") j++;
      if (j > i && (source[j] === ">" || source[j] === "<") && (i === 0 || /[\s;|&]/.test(source[i - 1]!))) {
        fd = Number(source.slice(i, j));
      } else j = i;
      const r = source[j];
      if (r === ">" || r === "<" || (r === "&" && source[j + 1] === ">")) {
        let op: string;
        const two = source.slice(j, j + 3);
        if (two.startsWith("&>>")) op = "&>>";
        else if (two.startsWith("&>")) op = "&>";
        else if (two.startsWith(">>")) op = ">>";
        else if (two.startsWith(">|")) op = ">|";
        else if (two.startsWith(">&")) op = ">&";
        else if (two.startsWith("<&")) op = "<&";
        else if (two.startsWith("<<") || two.startsWith("<>") || two.startsWith("<(") || two.startsWith(">(")) return null;
        else op = r === ">" ? ">" : "<";
        if (fd !== null && op.startsWith("&")) return null;
        if ((op === ">&" || op === "<&") && source[j + 2] === "-") return null; // `3>&-` closes: tree-sitter's shape
        this.i = j + op.length;
        while (source[this.i] === " " || source[this.i] === "\t") this.i++;
        const target = this.readWord();
        if (!target) return null;
        // bash expands a `>&`/`<&` target twice (`>& '$(cmd)'` runs cmd): tree-sitter's path refuses quoted ones.
        if ((op === ">&" || op === "<&") && /['"]/.test(target.raw)) return null;
        this.redirects.push({ op, fd, target });
        this.cmdEnd = this.i;
        pending = false;
        continue;
      }
      const w = this.readWord();
      if (!w) return null;
      this.words.push(w);
      this.cmdEnd = this.i;
      pending = false;
    }
    if (pending) return null;
    if (this.words.length || this.redirects.length) {
      if (!this.endStatement(false)) return null;
    } else if (this.commands.length) return null; // a dangling `|`
    return this.statements.length ? this.statements : null;
  }
}
