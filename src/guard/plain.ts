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
}

// Unquoted characters that may appear in a plain word. Everything else (`$`, `` ` ``, `\`, `(`, `)`,
// `{`, `}`, `#`, `!`, newlines, control characters) sends the input to tree-sitter.
const WORD_CHAR = /[A-Za-z0-9_./:=@%+,\-*?[\]~^]/;
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select", "time", "coproc", "[[", "]]", "[", "!", "{", "}", "export", "declare", "typeset", "local", "readonly", "unset"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

function isWordChar(c: string): boolean {
  return WORD_CHAR.test(c) || c.charCodeAt(0) > 127;
}

export function parsePlain(source: string): PlainStatement[] | null {
  const n = source.length;
  const statements: PlainStatement[] = [];
  let commands: PlainCommand[] = [];
  let words: PlainWord[] = [];
  let redirects: PlainRedirect[] = [];
  let cmdStart = -1;
  let cmdEnd = -1;
  let i = 0;
  // After `|`, `&&` or `||` a command must follow; bash calls the alternative a syntax error.
  let pending = false;

  const readWord = (): PlainWord | null => {
    const start = i;
    let value = "";
    let glob = false;
    while (i < n) {
      const c = source[i]!;
      if (c === "'") {
        const close = source.indexOf("'", i + 1);
        if (close < 0) return null;
        value += source.slice(i + 1, close);
        i = close + 1;
      } else if (c === '"') {
        const close = source.indexOf('"', i + 1);
        if (close < 0) return null;
        const inner = source.slice(i + 1, close);
        if (/[$`\\]/.test(inner)) return null;
        value += inner;
        i = close + 1;
      } else if (isWordChar(c)) {
        if (c === "*" || c === "?" || c === "[") glob = true;
        value += c;
        i++;
      } else break;
    }
    if (i === start) return null;
    const raw = source.slice(start, i);
    let tilde = false;
    if (raw[0] === "~") {
      if (raw === "~" || raw.startsWith("~/")) tilde = true;
      else return null; // ~user, ~+ and friends: tree-sitter's side
    }
    return { raw, value, glob, tilde };
  };

  const endCommand = (): boolean => {
    if (words.length === 0) return false; // `| |`, `&& ;`, a redirect with no command: not plain
    const head = words[0]!.raw;
    if (RESERVED.has(head) || head.startsWith("[") || ASSIGNMENT.test(head)) return false;
    commands.push({ text: source.slice(cmdStart, cmdEnd), words, redirects });
    words = [];
    redirects = [];
    cmdStart = -1;
    return true;
  };

  const endStatement = (background: boolean): boolean => {
    if (!endCommand()) return false;
    statements.push({ commands, background });
    commands = [];
    return true;
  };

  while (i < n) {
    const c = source[i]!;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if (cmdStart < 0 && c !== ";" && c !== "|" && c !== "&") cmdStart = i;
    if (c === "|") {
      if (source[i + 1] === "|") {
        if (!endStatement(false)) return null;
        i += 2;
      } else {
        if (source[i + 1] === "&" || !endCommand()) return null;
        i++;
      }
      pending = true;
      continue;
    }
    if (c === "&") {
      if (source[i + 1] === "&") {
        if (!endStatement(false)) return null;
        i += 2;
        pending = true;
        continue;
      }
      if (source[i + 1] !== ">") {
        if (!endStatement(true)) return null;
        i++;
        continue;
      }
    }
    if (c === ";") {
      if (source[i + 1] === ";" || !endStatement(false)) return null;
      i++;
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
      i = j + op.length;
      while (source[i] === " " || source[i] === "\t") i++;
      const target = readWord();
      if (!target) return null;
      redirects.push({ op, fd, target });
      cmdEnd = i;
      pending = false;
      continue;
    }
    const w = readWord();
    if (!w) return null;
    words.push(w);
    cmdEnd = i;
    pending = false;
  }
  if (pending) return null;
  if (words.length || redirects.length) {
    if (!endStatement(false)) return null;
  } else if (commands.length) return null; // a dangling `|`
  return statements.length ? statements : null;
}
