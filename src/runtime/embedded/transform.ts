// Rewrites of a command line's syntax tree (just-bash's own parser, via a transform plugin) that make one exec()
// behave like an interactive shell:
// - streaming: each top-level statement (and each statement inside a top-level loop, if, case or group that has no
//   redirection) runs as `{ statement; } >>OUT 2>&1`, so its output reaches the terminal when it ends instead of when
//   the whole command line ends (just-bash has no streaming);
// - the terminal as stdin: `read`, and `cat` and other filters given no file operand, read from a terminal device,
//   which waits for what is typed (`read -p PROMPT` shows its prompt first);
// - function tracking: every function definition is followed by a call that tells which definition ran, so functions
//   carry over to the next command line exactly (just-bash cannot print a function's definition faithfully);
// - a trailer that reports the final state ($?, functions, arrays) at the end.
// The tree shapes used here are just-bash 3.4.2's (dist/ast/types.d.ts).

import { DEVICES } from "./config.ts";

// ---------------------------------------------------------------------------------------------------- tree shapes

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

const COMPOUND = new Set(["Group", "Subshell", "If", "For", "CStyleFor", "While", "Until", "Case", "Select"]);
const INPUT_OPERATORS = new Set(["<", "<<", "<<-", "<<<", "<&", "<>"]);

// ---------------------------------------------------------------------------------------------------- builders

function literal(value: string): WordNode {
  return { type: "Word", parts: [{ type: "Literal", value }] };
}

function redirect(fd: number | null, operator: string, target: string): RedirectionNode {
  return { type: "Redirection", fd, operator, target: literal(target) };
}

