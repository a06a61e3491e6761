// The shapes of just-bash's syntax tree that the command line's rewrite reads and builds (just-bash 3.4.2,
// dist/ast/types.d.ts), and small builders for the nodes it adds.

export interface WordNode {
  type: "Word";
  parts: Array<{ type: string; value?: string; [k: string]: unknown }>;
}

export interface RedirectionNode {
  type: "Redirection";
  fd: number | null;
  operator: string;
  target: WordNode | { type: "HereDoc"; [k: string]: unknown };
  [k: string]: unknown;
}

export interface StatementNode {
  type: "Statement";
  pipelines: PipelineNode[];
  operators: string[];
  background: boolean;
  sourceText?: string;
  deferredError?: unknown;
  [k: string]: unknown;
}

export interface PipelineNode {
  type: "Pipeline";
  commands: CommandNode[];
  negated: boolean;
  timed?: boolean;
  [k: string]: unknown;
}

export interface ScriptNode {
  type: "Script";
  statements: StatementNode[];
}

export interface SimpleCommandNode {
  type: "SimpleCommand";
  name: WordNode | null;
  args: WordNode[];
  assignments: unknown[];
  redirections: RedirectionNode[];
  [k: string]: unknown;
}

export interface FunctionDefNode {
  type: "FunctionDef";
  name: string;
  body: CommandNode;
  redirections: RedirectionNode[];
  [k: string]: unknown;
}

/** Any command node; compound ones carry statement lists in the fields below. */
export interface CommandNode {
  type: string;
  redirections?: RedirectionNode[];
  body?: StatementNode[] | CommandNode;
  clauses?: Array<{ condition: StatementNode[]; body: StatementNode[] }>;
  elseBody?: StatementNode[] | null;
  condition?: StatementNode[];
  items?: Array<{ body: StatementNode[]; [k: string]: unknown }>;
  [k: string]: unknown;
}

export const COMPOUND = new Set(["Group", "Subshell", "If", "For", "CStyleFor", "While", "Until", "Case", "Select"]);
export const INPUT_OPERATORS = new Set(["<", "<<", "<<-", "<<<", "<&", "<>"]);

// ---------------------------------------------------------------------------------------------------- builders

export function literal(value: string): WordNode {
  return { type: "Word", parts: [{ type: "Literal", value }] };
}

export function redirect(fd: number | null, operator: string, target: string): RedirectionNode {
  return { type: "Redirection", fd, operator, target: literal(target) };
}

export function simple(name: string, args: WordNode[] = []): SimpleCommandNode {
  return { type: "SimpleCommand", name: literal(name), args, assignments: [], redirections: [] };
}

export function statementOf(command: CommandNode | SimpleCommandNode, sourceText = ""): StatementNode {
  return {
    type: "Statement",
    pipelines: [{ type: "Pipeline", commands: [command as CommandNode], negated: false, timed: false, timePosix: false }],
    operators: [],
    background: false,
    sourceText,
  };
}

export function group(body: StatementNode[], redirections: RedirectionNode[] = []): CommandNode {
  return { type: "Group", body, redirections };
}

/** The word's text when it has no expansion in it (quotes and escapes resolved); null otherwise. */
export function literalText(word: WordNode | null | undefined): string | null {
  if (!word) return null;
  let out = "";
  for (const part of word.parts) {
    if (part.type === "Literal" || part.type === "SingleQuoted" || part.type === "Escaped") out += part.value ?? "";
    else if (part.type === "DoubleQuoted") {
      const inner = (part as { parts?: WordNode["parts"] }).parts ?? [];
      const text = literalText({ type: "Word", parts: inner });
      if (text === null) return null;
      out += text;
    } else return null;
  }
  return out;
}
