// A sed-script parser, following GNU sed 4.9's compile.c closely enough to know every command a script
// holds. The guard allows a sed script only when it parses and runs no command (`e`, the `e` flag of
// `s`) and names every file it writes (`w`, `W`, the `w` flag of `s`) or reads (`r`, `R`), so that layer 2
// can judge them. Anything it cannot read is "not known safe".

export interface SedScript {
  /** Files the script writes (`w FILE`, `W FILE`, `s///w FILE`). */
  writes: string[];
  /** Files it reads (`r FILE`, `R FILE`). */
  reads: string[];
  /** Why it is not known safe (it runs a command), or null. */
  runs: string | null;
  /** It runs the pattern space, that is its input, as a command (`e` alone, the `e` flag of `s`). */
  runsInput: boolean;
}

export type SedResult = { ok: true; script: SedScript } | { ok: false; error: string };

const NO_ARG = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"]);
const NUM_ARG = new Set(["l", "L", "q", "Q"]);
const LABEL = new Set(["b", "t", "T", ":", "v"]);
const TEXT = new Set(["a", "i", "c"]);
const FILE_CMD = new Set(["r", "R", "w", "W"]);

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string | undefined {
    return this.s[this.i];
  }
  next(): string | undefined {
    return this.s[this.i++];
  }
  eof(): boolean {
    return this.i >= this.s.length;
  }
  skipBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }
  /** Up to the end of the line (a file name or a label takes the rest of it). */
  restOfLine(): string {
    const end = this.s.indexOf("\n", this.i);
    const out = this.s.slice(this.i, end < 0 ? this.s.length : end);
    this.i = end < 0 ? this.s.length : end + 1;
    return out;
  }
}

/**
 * Text up to an unescaped `delim` (a backslash takes the next character, newline included); an unescaped newline
 * never ends. In a regular expression (`regex`) GNU sed reads a bracket expression whole (`s/[/]/x/`), with `]`
 * first in it literal and `[:alpha:]` classes inside; in the replacement of `s` and both parts of `y`, `[` is a
 * plain character (`y/[/x/`). null when it never ends.
 */
function delimited(r: Reader, delim: string, regex: boolean): string | null {
  let out = "";
  for (;;) {
    const c = r.next();
    if (c === undefined) return null;
    if (c === "\\") {
      const n = r.next();
      if (n === undefined) return null;
      out += c + n;
      continue;
    }
    if (regex && c === "[" && delim !== "[") {
      const start = r.i - 1;
      if (r.peek() === "^") r.i++;
      if (r.peek() === "]") r.i++;
      for (;;) {
        const b = r.next();
        if (b === undefined || b === "\n") return null;
        if (b === "[" && /[:.=]/.test(r.peek() ?? "")) {
          const close = r.s.indexOf(r.peek()! + "]", r.i + 1);
          if (close < 0) return null;
          r.i = close + 2;
          continue;
        }
        if (b === "]") break;
      }
      out += r.s.slice(start, r.i);
      continue;
    }
    if (c === delim) return out;
    if (c === "\n") return null;
    out += c;
  }
}

function address(r: Reader): boolean | null {
  const c = r.peek();
  if (c === undefined) return false;
  if (/[0-9]/.test(c)) {
    while (/[0-9]/.test(r.peek() ?? "")) r.i++;
    if (r.peek() === "~") {
      r.i++;
      while (/[0-9]/.test(r.peek() ?? "")) r.i++;
    }
    return true;
  }
  if (c === "$") {
    r.i++;
    return true;
  }
  if (c === "/" || c === "\\") {
    r.i++;
    const delim = c === "/" ? "/" : r.next();
    if (delim === undefined || delim === "\n" || delim === "\\") return null;
    if (delimited(r, delim, true) === null) return null;
    while (r.peek() === "I" || r.peek() === "M") r.i++;
    return true;
  }
  return false;
}

function fail(error: string): SedResult {
  return { ok: false, error };
}