function simple(name: string, args: WordNode[] = []): SimpleCommandNode {
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

function group(body: StatementNode[], redirections: RedirectionNode[] = []): CommandNode {
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

// ---------------------------------------------------------------------------------------------------- terminal readers

interface Reader {
  /** Leading operands that are not files (a pattern, a script). */
  script?: number;
  /** Options that give the script, so that no operand is one. */
  scriptOpts?: string[];
  /** Options followed by a value (a separate word). */
  valueOpts?: string[];
  /** Reads stdin whatever the operands are. */
  always?: boolean;
}

/** Commands that read stdin when given no file operand, as far as the shell can tell from the words. */
const READERS: Record<string, Reader> = {
  cat: {},
  tac: {},
  rev: {},
  nl: { valueOpts: ["-w", "-s", "-v", "-i", "-b"] },
  wc: {},
  sort: { valueOpts: ["-k", "-t", "-o", "-S"] },
  uniq: { valueOpts: ["-f", "-s", "-w"] },
  head: { valueOpts: ["-n", "-c"] },
  tail: { valueOpts: ["-n", "-c"] },
  base64: { valueOpts: ["-w"] },
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  od: { valueOpts: ["-t", "-A", "-N", "-j", "-w"] },
  fold: { valueOpts: ["-w"] },
  expand: { valueOpts: ["-t"] },
  unexpand: { valueOpts: ["-t"] },
  strings: { valueOpts: ["-n"] },
  cut: { valueOpts: ["-d", "-f", "-c", "-b"] },
  tee: { always: true },
  tr: { always: true },
  xargs: { always: true },
  grep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  egrep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  fgrep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  sed: { script: 1, scriptOpts: ["-e", "-f", "--expression", "--file"], valueOpts: ["-e", "-f"] },
  awk: { script: 1, scriptOpts: ["-f"], valueOpts: ["-F", "-v", "-f"] },
  jq: { script: 1, valueOpts: ["--indent", "--arg", "--argjson"] },
};

/** Does this command, run with the terminal as stdin, read it? */
function readsTerminal(name: string, args: WordNode[]): boolean {
  const reader = READERS[name];
  if (reader === undefined) return false;
  if (reader.always) return true;
  let operands = 0;
  let script = reader.script ?? 0;
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const text = literalText(args[i]);
    if (text === null) {
      operands++;
      continue;
    }
    if (options && text === "--") {
      options = false;
      continue;
    }
    if (options && text.startsWith("-") && text.length > 1) {
      const flag = text.includes("=") ? text.slice(0, text.indexOf("=")) : text;
      if (reader.scriptOpts?.includes(flag)) script = 0;
      if (!text.includes("=") && reader.valueOpts?.includes(text)) i += text === "--arg" || text === "--argjson" ? 2 : 1;
      continue;
    }
    if (text === "-") continue; // stdin, named
    operands++;
  }
  return operands <= script;
}

function hasInputRedirect(redirections: RedirectionNode[] | undefined): boolean {
  return (redirections ?? []).some((r) => (r.fd === null || r.fd === 0) && INPUT_OPERATORS.has(r.operator));
}

/** `bash -n …` / `sh -n …` (also `-ne`, `-o noexec`): check the syntax only. */
function syntaxOnly(c: SimpleCommandNode): boolean {
  const name = literalText(c.name);
  if (name !== "bash" && name !== "sh") return false;
  for (let i = 0; i < c.args.length; i++) {
    const text = literalText(c.args[i]);
    if (text === null || !text.startsWith("-") || text === "-" || text === "--") return false;
    if (/^-[a-z]*n[a-z]*$/.test(text)) return true;
    if (text === "-o" && literalText(c.args[i + 1]) === "noexec") return true;
  }
  return false;
}

function readDevice(silent: boolean, count: number): string {
  if (count > 0) return `${DEVICES.ttyCounted}${silent ? "chars-silent" : "chars"}-${count}`;
  return silent ? DEVICES.ttyLineSilent : DEVICES.ttyLine;
}

/** `head` reads only its first lines from the terminal (10, or `-n N`, `-nN`, `-N`); null when it reads to the end. */
function headLines(args: WordNode[]): number | null {
  let n = 10;
  for (let i = 0; i < args.length; i++) {
    const text = literalText(args[i]);
    if (text === null) return null;
    let value: string | null = null;
    if (text === "-n" || text === "--lines") value = literalText(args[++i]);
    else if (text.startsWith("--lines=")) value = text.slice("--lines=".length);
    else if (/^-n./.test(text)) value = text.slice(2);
    else if (/^-[0-9]+$/.test(text)) value = text.slice(1);
    else if (text.startsWith("-") && text !== "-") return null; // -c, -q, …: read as today
    else continue;
    if (value === null || !/^[1-9][0-9]{0,8}$/.test(value)) return null;
    n = Number(value);
  }
  return n;
}

/** `read …` with the terminal as stdin: a line from the terminal, its `-p` prompt shown first. */
function rewriteRead(cmd: SimpleCommandNode): CommandNode | SimpleCommandNode {
  let prompt: WordNode | null = null;
  let silent = false;
  /** `-n N`/`-N N`: N characters end the read without Enter. */
  let count = 0;
  const args: WordNode[] = [];
  for (let i = 0; i < cmd.args.length; i++) {
    const word = cmd.args[i] as WordNode;
    const text = literalText(word);
    if (text === null || !text.startsWith("-") || text === "-") {
      args.push(word);
      continue;
    }
    if (text === "--") {
      args.push(...cmd.args.slice(i));
      break;
    }
    const flags = text.slice(1);
    if (flags.includes("u")) return cmd; // reads another descriptor
    if (flags.includes("s")) silent = true;
    const p = flags.indexOf("p");
    if (p === -1) {
      args.push(word);
      // options that take a value: -a NAME, -d DELIM, -n N, -N N, -t T, -i TEXT (attached: -n1)
      const valued = /[adnNti]/.exec(flags);
      if (valued === null) continue;
      const attached = flags.slice(valued.index + 1);
      const value = attached !== "" ? attached : i + 1 < cmd.args.length ? literalText(cmd.args[i + 1]) : null;
      if ((valued[0] === "n" || valued[0] === "N") && value !== null && /^[1-9][0-9]{0,8}$/.test(value)) count = Number(value);
      if (attached === "" && i + 1 < cmd.args.length) args.push(cmd.args[++i] as WordNode);
      continue;
    }
    const rest = flags.slice(p + 1);
    const before = flags.slice(0, p);
    if (before !== "") args.push(literal(`-${before}`));
    if (rest !== "") prompt = literal(rest);
    else if (i + 1 < cmd.args.length) prompt = cmd.args[++i] as WordNode;
  }
  const read: SimpleCommandNode = {
    ...cmd,
    args,
    redirections: [...cmd.redirections, redirect(0, "<", readDevice(silent, count))],
  };
  if (prompt === null) return read;
  return group([statementOf(simple(COMMANDS.prompt, [prompt])), statementOf(read)]);
}

// ---------------------------------------------------------------------------------------------------- the rewrite

export const COMMANDS = {
  /** `__sandshell_fn ID`: the function definition ID has just run. */
  fn: "__sandshell_fn",
  /** `__sandshell_prompt TEXT`: shows TEXT on the terminal at once (a `read -p` prompt). */
  prompt: "__sandshell_prompt",
  /** `__sandshell_no_stdin`: succeeds when nothing waits on its stdin (a function called at the prompt). */
  noStdin: "__sandshell_no_stdin",
  /** `__sandshell_syntax ARGS…`: `bash -n ARGS…`, which just-bash does not know: parse only, report, run nothing. */
  syntax: "__sandshell_syntax",
  /** The trailer: `__sandshell_state "$?" NAMES TYPES ARRAYS`. */
  state: "__sandshell_state",
} as const;

/** The trailer's text: $? first (before anything changes it), then what only the shell itself can tell. */
export const TRAILER_SOURCE =
  `${COMMANDS.state} "$?" "$(compgen -A function 2>/dev/null)" ` +
  `"$(for __sandshell_f in $(compgen -A function 2>/dev/null); do type "$__sandshell_f"; done)" ` +
  `"$(declare -pa 2>/dev/null; declare -pA 2>/dev/null)"`;

export interface FunctionRecord {
  name: string;
  /** The definition's source text (its statement's), for a fresh worker. */
  text: string;
  /** The (rewritten) definition node, for this worker. */
  node: FunctionDefNode;
}

export interface RewriteOptions {
  /** Output statement by statement to the output device. */
  stream: boolean;
  /** Commands that read the terminal read the terminal devices. */
  tty: boolean;
  /** Track function definitions (ids are allocated through `onFunction`). */
  onFunction?: (record: FunctionRecord) => number;
  /** Statements run first, silently (arrays carried over). */
  prelude?: StatementNode[];
  /** Appended at the end (the state trailer). */
  trailer?: StatementNode;
}

interface Ctx {
  stream: boolean;
  tty: boolean;
  /**
   * Inside a function body: the terminal is stdin only when the function was called with nothing on its stdin, which
   * is known only at run time (`f` at the prompt reads the terminal; `echo x | f` reads the pipe).
   */
  ttyIfNoStdin?: boolean;
  /** Inside a compound statement (a loop body, an if…), not at the top level. */
  nested?: boolean;
}

class Rewriter {
  constructor(
    private readonly options: RewriteOptions,
    private readonly texts: Map<FunctionDefNode, string>,
  ) {}

  statements(list: StatementNode[], ctx: Ctx): StatementNode[] {
    return list.map((s) => this.statement(s, ctx));
  }

  private statement(s: StatementNode, ctx: Ctx): StatementNode {
    if (s.deferredError !== undefined) return ctx.stream ? this.wrap(s) : s;
    const only = s.pipelines.length === 1 && s.operators.length === 0 && !s.background ? s.pipelines[0] : undefined;
    const single = only !== undefined && only.commands.length === 1 && !only.negated && !only.timed ? only.commands[0] : undefined;
    if (ctx.stream && single !== undefined && COMPOUND.has(single.type) && (single.redirections ?? []).length === 0) {
      // stream inside: the compound's statements write to the terminal themselves
      const cmd = this.compound(single, { stream: true, tty: ctx.tty, nested: true });
      return { ...s, pipelines: [{ ...(only as PipelineNode), commands: [cmd] }] };
    }
    const pipelines = s.pipelines.map((p) => ({
      ...p,
      commands: p.commands.map((c, i) => this.command(c, { stream: false, tty: ctx.tty && i === 0, ttyIfNoStdin: ctx.ttyIfNoStdin === true && i === 0 })),
    }));
    const out = { ...s, pipelines };
    return ctx.stream && !(ctx.nested && this.silent(out)) ? this.wrap(out) : out;
  }

  /**
   * Statements that print nothing (bar an error): assignments without a command substitution, `(( … ))`, `[ … ]`,
   * `:`, `true`, `false`. Inside a loop they run unwrapped (an error message of theirs then comes at the end of the
   * loop): wrapping every iteration's `i=$((i+1))` would cost more than the statement.
   */
  private silent(s: StatementNode): boolean {
    if (s.pipelines.length !== 1 || s.background) return false;
    const p = s.pipelines[0] as PipelineNode;
    if (p.commands.length !== 1 || p.timed) return false;
    const c = p.commands[0] as CommandNode;
    if (c.type === "ArithmeticCommand") return true;
    if (c.type !== "SimpleCommand") return false;
    const sc = c as unknown as SimpleCommandNode;
    if (sc.redirections.length > 0) return false;
    if (sc.name === null) return !JSON.stringify(sc.assignments).includes("Substitution");
    const name = literalText(sc.name);
    if (name === "[" || name === "test") return !JSON.stringify(sc.args).includes("Substitution");
    return sc.args.length === 0 && (name === ":" || name === "true" || name === "false");
  }

  private wrap(s: StatementNode): StatementNode {
    const wrapped = statementOf(group([s], [redirect(null, ">>", DEVICES.out), redirect(2, ">&", "1")]), s.sourceText ?? "");
    wrapped.background = false;
    return wrapped;
  }

  private command(c: CommandNode, ctx: Ctx): CommandNode {
    if (c.type === "SimpleCommand") return this.simpleCommand(c as unknown as SimpleCommandNode, ctx) as CommandNode;
    if (c.type === "FunctionDef") return this.functionDef(c as unknown as FunctionDefNode);
    if (COMPOUND.has(c.type)) return this.compound(c, ctx);
    return c;
  }

  private simpleCommand(c: SimpleCommandNode, ctx: Ctx): SimpleCommandNode | CommandNode {
    if (syntaxOnly(c)) return { ...c, name: literal(COMMANDS.syntax) };
    if (this.options.tty && ctx.ttyIfNoStdin === true && !hasInputRedirect(c.redirections) && literalText(c.name) === "read") {
      // if __sandshell_no_stdin; then read … < terminal; else read …; fi
      return {
        type: "If",
        clauses: [{ condition: [statementOf(simple(COMMANDS.noStdin))], body: [statementOf(rewriteRead(c))] }],
        elseBody: [statementOf(c)],
        redirections: [],
      } as unknown as CommandNode;
    }
    if (!this.options.tty || !ctx.tty || hasInputRedirect(c.redirections)) return c;
    const name = literalText(c.name);
    if (name === null) return c;
    if (name === "read") return rewriteRead(c);
    if (readsTerminal(name, c.args)) {
      const lines = name === "head" ? headLines(c.args) : null;
      const device = lines === null ? DEVICES.tty : `${DEVICES.ttyCounted}lines-${lines}`;
      return { ...c, redirections: [...c.redirections, redirect(0, "<", device)] };
    }
    return c;
  }

  private functionDef(f: FunctionDefNode): CommandNode {
    // statements inside the body run wherever the function is called: no streaming, no terminal; nested definitions
    // are tracked too
    const body = this.compound(f.body, { stream: false, tty: false, ttyIfNoStdin: true });
    const node: FunctionDefNode = { ...f, body };
    const onFunction = this.options.onFunction;
    if (onFunction === undefined) return node as unknown as CommandNode;
    const id = onFunction({ name: f.name, text: this.texts.get(f) ?? "", node });
    return group([statementOf(node as unknown as CommandNode), statementOf(simple(COMMANDS.fn, [literal(String(id))]))]);
  }

  private compound(c: CommandNode, ctx: Ctx): CommandNode {
    const redirected = hasInputRedirect(c.redirections);
    const inner: Ctx = { stream: ctx.stream, tty: ctx.tty && !redirected, nested: ctx.nested, ttyIfNoStdin: ctx.ttyIfNoStdin === true && !redirected };
    const list = (l: StatementNode[] | null | undefined): StatementNode[] | null | undefined =>
      Array.isArray(l) ? this.statements(l, inner) : l;
    const out: CommandNode = { ...c };
    if (Array.isArray(c.body)) out.body = list(c.body) as StatementNode[];
    else if (c.body !== undefined && typeof c.body === "object") out.body = this.command(c.body, inner);
    if (c.clauses) out.clauses = c.clauses.map((cl) => ({ ...cl, condition: list(cl.condition) as StatementNode[], body: list(cl.body) as StatementNode[] }));
    if (c.elseBody) out.elseBody = list(c.elseBody) ?? null;
    if (Array.isArray(c.condition)) out.condition = list(c.condition) as StatementNode[];
    if (c.items) out.items = c.items.map((it) => ({ ...it, body: list(it.body) as StatementNode[] }));
    return out;
  }
}

/** Attaches each definition's source text: the text of the statement that holds it. */
function collectFunctionTexts(list: StatementNode[], into: Map<FunctionDefNode, string>): void {
  const visitCommand = (c: CommandNode, text: string): void => {
    if (c.type === "FunctionDef") {
      into.set(c as unknown as FunctionDefNode, text);
      visitCommand((c as unknown as FunctionDefNode).body, text);
      return;
    }
    const lists: Array<StatementNode[] | null | undefined> = [];
    if (Array.isArray(c.body)) lists.push(c.body);
    else if (c.body !== undefined && typeof c.body === "object") visitCommand(c.body, text);
    for (const cl of c.clauses ?? []) lists.push(cl.condition, cl.body);
    if (c.elseBody) lists.push(c.elseBody);
    if (Array.isArray(c.condition)) lists.push(c.condition);
    for (const it of c.items ?? []) lists.push(it.body);
    for (const l of lists) if (l) collectFunctionTexts(l, into);
  };
  for (const s of list) {
    for (const p of s.pipelines) for (const c of p.commands) visitCommand(c, s.sourceText ?? "");
  }
}

export function rewriteScript(ast: ScriptNode, options: RewriteOptions): ScriptNode {
  const texts = new Map<FunctionDefNode, string>();
  collectFunctionTexts(ast.statements, texts);
  const statements = new Rewriter(options, texts).statements(ast.statements, { stream: options.stream, tty: options.tty });
  const prelude = options.prelude ?? [];
  return {
    ...ast,
    statements: [
      ...(prelude.length > 0 ? [statementOf(group(prelude, [redirect(null, ">", "/dev/null"), redirect(2, ">&", "1")]))] : []),
      ...statements,
      ...(options.trailer ? [options.trailer] : []),
    ],
  };
}

/** Every FunctionDef in a parsed script (for restoring definitions from source text). */
export function findFunctionDefs(ast: ScriptNode): FunctionDefNode[] {
  const map = new Map<FunctionDefNode, string>();
  collectFunctionTexts(ast.statements, map);
  return [...map.keys()];
}

// ---------------------------------------------------------------------------------------------------- completeness

export type Completeness = "complete" | "incomplete";

/** Does the last line end in an unescaped backslash (a continuation)? */
function endsWithContinuation(text: string): boolean {
  const m = /(\\+)$/.exec(text);
  return m !== null && (m[1] ?? "").length % 2 === 1;
}

/** Would bash ask for more (PS2) after this input? `parse` throws like just-bash's parser. */
export function completeness(text: string, parse: (text: string) => ScriptNode): Completeness {
  if (text.trim() === "") return "complete";
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
