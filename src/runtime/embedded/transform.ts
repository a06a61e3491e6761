// Rewrites of a command line's syntax tree (just-bash's own parser, via a transform plugin) that make one exec()
// behave like an interactive shell:
// - streaming: each top-level statement (and each statement inside a top-level loop, if, case or group that has no
//   redirection) runs as `{ statement; } >>OUT 2>&1`, so its output reaches the terminal when it ends instead of when
//   the whole command line ends (just-bash has no streaming);
// - the terminal as stdin: `read`, and `cat` and other filters given no file operand, read from a terminal device,
//   which waits for what is typed (terminal-readers.ts);
// - `bash -n` checks syntax (syntax-check.ts);
// - function tracking: every function definition is followed by a call that tells which definition ran, so functions
//   carry over to the next command line exactly (just-bash cannot print a function's definition faithfully);
// - a trailer that reports the final state ($?, functions, arrays) at the end.
// The tree shapes used here are just-bash 3.4.2's (ast.ts).

import {
  type CommandNode,
  type WordNode,
  COMPOUND,
  type FunctionDefNode,
  group,
  literal,
  literalText,
  type PipelineNode,
  redirect,
  type ScriptNode,
  simple,
  type SimpleCommandNode,
  type StatementNode,
  statementOf,
} from "./ast.ts";
import { COMMANDS, DEVICES } from "./config.ts";
import { syntaxOnly } from "./syntax-check.ts";
import { hasInputRedirect, headLines, readsTerminal, rewriteRead } from "./terminal-readers.ts";

export type { FunctionDefNode, ScriptNode, StatementNode } from "./ast.ts";

// ---------------------------------------------------------------------------------------------------- the rewrite

/** The short trailer's variable, `__sandshell_status_TOKEN=$?`, ends a line that cannot change functions or arrays. */
export const STATUS_VARIABLE = "__sandshell_status_";

/**
 * `__sandshell_status_TOKEN=$?`: the line ran to its end, with this exit code (read from exec()'s final environment).
 * TOKEN is new for every line and appears only in its rewritten tree, so no command can set the variable first.
 */
export function statusTrailer(token: string): StatementNode {
  const assignment = { type: "Assignment", name: `${STATUS_VARIABLE}${token}`, value: status(), append: false, array: null };
  return statementOf({ type: "SimpleCommand", name: null, args: [], assignments: [assignment], redirections: [] } as SimpleCommandNode);
}

/** The trailer's text: $? first (before anything changes it), then what only the shell itself can tell. */
export const TRAILER_SOURCE =
  `${COMMANDS.state} "$?" "$(compgen -A function 2>/dev/null)" ` +
  `"$(for __sandshell_f in $(compgen -A function 2>/dev/null); do type "$__sandshell_f"; done)" ` +
  `"$(declare -pa 2>/dev/null; declare -pA 2>/dev/null)"`;

/**
 * The full trailer with the line's token as its first argument: `__sandshell_state TOKEN "$?" …`. A command that calls
 * `__sandshell_state` itself does not know the token, so it cannot put state (arrays re-run as code) into the shell.
 */
export function stateTrailer(parsed: StatementNode, token: string): StatementNode {
  const trailer = structuredClone(parsed);
  (trailer.pipelines[0]?.commands[0] as SimpleCommandNode | undefined)?.args.unshift(literal(token));
  return trailer;
}

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
  /** Track function definitions (ids, unguessable, are allocated through `onFunction`). */
  onFunction?: (record: FunctionRecord) => string;
  /** Statements run first, silently (arrays carried over). */
  prelude?: StatementNode[];
  /** Appended at the end (the state trailer), chosen once the line is parsed. */
  trailer?: (ast: ScriptNode) => StatementNode;
  /** After each top-level statement, `__sandshell_release "$?"` (a job's: the large files it used are given back). */
  releaseAfterStatements?: boolean;
  /** After each statement whose output streams, `__sandshell_nounset "$?"` (the line may have `set -u` on). */
  nounsetCheck?: boolean;
  /**
   * A script a command of the line runs (`bash -c`, a script file, a sourced file): the terminal is its commands'
   * stdin only where the script itself got nothing on its stdin, as for a function's body.
   */
  script?: boolean;
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

/** The command reading the terminal instead of its stdin, when it is one that reads stdin; else null. */
function readingTerminal(c: SimpleCommandNode, name: string): SimpleCommandNode | CommandNode | null {
  if (name === "read") return rewriteRead(c);
  if (!readsTerminal(name, c.args)) return null;
  const lines = name === "head" ? headLines(c.args) : null;
  const device = lines === null ? DEVICES.tty : `${DEVICES.ttyCounted}lines-${lines}`;
  return { ...c, redirections: [...c.redirections, redirect(0, "<", device)] };
}

/** `$?`, as a word. */
function status(): WordNode {
  return { type: "Word", parts: [{ type: "DoubleQuoted", parts: [{ type: "ParameterExpansion", parameter: "?", operation: null }] }] };
}