export function parseSed(script: string): SedResult {
  const r = new Reader(script);
  const writes: string[] = [];
  const reads: string[] = [];
  let runs: string | null = null;
  let runsInput = false;
  let depth = 0;
  for (;;) {
    // Between commands: blanks, newlines and semicolons; `#` starts a comment.
    while (r.peek() !== undefined && /[ \t\n;]/.test(r.peek()!)) r.i++;
    if (r.eof()) break;
    if (r.peek() === "#") {
      r.restOfLine();
      continue;
    }
    const a1 = address(r);
    if (a1 === null) return fail("an address does not end");
    if (a1) {
      r.skipBlanks();
      if (r.peek() === ",") {
        r.i++;
        r.skipBlanks();
        if (r.peek() === "+" || r.peek() === "~") {
          r.i++;
          if (!/[0-9]/.test(r.peek() ?? "")) return fail("`+`/`~` needs a number");
          while (/[0-9]/.test(r.peek() ?? "")) r.i++;
        } else if (address(r) !== true) return fail("a second address is missing");
      }
    }
    r.skipBlanks();
    while (r.peek() === "!") {
      r.i++;
      r.skipBlanks();
    }
    const cmd = r.next();
    if (cmd === undefined) return fail("an address has no command");
    if (cmd === "{") {
      depth++;
      continue;
    }
    if (cmd === "}") {
      if (depth === 0) return fail("`}` without `{`");
      depth--;
    } else if (NO_ARG.has(cmd)) {
      // nothing more
    } else if (NUM_ARG.has(cmd)) {
      r.skipBlanks();
      while (/[0-9]/.test(r.peek() ?? "")) r.i++;
    } else if (LABEL.has(cmd)) {
      // GNU 4.9 ends a label at a newline, a semicolon, a blank or a `}`.
      r.skipBlanks();
      while (r.peek() !== undefined && !/[\n; \t}]/.test(r.peek()!)) r.i++;
    } else if (TEXT.has(cmd)) {
      // `a text`, `a\` + newline + text; a line ending in a backslash goes on.
      for (;;) {
        const line = r.restOfLine();
        if (!/(?:^|[^\\])(?:\\\\)*\\$/.test(line) || r.eof()) break;
      }
    } else if (FILE_CMD.has(cmd)) {
      r.skipBlanks();
      const file = r.restOfLine();
      if (!file) return fail(`\`${cmd}\` needs a file name`);
      (cmd === "r" || cmd === "R" ? reads : writes).push(file);
    } else if (cmd === "e") {
      runs = "the `e` command runs a shell command";
      // `e` alone runs the pattern space; `e COMMAND` runs COMMAND.
      if (r.restOfLine().trim() === "") runsInput = true;
    } else if (cmd === "s" || cmd === "y") {
      const delim = r.next();
      if (delim === undefined || delim === "\n" || delim === "\\") return fail(`\`${cmd}\` has no delimiter`);
      if (delimited(r, delim, cmd === "s") === null) return fail(`the pattern of \`${cmd}\` does not end`);
      if (delimited(r, delim, false) === null) return fail(`the replacement of \`${cmd}\` does not end`);
      if (cmd === "s") {
        for (;;) {
          const f = r.peek();
          if (f === "g" || f === "p" || f === "i" || f === "I" || f === "m" || f === "M" || (f !== undefined && /[0-9]/.test(f))) r.i++;
          else if (f === "e") {
            runs = "the `e` flag of `s` runs the pattern space as a shell command";
            runsInput = true;
            r.i++;
          } else if (f === "w") {
            r.i++;
            r.skipBlanks();
            const file = r.restOfLine();
            if (!file) return fail("the `w` flag needs a file name");
            writes.push(file);
            break;
          } else break;
        }
      }
    } else return fail(`\`${cmd}\` is not a sed command the guard knows`);
    // After a command: blanks, then `;`, `}`, `#`, a newline or the end.
    r.skipBlanks();
    const after = r.peek();
    if (after !== undefined && after !== ";" && after !== "\n" && after !== "}" && after !== "#") {
      if (r.s[r.i - 1] === "\n") continue; // a file name or text took the whole line
      return fail(`unexpected \`${after}\` after \`${cmd}\``);
    }
  }
  if (depth !== 0) return fail("`{` without `}`");
  return { ok: true, script: { writes, reads, runs, runsInput } };
}

/** Files named `/dev/stdout` and `/dev/stderr` are GNU sed's own outputs, not files. */
export const SED_SPECIAL_FILES = new Set(["/dev/stdout", "/dev/stderr"]);
