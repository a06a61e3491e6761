// tree-sitter-bash → Script facts. Walks every simple command anywhere in a script (lists, pipelines,
// subshells, groups, function bodies, $(…), backticks, <(…), heredoc bodies) and unpacks code that other
// commands run (`bash -c '…'`, `eval '…'`, `find -exec`, text piped or fed into a shell), so that the
// rules judge what will really run. Iterative, so that deep nesting cannot overflow the stack.

import type { Parser, Tree } from "web-tree-sitter";
import { GUARD } from "../limits.ts";
import type { ParserMemory } from "./language.ts";
import { longestPipeline } from "./pipelines.ts";
import { copyTree, type SyntaxNode } from "./tree.ts";
import { affects, forget, makeCommand, nested, shellAssigns, SKIP, type Analysis, type AnalyzeOptions, type Ctx, type FunctionEffects, type Task } from "./analysis.ts";
import { DYN, variableOf, type Command, type FunctionDef, type Redirect, type Script, type SyntaxProblem, type Word } from "./facts.ts";
import { findExecs, inlineCode, literalWord, parseArgs, programName, programSource, SHELLS, unwrap, type Effective } from "./commands.ts";
import { embeddedCode } from "./embedded.ts";
import { argumentCommands } from "./unknown-programs.ts";
import { resolvePath } from "./paths.ts";
import { cdTarget, DYN_NUM, Scope, type ScopeState } from "./scope.ts";
import { checkArithmetic, expandArithmetic, substitutions } from "./arith.ts";
import { parsePlain, type PlainStatement, type PlainWord } from "./plain.ts";
import { describeSyntaxError } from "./syntax-error.ts";
import { arith, evaluatedName, expansionCode, testCode } from "./evaluated-text.ts";
import { assignment, assignValue, compoundValue, type DeclaredArray } from "./assignments.ts";
import { declarationCommand, declares, DECLARES } from "./declarations.ts";
import { redirect } from "./redirects.ts";
import { finish } from "./command-effects.ts";
import { walkPlain } from "./plain-walk.ts";
import { asDoubleQuoted, commentAfterContinuation, dollarBraceEnd, readWriteAsRead } from "./source-text.ts";
import { appendWords, fields, lookupVar, plainWords, word, type WordMode } from "./words.ts";

