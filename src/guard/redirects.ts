// Redirects as bash performs them: the operator (`<>` read back from the source), the descriptor, the target
// (expanded as one word), and a heredoc's or herestring's text; an unquoted heredoc body's substitutions are
// judged as the commands they are. A heredoc is read only where bash and tree-sitter end it at the same line.

import { literalWord } from "./argv.ts";
import type { Command, Redirect, Script, SyntaxProblem, Word } from "./facts.ts";
import type { SyntaxNode } from "./tree.ts";
import { fields, word } from "./words.ts";
import { nested, type Analysis, type Ctx } from "./analysis.ts";

/**
 * An unquoted heredoc body as a double-quoted string that means the same to bash and that tree-sitter reads
 * plainly: backslash-newlines joined (bash joins them first), `"` escaped, and a `$` that starts no
 * expansion (`$'`, `$ `, `$"`, a `$` at the end) written `\$`, which is what it is in a heredoc.
 */
function heredocAsString(body: string): string {
  return body.replace(/\\[\s\S]|\$(?![({[A-Za-z0-9_@*#?$!-])|"/g, (m) => (m === "\\\n" ? "" : m === '"' ? '\\"' : m === "$" ? "\\$" : m));
}

/** A backtick not escaped by a backslash: in an unquoted heredoc body or a double-quoted string, a command substitution. */
function unescapedBacktick(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "`") return true;
  }
  return false;
}

/** The heredoc delimiters both parsers read alike: a plain word, or one quoted whole in '' or "". */
const PLAIN_DELIMITER = /^(?:([A-Za-z0-9_.,:@%+=-]+)|'([A-Za-z0-9_.,:@%+=-]+)'|"([A-Za-z0-9_.,:@%+=-]+)")$/;

/**
 * A redirect node, recorded on `fact`: its words with substitutions go to `words`, and what tree-sitter hangs
 * under a heredoc redirect (`cat <<EOF | sh`) to `later`, to be walked after the command.
 */
export function redirect(a: Analysis, node: SyntaxNode, fact: Command, ctx: Ctx, words: SyntaxNode[], source: string, where: string | undefined, later?: SyntaxNode[]): void {
  let op = "";
  let fd: number | null = null;
  let target: Word | null = null;
  let body: Redirect["body"];
  let delimiter: SyntaxNode | null = null;
  let end: SyntaxNode | null = null;
  let bodyNode: SyntaxNode | null = null;
  for (const c of node.children) {
    if (!c.isNamed) {
      // `<>` reached tree-sitter as `< ` (readWriteAsRead): the source says which it was.
      if (!op) op = c.type === "<" && source.startsWith("<>", c.startIndex) ? "<>" : c.type;
      continue;
    }
    switch (c.type) {
      case "file_descriptor":
        // Only digits make a descriptor; tree-sitter also takes `-200` in `head -200>f`, which bash reads as a word.
        if (/^\d+$/.test(c.text)) fd = Number(c.text);
        else fact.argv.push(literalWord(c.text));
        break;
      case "heredoc_start":
        delimiter = c;
        break;
      case "heredoc_body":
        bodyNode = c;
        break;
      case "heredoc_end":
        end = c;
        break;
      case "file_redirect":
      case "herestring_redirect":
        redirect(a, c, fact, ctx, words, source, where, later);
        break;
      default:
        if (node.type === "heredoc_redirect") later?.push(c);
        else if (target === null) {
          target = word(c, ctx.scope, a.home, node.type === "herestring_redirect" ? "value" : "redirect");
          words.push(c);
        } else {
          // tree-sitter hangs words after a redirect's target (`echo hi >f arg`) under the redirect.
          fact.argv.push(...fields(c, ctx.scope, a.home, "argv"));
          words.push(c);
        }
    }
  }
  // bash expands the target of `>&` and `<&` a second time: `>& '$(cmd)'` runs cmd. Only plain targets.
  if ((op === ">&" || op === "<&") && target && /['"$`\\]/.test(target.raw)) {
    a.script.problem ??= { line: node.startPosition.row + 1, column: node.startPosition.column + 1, cause: `bash expands the target of ${op} twice, so quotes in ${target.raw} do not keep it literal: use a plain file name or descriptor, or write to it with >`, ...(where ? { where } : {}) };
  }
  if (node.type === "herestring_redirect") {
    body = target ? { text: target.value, dynamic: target.dynamic } : undefined;
    target = null;
    op = "<<<";
  }
  if (node.type === "heredoc_redirect") {
    const quoted = /['"\\]/.test(delimiter?.text ?? "");
    const raw = bodyNode?.text ?? "";
    const heredocProblem = (cause: string): void => {
      const at = (delimiter ?? node).startPosition;
      a.script.problem ??= { line: at.row + 1, column: at.column + 1, cause, ...(where ? { where } : {}) };
    };
    // Body lines that tree-sitter hung under the redirect as words (a body line starting with `\``): it
    // then reads the body as something else than bash does.
    const openLineEnd = source.indexOf("\n", (delimiter ?? node).endIndex);
    if (openLineEnd >= 0 && node.children.some((c) => c.isNamed && c.type !== "heredoc_start" && c.type !== "heredoc_body" && c.type !== "heredoc_end" && c.endIndex > openLineEnd)) {
      heredocProblem(`bash and the guard's parser would read the body of the heredoc <<${delimiter?.text ?? ""} differently: use a quoted delimiter such as <<'EOF'`);
    } else if (!quoted && unescapedBacktick(raw)) {
      // tree-sitter leaves backticks in an unquoted heredoc body as text; bash runs them.
      heredocProblem(`the body of the heredoc <<${delimiter?.text ?? ""} holds a backtick, which bash runs as a command: quote the delimiter (<<'EOF') to write it as text, or use $(…)`);
    } else if (!quoted && raw.includes("$")) {
      // Nor does it always parse the `$(…)` of an unquoted body (`?(` before it leaves the whole body text).
      // Bash expands the body as it would a double-quoted string: parse it as one, and judge what it runs.
      a.run(`: "${heredocAsString(raw)}"`, { ...nested(ctx), via: "a heredoc body" }, "in the body of a heredoc");
    }
    if (bodyNode && !quoted) {
      const value = word(bodyNode, ctx.scope, a.home);
      body = { text: value.value, dynamic: value.dynamic };
      words.push(bodyNode);
    } else body = { text: raw, dynamic: false };
    checkHeredocEnd(op, delimiter, end, bodyNode, source, a.script, where);
  }
  fact.redirects.push({ op, fd, target, ...(body ? { body } : {}) });
}

/**
 * A heredoc is checked only when bash and tree-sitter certainly read it the same way: a plain delimiter
 * (`EOF`, `'EOF'`, `"EOF"`), and the body ending at the same line for both. tree-sitter accepts ` EOF`
 * and `EOF ` as the end (bash does not, and then waits forever); bash ends an unquoted body at a line
 * that a backslash-newline joins into the delimiter (`EO\⏎F`), and `<<-` at a line of tabs and the
 * delimiter, where tree-sitter may read on. Lines bash runs as commands would then be judged as text.
 */
function checkHeredocEnd(op: string, start: SyntaxNode | null, end: SyntaxNode | null, body: SyntaxNode | null, source: string, script: Script, where: string | undefined): void {
  if (!start || script.problem) return;
  const at = start.startPosition;
  const plain = PLAIN_DELIMITER.exec(start.text);
  if (!plain) {
    script.problem = {
      line: at.row + 1,
      column: at.column + 1,
      cause: `the heredoc delimiter ${start.text} may be read one way by bash and another by the guard's parser: use a plain quoted delimiter such as <<'EOF'`,
      ...(where ? { where } : {}),
    };
    return;
  }
  const delimiter = plain[2] ?? plain[3] ?? plain[1]!;
  const quoted = plain[1] === undefined;
  const problem = (line: number, column: number, found: string): SyntaxProblem => ({
    line,
    column,
    cause: `the heredoc <<${start.text} opened at line ${at.row + 1} is not closed: the closing ${delimiter} must stand alone at the start of a line${found}`,
    ...(where ? { where } : {}),
  });
  if (!end) {
    script.problem = problem(at.row + 1, at.column + 1, "");
    return;
  }
  const lineStart = source.lastIndexOf("\n", end.startIndex - 1) + 1;
  let lineEnd = source.indexOf("\n", end.startIndex);
  if (lineEnd < 0) lineEnd = source.length;
  let line = source.slice(lineStart, lineEnd);
  if (op === "<<-") line = line.replace(/^\t+/, "");
  if (line !== delimiter) {
    const row = source.slice(0, lineStart).split("\n").length;
    script.problem = problem(row, 1, ` (found ${JSON.stringify(source.slice(lineStart, lineEnd))})`);
    return;
  }
  // Where bash ends the body: the first line (joined at backslash-newlines when unquoted) that is the delimiter.
  const bodyStart = body ? body.startIndex : lineStart;
  const disagree = (why: string): void => {
    script.problem = {
      line: at.row + 1,
      column: at.column + 1,
      cause: `bash and the guard's parser would end the heredoc <<${start.text} at different lines (${why}): use a quoted delimiter such as <<'EOF' and no backslash at the end of a body line`,
      ...(where ? { where } : {}),
    };
  };
  // tree-sitter starts a `<<-` body after the tabs that bash strips.
  const bodyLine = source.lastIndexOf("\n", bodyStart - 1) + 1;
  if (bodyStart > 0 && !/^\t*$/.test(source.slice(bodyLine, bodyStart))) return disagree("its body does not start on a line of its own");
  const opLineEnd = source.indexOf("\n", start.endIndex);
  if (opLineEnd > 0 && source[opLineEnd - 1] === "\\") return disagree("the line that opens it ends with a backslash");
  let pos = bodyLine;
  while (pos <= source.length) {
    let nl = source.indexOf("\n", pos);
    if (nl < 0) nl = source.length;
    let logical = source.slice(pos, nl);
    let next = nl + 1;
    if (!quoted) {
      while (/(?:^|[^\\])(?:\\\\)*\\$/.test(logical) && next <= source.length) {
        let nl2 = source.indexOf("\n", next);
        if (nl2 < 0) nl2 = source.length;
        logical = logical.slice(0, -1) + source.slice(next, nl2);
        next = nl2 + 1;
      }
    }
    if (op === "<<-") logical = logical.replace(/^\t+/, "");
    if (logical === delimiter) {
      if (pos !== lineStart) disagree(pos < lineStart ? `bash ends it at line ${source.slice(0, pos).split("\n").length}` : "the end is not where bash looks");
      return;
    }
    if (pos >= lineStart) break;
    pos = next;
  }
  disagree("bash does not see the closing line where the parser does");
}
