// Would bash ask for more (PS2) after this input? An open quote, heredoc, `if`, a trailing backslash, `&&`, `||` or
// `|` at the end: the line editor then shows `> ` and reads on.

import type { ScriptNode, SimpleCommandNode } from "./ast.ts";

export type Completeness = "complete" | "incomplete";

/** Does the last line end in an unescaped backslash (a continuation)? */
function endsWithContinuation(text: string): boolean {
  const m = /(\\+)$/.exec(text);
  return m !== null && (m[1] ?? "").length % 2 === 1;
}

/** Characters and words that can leave a line open: quotes, escapes, heredocs, expansions, groups, keywords. */
const MAY_OPEN = /['"`\\\n<${}()[\]]|(?:^|[\s;&|])(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|select|function|in|coproc)(?=$|[\s;&|])|(?:&&|\|)\s*$/;

/** Would bash ask for more (PS2) after this input? `parse` throws like just-bash's parser. */
export function completeness(text: string, parse: (text: string) => ScriptNode): Completeness {
  if (text.trim() === "") return "complete";
  // a plain line (`ls -la src`, `echo hi`) is complete without parsing it twice (exec parses it again)
  if (!MAY_OPEN.test(text)) return "complete";
  if (endsWithContinuation(text)) return "incomplete";
  let ast: ScriptNode;
  try {
    ast = parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/EOF|end of input|unterminated here-document/i.test(message)) return "incomplete";
    const e = err as { line?: number; column?: number };
    if (typeof e.line === "number" && typeof e.column === "number") {
      const lines = text.replace(/\n+$/, "").split("\n");
      const lastLine = lines.length;
      const lastCol = (lines[lines.length - 1] ?? "").length + 1;
      if (e.line > lastLine || (e.line === lastLine && e.column >= lastCol)) return "incomplete";
    }
    return "complete"; // a real syntax error: run it, so that bash reports it
  }
  // `a &&`, `a ||`, `a |` at the very end: bash reads the next line
  const trimmed = text.replace(/\s+$/, "");
  if (/(?:&&|\|\||\|)$/.test(trimmed) && !/\\(?:&&|\|\||\|)$/.test(trimmed)) {
    const last = ast.statements[ast.statements.length - 1];
    const lastPipe = last?.pipelines[last.pipelines.length - 1];
    const lastCmd = lastPipe?.commands[lastPipe.commands.length - 1] as SimpleCommandNode | undefined;
    if (lastCmd === undefined || (lastCmd.type === "SimpleCommand" && lastCmd.name === null && lastCmd.args.length === 0)) {
      return "incomplete";
    }
  }
  return "complete";
}