/** `{ BEFORE ARGS; CMD; AFTER "$?"; }`: AFTER exits with CMD's status. */
function around(c: SimpleCommandNode, before: string, after: string, args: WordNode[] = []): CommandNode {
  return group([statementOf(simple(before, args)), statementOf(c), statementOf(simple(after, [status()]))]);
}

/**
 * `bash -c TEXT`, `sh FILE`, `bash` (not `-n`: syntaxOnly): just-bash runs the script as a command line of its own,
 * which the transform plugin sees; the markers around tell the plugin that such a script's text is coming (it is
 * rewritten with RewriteOptions.script).
 */
function scriptLine(c: SimpleCommandNode): CommandNode {
  return around(c, COMMANDS.script, COMMANDS.scriptEnd);
}

/**
 * `source FILE`, `. FILE`, `./FILE`: just-bash reads the file and parses it itself, past any transform plugin, so the
 * file's text is rewritten as it is read (interpreter.ts): the markers around arm that for the next read of FILE
 * (the same word, expanded alike) and disarm it after.
 */
function scriptFile(c: SimpleCommandNode, file: WordNode): CommandNode {
  return around(c, COMMANDS.scriptFile, COMMANDS.scriptFileEnd, [file]);
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
    if (!this.options.nounsetCheck) return wrapped;
    // `{ { s; } >>OUT 2>&1; __sandshell_nounset "$?"; }`: the check comes once the statement's output is out
    return statementOf(group([wrapped, statementOf(simple(COMMANDS.nounset, [status()]))]), s.sourceText ?? "");
  }

  private command(c: CommandNode, ctx: Ctx): CommandNode {
    if (c.type === "SimpleCommand") return this.simpleCommand(c as unknown as SimpleCommandNode, ctx) as CommandNode;
    if (c.type === "FunctionDef") return this.functionDef(c as unknown as FunctionDefNode);
    if (COMPOUND.has(c.type)) return this.compound(c, ctx);
    return c;
  }

  private simpleCommand(c: SimpleCommandNode, ctx: Ctx): SimpleCommandNode | CommandNode {
    if (syntaxOnly(c)) return { ...c, name: literal(COMMANDS.syntax) };
    if (!this.options.tty) return c;
    const name = literalText(c.name);
    if (name === null) return c;
    // a script's own stdin decides where its commands read (piped: the pipe; else the terminal)
    if (name.includes("/")) return scriptFile(c, c.name as WordNode);
    if (name === "source" || name === ".") {
      const file = literalText(c.args[0]) === "--" ? c.args[1] : c.args[0];
      return file === undefined ? c : scriptFile(c, file);
    }
    if (name === "bash" || name === "sh") return scriptLine(c);
    if (hasInputRedirect(c.redirections)) return c;
    if (ctx.tty) return readingTerminal(c, name) ?? c;
    if (ctx.ttyIfNoStdin !== true) return c;
    const reading = readingTerminal(c, name);
    if (reading === null) return c;
    // if __sandshell_no_stdin; then CMD < terminal; else CMD; fi
    return {
      type: "If",
      clauses: [{ condition: [statementOf(simple(COMMANDS.noStdin))], body: [statementOf(reading)] }],
      elseBody: [statementOf(c)],
      redirections: [],
    } as unknown as CommandNode;
  }

  private functionDef(f: FunctionDefNode): CommandNode {
    // statements inside the body run wherever the function is called: no streaming, no terminal; nested definitions
    // are tracked too
    const body = this.compound(f.body, { stream: false, tty: false, ttyIfNoStdin: true });
    const node: FunctionDefNode = { ...f, body };
    const onFunction = this.options.onFunction;
    if (onFunction === undefined) return node as unknown as CommandNode;
    const id = onFunction({ name: f.name, text: this.texts.get(f) ?? "", node });
    return group([statementOf(node as unknown as CommandNode), statementOf(simple(COMMANDS.fn, [literal(id)]))]);
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
  const top = options.script === true ? { stream: options.stream, tty: false, ttyIfNoStdin: true } : { stream: options.stream, tty: options.tty };
  let statements = new Rewriter(options, texts).statements(ast.statements, top);
  if (options.releaseAfterStatements === true) {
    // `s; __sandshell_release "$?"` for each top-level statement: what it read or wrote is given back before the next
    statements = statements.flatMap((s) => [s, statementOf(simple(COMMANDS.release, [status()]))]);
  }
  const prelude = options.prelude ?? [];
  return {
    ...ast,
    statements: [
      ...(prelude.length > 0 ? [statementOf(group(prelude, [redirect(null, ">", "/dev/null"), redirect(2, ">&", "1")]))] : []),
      ...statements,
      ...(options.trailer ? [options.trailer(ast)] : []),
    ],
  };
}

/** Every FunctionDef in a parsed script (for restoring definitions from source text). */
export function findFunctionDefs(ast: ScriptNode): FunctionDefNode[] {
  const map = new Map<FunctionDefNode, string>();
  collectFunctionTexts(ast.statements, map);
  return [...map.keys()];
}