/** `while true`, `while :`, `until false`, `for ((;;))`: a loop that never ends by itself, and whose body never pauses. */
function endlessLoop(node: SyntaxNode): boolean {
  const body = node.children.find((c) => c.type === "do_group");
  // A pause (or a way out) that is not itself sent to the background: `sleep 5;`, `wait`, `read x`, `break`.
  if (!body || /\b(?:sleep|wait|read|break|exit|return)\b[^;&|\n]*(?:;|\n|&&|\|\||\bdone\b|$)/.test(body.text)) return false;
  if (node.type === "c_style_for_statement") return /^for\s*\(\([^;]*;\s*;/.test(node.text);
  if (node.type !== "while_statement") return false;
  const keyword = node.children[0]?.type;
  const condition = node.namedChildren[0]?.text.trim() ?? "";
  return keyword === "until" ? /^false$/.test(condition) : /^(?:true|:|\[ 1 \]|\[\[ 1 \]\]|\(\( *1 *\)\))$/.test(condition);
}

/** Statements whose parts may run in any order, any number of times, or not at all. */
const BRANCHING = new Set(["if_statement", "case_statement", "while_statement", "for_statement", "c_style_for_statement"]);
/** How deep branches are walked twice (once with the state before, once with every state they may see). */
const MAX_REWALK_DEPTH = 3;

/**
 * tree-sitter hangs a trailing redirect on a whole list or pipeline (`cd B && find . >> f`); bash
 * applies it to the last command only. The command that really receives it, or null.
 */
function redirectReceiver(body: SyntaxNode): SyntaxNode | null {
  let n: SyntaxNode | undefined = body;
  while (n && (n.type === "list" || n.type === "pipeline")) n = n.namedChildren.filter((c) => !SKIP.has(c.type)).at(-1);
  return n?.type === "command" ? n : null;
}

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const SUBSTITUTIONS = new Set(["command_substitution", "process_substitution"]);

export class ScriptAnalyzer implements Analysis {
  nextId = 0;
  nextPipeline = 0;
  /** Redirects tree-sitter put on a list or pipeline, by the command bash gives them to. */
  trailing = new Map<SyntaxNode, SyntaxNode[]>();
  /** Commands that may run in other directories too (an earlier `cd` may have failed), by command. */
  otherCwds = new Map<Command, readonly string[]>();
  /** What each function of the script changes when called. */
  effects = new Map<string, FunctionEffects>();
  /** The last definition of each function, by name. */
  lastDef = new Map<string, FunctionDef>();

  constructor(
    private readonly parser: Parser,
    /** The parser's memory (language.ts), for the budget of a parse. */
    private readonly memory: ParserMemory = { bytes: () => 0, limit: () => {} },
  ) {}

  /**
   * tree-sitter's parse of `source` within GUARD's parse budget, or a string saying why it was not parsed (the
   * parser is reset for the next one). A long pipeline is refused unparsed (pipelines.ts); a parse that passes
   * its memory or time budget is stopped at the next progress callback, and one that grows past twice its memory
   * budget in one step is aborted by the memory itself.
   */
  private parse(original: string): Tree | string {
    const source = readWriteAsRead(original);
    const stages = source.length > 2 * GUARD.maxPipelineStages ? longestPipeline(source) : 0;
    if (stages === Infinity) return "it has a heredoc whose delimiter is not plain (the guard reads `EOF`, `'EOF'` or `\"EOF\"`)";
    if (stages > GUARD.maxPipelineStages) {
      return `it holds a pipeline of ${stages} stages, more than the ${GUARD.maxPipelineStages} the guard reads (its parser's time and memory grow with the square of a pipeline's length): split it, or write it to a file and run that`;
    }
    if (source.length < GUARD.parseBudgetFromChars) return this.parser.parse(source) ?? "the parser gave up on this input";
    const memoryFrom = this.memory.bytes();
    const memoryBudget = GUARD.parseMemoryBaseBytes + GUARD.parseMemoryBytesPerChar * source.length;
    const timeFrom = performance.now();
    const timeBudget = GUARD.parseTimeBaseMs + (GUARD.parseTimeMsPerKiB * source.length) / 1024;
    const mb = Math.round(memoryBudget / 2 ** 20);
    let over: string | null = null;
    let tree: Tree | null = null;
    this.memory.limit(memoryFrom + 2 * memoryBudget);
    try {
      tree = this.parser.parse(source, null, {
        progressCallback: () => {
          if (this.memory.bytes() - memoryFrom > memoryBudget) over = `its parse needed more than ${mb} MB`;
          else if (performance.now() - timeFrom > timeBudget) over = `its parse took more than ${Math.round(timeBudget / 1000)} s`;
          return over !== null;
        },
      });
    } catch {
      over = `its parse needed more than ${2 * mb} MB at once`;
    } finally {
      this.memory.limit(Infinity);
    }
    if (tree) return tree;
    this.parser.reset();
    return `${over ?? "the parser gave up on this input"}: split it into shorter commands, or write it to a file and run that`;
  }

  analyze(source: string, options: AnalyzeOptions): Script {
    this.nextId = 0;
    this.nextPipeline = 0;
    // Map.clear() allocates a new table even when empty; most scripts leave these empty.
    if (this.trailing.size) this.trailing.clear();
    if (this.otherCwds.size) this.otherCwds.clear();
    if (this.effects.size) this.effects.clear();
    if (this.lastDef.size) this.lastDef.clear();
    this.home = options.home;
    this.parseBudget = GUARD.parsedCharsPerChar * source.length + GUARD.parsedCharsBase;
    this.arithBudget = { left: GUARD.parsedCharsPerChar * source.length + GUARD.parsedCharsBase };
    const script: Script = { commands: [], functions: [], problem: null, incomplete: null };
    this.script = script;
    this.options = options;
    const scope = new Scope(options.cwd, null);
    const ctx: Ctx = { scope, pipeline: null, owner: null, via: null, fn: null, depth: 0, background: false };
    this.run(source, ctx, undefined);
    // A command that may run in several directories is judged in each: one copy per other directory.
    for (const [fact, cwds] of this.otherCwds) {
      for (const cwd of cwds) script.commands.push({ ...fact, id: this.nextId++, cwd });
    }
    return script;
  }

  /** Parses `source` and walks it; nested code (bash -c strings) comes back here with depth + 1. */
  run(source: string, ctx: Ctx, where: string | undefined): void {
    const script = this.script;
    const options = this.options;
    if (ctx.depth > options.maxNestedDepth) {
      script.incomplete ??= `code is nested more than ${options.maxNestedDepth} levels deep (${where ?? "bash -c"})`;
      return;
    }
    // Code inside code (`bash -c "$x"`, `eval`, a trap) is parsed again; a variable's value can be used as code
    // many times, so all of it together gets a budget linear in the command's size.
    if ((this.parseBudget -= source.length) < 0) {
      script.incomplete ??= `it holds more code inside code than the guard reads (${GUARD.parsedCharsPerChar} times its size): split it into shorter commands`;
      return;
    }
    const plain = options.fastPath === false ? null : parsePlain(source);
    if (plain) {
      walkPlain(this, plain, ctx);
      return;
    }
    if (ctx.lenient) {
      const bad = this.parsesBadly(source);
      if (typeof bad === "string") script.incomplete ??= bad;
      if (bad) return;
    }
    const joined = commentAfterContinuation(source);
    if (joined !== null) {
      const lines = source.slice(0, joined).split("\n");
      script.problem ??= {
        line: lines.length,
        column: lines[lines.length - 1]!.length + 1,
        cause: "a backslash at the end of this line joins the `#` on the next one to the word before it, so bash does not read a comment there (the guard's parser does): remove the backslash, or put a space before it",
        ...(where ? { where } : {}),
      };
      return;
    }
    const tree = this.parse(source);
    if (typeof tree === "string") {
      script.incomplete ??= tree;
      return;
    }
    try {
      const root = tree.rootNode;
      if (root.hasError) {
        script.problem ??= { ...describeSyntaxError(root, source), ...(where ? { where } : {}) };
        return;
      }
      const copy = copyTree(tree, source, GUARD.maxSyntaxDepth);
      if (!copy) {
        script.incomplete ??= `it is nested more than ${GUARD.maxSyntaxDepth} levels deep (the guard reads some text once per level that holds it): split it into shorter commands`;
        return;
      }
      this.walk(copy, ctx, script, options, source, where);
    } finally {
      tree.delete();
    }
  }

  /** Whether tree-sitter finds a syntax error in `source` (for text that may never run: then it is not judged). */
  private parsesBadly(source: string): boolean | string {
    const tree = this.parse(source);
    if (typeof tree === "string") return tree;
    try {
      return tree.rootNode.hasError;
    } finally {
      tree.delete();
    }
  }

  private walk(root: SyntaxNode, rootCtx: Ctx, script: Script, options: AnalyzeOptions, source: string, where: string | undefined): void {
    const stack: Task[] = [{ node: root, ctx: rootCtx }];
    // Pipelines whose stages were seen, to hand text from one stage to the shell in the next.
    const stages = new Map<number, Command[]>();
    const pushChildren = (children: readonly SyntaxNode[], ctx: Ctx) => {
      for (let i = children.length - 1; i >= 0; i--) {
        const c = children[i]!;
        if (!c.isNamed || SKIP.has(c.type)) continue;
        const bg = children[i + 1]?.type === "&";
        // `cd x &`, `x=1 &` run in a subshell: nothing they change reaches what follows.
        stack.push({ node: c, ctx: bg ? { ...ctx, background: true, scope: ctx.scope.fork() } : ctx });
      }
    };

    while (stack.length) {
      // Refused as too complex already: the rest would only cost time and memory.
      if (script.incomplete) return;
      const task = stack.pop()!;
      if (typeof task === "function") {
        task();
        continue;
      }
      const { node, ctx } = task;
      switch (node.type) {
        case "command":
          this.command(node, this.trailing.get(node) ?? [], ctx, script, options, stack, stages, source, where);
          break;
        case "redirected_statement": {
          const children = node.children;
          const body = children.find((c) => c.isNamed && !REDIRECTS.has(c.type));
          const redirects = children.filter((c) => REDIRECTS.has(c.type));
          const receiver = body ? redirectReceiver(body) : null;
          if (body && receiver) {
            this.trailing.set(receiver, redirects);
            stack.push({ node: body, ctx });
          } else {
            // `{ …; } > file`, `while …; done < f`: the redirects still write.
            const bare = makeCommand(this, node.text, [], [], ctx);
            const words: SyntaxNode[] = [];
            for (const r of redirects) redirect(this, r, bare, ctx, words, source, where);
            this.pushWords(words, bare, ctx, stack);
            if (body) stack.push({ node: body, ctx });
          }
          break;
        }
        case "pipeline":
          this.pipeline(node, ctx, stack);
          break;
        case "subshell":
          pushChildren(node.children, { ...ctx, scope: ctx.scope.fork() });
          break;
        case "command_substitution":
        case "process_substitution": {
          // tree-sitter reads `a` `b` as ONE substitution "a` `b"; judging that would miss b entirely. Fail closed.
          const text = node.text;
          if (text.startsWith("`") && /(?<!\\)`/.test(text.slice(1, -1))) {
            script.incomplete ??= "two backtick substitutions in one command are misread by the parser: write them as $(…) instead";
            break;
          }
          pushChildren(node.children, { ...ctx, scope: ctx.scope.fork(), pipeline: null, background: false });
          break;
        }
        case "function_definition": {
          const nameNode = node.childForFieldName("name");
          const name = nameNode?.text ?? "";
          const def: FunctionDef = { name, text: node.text, selfCalls: 0, selfForks: false, redirect: /[})]\s*(?:\d*[<>]|&>)[^{}()]*$/.test(node.text) };
          script.functions.push(def);
          this.lastDef.set(name, def);
          const body = node.childForFieldName("body");
          // The body runs when the function is called, in whatever state the caller is then: all unknown.
          const scope = ctx.scope.fork();
          scope.forgetAll();
          this.effects.set(name, { names: new Set(), cwd: false, opaque: false });
          if (body) stack.push({ node: body, ctx: { ...ctx, scope, fn: name, pipeline: null } });
          break;
        }
        case "list": {
          // `a && b`, `a || b`: b may not run, and after the list either may have been last.
          const [left, op, right] = node.children.filter((c) => !SKIP.has(c.type));
          if (!left || !op || !right) {
            pushChildren(node.children, ctx);
            break;
          }
          const before = ctx.scope.snapshot();
          let middle: ScopeState | null = null;
          stack.push(() => ctx.scope.mergeList(op.type, middle ? [before, middle] : [before]));
          stack.push({ node: right, ctx });
          stack.push(() => {
            middle = ctx.scope.snapshot();
            if (op.type === "&&") ctx.scope.assumeCdWorked();
            else if (ctx.scope.lastCd) ctx.scope.restore(before); // `cd x || …`: the cd failed
          });
          stack.push({ node: left, ctx });
          break;
        }
        case "variable_assignment":
        case "variable_assignments": {
          const assigns = node.type === "variable_assignment" ? [node] : node.namedChildren.filter((c) => c.type === "variable_assignment");
          const fact = makeCommand(this, node.text, [], [], ctx);
          const words: SyntaxNode[] = [];
          for (const a of assigns) assignment(this, a, fact, ctx, words, true);
          this.pushWords(words, fact, ctx, stack);
          break;
        }
        case "declaration_command":
        case "unset_command": {
          const words: SyntaxNode[] = [];
          const fact = declarationCommand(this, node, ctx, words, where);
          this.pushWords(words, fact, ctx, stack);
          break;
        }
        case "compound_statement":
        case "arithmetic_expansion": {
          const open = node.children[0]?.type;
          if (open === "((" || open === "$((" || open === "$[") {
            const fact = makeCommand(this, node.text, [], [], ctx);
            const body = node.text.slice(open.length, open === "$[" ? -1 : -2);
            arith(this, body, false, open === "((" ? "(( ))" : `${open}…${open === "$[" ? "]" : "))"}`, fact, ctx);
          }
          pushChildren(node.children, ctx);
          break;
        }
        case "expansion": {
          // tree-sitter reads a single quote inside `${…}` as opening a string where bash does not
          // (`${x#\'} $(cmd) ${x#\'}`, `"${x:-$'}" $(cmd) "${x:-$'}"`): it then swallows the command. Fail closed.
          if ((node.text.includes("'") || node.text.indexOf("{", 2) >= 0) && dollarBraceEnd(node.text) !== node.text.length) {
            script.problem ??= {
              line: node.startPosition.row + 1,
              column: node.startPosition.column + 1,
              cause: "bash and the guard's parser would end this ${…} at different places (a single quote or a `{` inside it): put the pattern or value in a variable first",
              ...(where ? { where } : {}),
            };
            break;
          }
          if (/[:[@!=]/.test(node.text)) {
            const fact = makeCommand(this, node.text, [], [], ctx);
            expansionCode(this, node, fact, ctx);
          }
          this.unparsedCode(node, ctx, script, options, "${…}");
          pushChildren(node.children, ctx);
          break;
        }
        case "simple_expansion": {
          // `"$ $(cmd)"`: tree-sitter reads `$ $` as one parameter and swallows the `$` of `$(`.
          if (/\$$/.test(node.namedChildren[0]?.text ?? "") && /\$\s/.test(node.text)) {
            script.problem ??= { line: node.startPosition.row + 1, column: node.startPosition.column + 1, cause: "a `$` followed by a blank is read differently by bash and the guard's parser: write `\\$` for a literal dollar sign", ...(where ? { where } : {}) };
            break;
          }
          pushChildren(node.children, ctx);
          break;
        }
        case "test_command": {
          const fact = makeCommand(this, node.text, [], [], ctx);
          testCode(this, node, fact, ctx);
          this.unparsedCode(node, ctx, script, options, "[[ … =~ … ]]");
          pushChildren(node.children, ctx);
          break;
        }
        default:
          if (BRANCHING.has(node.type)) this.branching(node, ctx, stack, script, pushChildren);
          else pushChildren(node.children, ctx);
      }
    }
  }

  /**
   * if/case/loops: a branch may see what another branch set, a loop body what its last round set. The
   * statement is walked with the state before it, then once more with every state it may leave (a
   * variable set inside is unknown, the directory any it may have changed to); both walks are judged.
   */
  private branching(node: SyntaxNode, ctx: Ctx, stack: Task[], script: Script, pushChildren: (children: readonly SyntaxNode[], ctx: Ctx) => void): void {
    const depth = (ctx.branches ?? 0) + 1;
    // (A loop that is itself sent to the background, `(while :; do …; done | x &)`, is one job, not a job per round.)
    const inner: Ctx = { ...ctx, branches: depth, ...(endlessLoop(node) && !ctx.background ? { endless: true } : {}) };
    const before = ctx.scope.snapshot();
    const loopVar = node.type === "for_statement" ? node.childForFieldName("variable")?.text : undefined;
    // `select x in …` also reads the line typed into REPLY.
    const select = node.type === "for_statement" && node.children[0]?.type === "select";
    const walkOnce = (): void => {
      // `for PATH in /tmp/x; do ls; done` runs /tmp/x/ls: the loop variable is set like any other.
      if (loopVar) shellAssigns(this, makeCommand(this, `${select ? "select" : "for"} ${loopVar}`, [], [], inner), ctx, loopVar);
      if (select) forget(this, ctx, "REPLY");
      if (node.type === "c_style_for_statement") {
        // The header `((init; test; step))` is arithmetic.
        const open = node.children.find((c) => c.type === "((");
        const close = node.children.find((c) => c.type === "))");
        if (open && close) {
          const fact = makeCommand(this, node.text.slice(0, close.endIndex - node.startIndex), [], [], inner);
          for (const part of node.text.slice(open.endIndex - node.startIndex, close.startIndex - node.startIndex).split(";")) arith(this, part, false, "for (( ))", fact, inner);
        }
        // Its substitutions still run; its `i=0` is arithmetic (done above), not a plain assignment.
        pushChildren(node.children.flatMap((c) => (c.type === "variable_assignment" ? c.namedChildren.slice(1) : [c])), inner);
        return;
      }
      pushChildren(node.children, inner);
    };
    if (depth > MAX_REWALK_DEPTH) {
      // Too deep to walk twice: everything it may change is unknown from the start.
      ctx.scope.forgetAll();
      affects(this, ctx, { opaque: true });
      walkOnce();
      return;
    }
    stack.push(() => {
      ctx.scope.merge([before]);
      const merged = ctx.scope.snapshot();
      stack.push(() => ctx.scope.merge([before, merged]));
      walkOnce();
    });
    walkOnce();
    void script;
  }

  private pipeline(node: SyntaxNode, ctx: Ctx, stack: Task[]): void {
    const parts = node.children.filter((c) => c.isNamed && !SKIP.has(c.type));
    const id = this.nextPipeline++;
    for (let i = parts.length - 1; i >= 0; i--) {
      const pipeline = { id, index: i, size: parts.length };
      stack.push({ node: parts[i]!, ctx: { ...ctx, scope: ctx.scope.fork(), pipeline } });
    }
  }

  /** Substitutions inside a command's words run as commands of their own, owned by it. */
  private pushWords(words: SyntaxNode[], owner: Command, ctx: Ctx, stack: Task[]): void {
    let sub: Ctx | null = null;
    for (let i = words.length - 1; i >= 0; i--) {
      const w = words[i]!;
      const text = w.text;
      // `${PATH:=/tmp/x}` and `${PATH=…}` assign PATH in the shell that expands the word.
      // `${PATH[0]:=…}` assigns PATH too (element 0 is the variable).
      if (text.includes("${")) for (const m of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?:?=/g)) shellAssigns(this, owner, ctx, m[1]!);
      if (text.includes("$") || text.includes("`") || text.includes("<(") || text.includes(">(")) {
        sub ??= { ...ctx, scope: ctx.scope.fork(), owner, pipeline: null, background: false };
        stack.push({ node: w, ctx: sub });
      }
    }
  }

  /**
   * Text tree-sitter leaves unparsed inside `${x%PATTERN}`, `${x:-WORD}` and `[[ x =~ RE ]]`: bash expands it,
   * substitutions and all (`${x%$(rm -rf /)}` runs rm). When it holds `$(`, a backtick or `<(`, it is parsed
   * on its own, as the word it is, and its commands are judged.
   */
  private unparsedCode(node: SyntaxNode, ctx: Ctx, script: Script, options: AnalyzeOptions, label: string): void {
    for (const c of node.namedChildren) {
      if ((c.type === "regex" || c.type === "word") && /\$\(|`|[<>]\(/.test(c.text)) {
        // As a double-quoted string: a newline or `#` in it is text, not the end of a command or a comment.
        this.run(`: "${asDoubleQuoted(c.text)}"`, { ...nested(ctx), via: label }, `in ${label}`);
      }
    }
  }

  private command(
    node: SyntaxNode,
    outerRedirects: readonly SyntaxNode[],
    ctx: Ctx,
    script: Script,
    options: AnalyzeOptions,
    stack: Task[],
    stages: Map<number, Command[]>,
    source: string,
    where: string | undefined,
  ): void {
    const fact = makeCommand(this, node.text, [], [], ctx);
    if (outerRedirects.length) fact.text = source.slice(node.startIndex, outerRedirects[outerRedirects.length - 1]!.endIndex);
    const words: SyntaxNode[] = [];
    const later: SyntaxNode[] = [];
    let lastEnd = -1;
    for (const c of node.children) {
      if (!c.isNamed || SKIP.has(c.type)) continue;
      if (c.type === "regex") {
        // `echo =~&&* $(cmd)`: outside [[ ]] bash has no `=~`; tree-sitter takes the rest of the line for a regex.
        script.problem ??= { line: c.startPosition.row + 1, column: c.startPosition.column + 1, cause: "the guard's parser reads `=~` here as the regex test of [[ ]], which bash does not: quote it ('=~')", ...(where ? { where } : {}) };
        return;
      }
      if (c.type === "variable_assignment") assignment(this, c, fact, ctx, words, false);
      else if (REDIRECTS.has(c.type)) redirect(this, c, fact, ctx, words, source, where, later);
      else {
        const inner = c.type === "command_name" ? (c.namedChildren[0] ?? c) : c;
        const ws = fields(inner, ctx.scope, this.home, "argv");
        // Bash drops a backslash-newline inside a word (`r\<newline>m` is rm); tree-sitter splits the word there. It
        // also splits `a[\$\(x\)]` after the `[`, with nothing between the parts: to bash that is one word.
        const gap = lastEnd >= 0 ? source.slice(lastEnd, c.startIndex) : null;
        appendWords(fact.argv, ws, gap === "\\\n" || gap === "" ? gap : null);
        words.push(inner);
        lastEnd = c.endIndex;
      }
    }
    for (const r of outerRedirects) redirect(this, r, fact, ctx, words, source, where, later);
    // `{NAME}>file`, `{NAME}<&0`: bash opens a descriptor and stores its number in NAME (in this shell, for a
    // builtin): `: {PATH}>/dev/null`, `: {BASH_CMDS[ls]}>f`. Read from the text, quotes and all (a quoted one only
    // asks more). The subscript of an element is evaluated.
    if (fact.text.includes("}>") || fact.text.includes("}<")) {
      for (const m of fact.text.matchAll(/(?:^|[\s;&|()])\{([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\}(?=[<>])/g)) {
        evaluatedName(this, literalWord(m[1]!), "a named descriptor", fact, ctx);
        shellAssigns(this, fact, ctx, m[1]!);
      }
    }
    // Things tree-sitter hangs under a heredoc redirect (`cat <<EOF | sh`, `cat <<EOF && x`) come after it.
    for (let i = later.length - 1; i >= 0; i--) {
      const n = later[i]!;
      if (n.type === "pipeline" && n.children[0]?.type === "|") {
        const id = this.nextPipeline++;
        const parts = n.children.filter((c) => c.isNamed && !SKIP.has(c.type));
        fact.pipeline = { id, index: 0, size: parts.length + 1 };
        stages.set(id, [fact]);
        for (let j = parts.length - 1; j >= 0; j--) {
          stack.push({ node: parts[j]!, ctx: { ...ctx, scope: ctx.scope.fork(), pipeline: { id, index: j + 1, size: parts.length + 1 } } });
        }
      } else stack.push({ node: n, ctx });
    }
    this.pushWords(words, fact, ctx, stack);
    finish(this, fact, ctx, stages);
  }

  /** Set per check: what `~` means. */
  home = "/";
  /** Set per check: characters of code still to be parsed (the command and code inside it) before giving up. */
  private parseBudget = 0;
  /** Set per check: characters arithmetic may still read (values it reads as expressions included). */
  arithBudget = { left: 0 };
  script!: Script;
  options!: AnalyzeOptions;

}
