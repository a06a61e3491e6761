// A syntax error tree-sitter found, described for the model that wrote the command: where it is (line and
// column as a person counts them) and its likely cause, in words it can act on.

import type { Node } from "web-tree-sitter";
import type { SyntaxProblem } from "./facts.ts";

/** Line, column and likely cause of the first syntax error, in words a model can act on. */
export function describeSyntaxError(root: Node, source: string): SyntaxProblem {
  let bad: Node | null = null;
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.isMissing || n.type === "ERROR") {
      bad = n;
      break;
    }
    if (!n.hasError) continue;
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  let node = bad ?? root;
  // An unclosed quote is best pointed at where the quote opens, not where the broken statement starts.
  const quoted = findLeaf(node, (n) => /^\$?['"`]/.test(n.text) && n.text.length > 0);
  if (quoted && !node.isMissing) node = quoted;
  const index = node.startIndex;
  const before = source.slice(0, index);
  const line = before.split("\n").length;
  // Columns count characters as a person sees them (code points), from 1.
  const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
  return { line, column, cause: likelyCause(node, source, root) };
}

function likelyCause(node: Node, source: string, root: Node): string {
  const trimmed = source.trimEnd();
  if (node.isMissing && node.type === "heredoc_end") {
    const start = findDescendant(root, "heredoc_start");
    const delimiter = start?.text.replace(/['"\\]/g, "") ?? "EOF";
    return `an unterminated heredoc <<${start?.text ?? delimiter}: the closing ${delimiter} must stand alone at the start of a line`;
  }
  const dangling = /(&&|\|\||\|&?)$/.exec(trimmed);
  if (dangling && (node.isMissing || trimmed.endsWith(dangling[1]!))) {
    return `a dangling ${dangling[1]} at the end: add the command that should follow it, or remove it`;
  }
  if (node.isMissing) {
    const expected = node.type === "word" ? "a word" : `\`${node.type}\``;
    return `${expected} is missing here (an unclosed block or list)`;
  }
  const heredoc = findDescendant(node, "heredoc_start");
  if (heredoc) {
    const delimiter = heredoc.text.replace(/['"\\]/g, "");
    return `an unterminated heredoc <<${heredoc.text}: the closing ${delimiter} must stand alone at the start of a line`;
  }
  const first = firstLeaf(node);
  const text = first?.text ?? node.text;
  const quote = /^(?:\$?['"`])/.exec(text);
  if (quote) return `an unclosed ${quote[0].slice(-1)} quote (it opens here and never closes)`;
  if (/^\$\(\(/.test(text)) return "an unclosed $(( arithmetic expansion";
  if (/^\$\(/.test(text) || text === "(") return "an unclosed ( or $( (a parenthesis that never closes)";
  if (/^(?:if|then|else|elif)$/.test(text)) return "an `if` without its closing `fi`";
  if (/^(?:for|while|until|do)$/.test(text)) return "a loop without its closing `done`";
  if (text === "case") return "a `case` without its closing `esac`";
  if (text === ")" || text === "}" || text === "fi" || text === "done" || text === "esac") return `an unexpected \`${text}\` with nothing open to close`;
  if (text === "{") return "an unclosed { group: it needs `; }` at its end";
  return `unexpected \`${text.slice(0, 20)}\``;
}

function findLeaf(node: Node, test: (n: Node) => boolean): Node | null {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.childCount === 0) {
      if (test(n)) return n;
      continue;
    }
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return null;
}

function firstLeaf(node: Node): Node | null {
  let n: Node | null = node;
  while (n && n.childCount > 0) n = n.child(0);
  return n;
}

function findDescendant(node: Node, type: string): Node | null {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === type) return n;
    for (const c of n.children) stack.push(c);
  }
  return null;
}

