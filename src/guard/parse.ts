// tree-sitter-bash → Script facts: the analyzer, the entry of the parse. It finds every simple command anywhere
// in a script (lists, pipelines, subshells, groups, function bodies, $(…), backticks, <(…), heredoc bodies) and
// unpacks code that other commands run (`bash -c '…'`, `eval '…'`, `find -exec`, text piped or fed into a
// shell), so that the rules judge what will really run. Here: one check's state and budgets, and `run`, which
// parses a text (the script, or code found inside it) and hands it to a walk. The parts, each in its file:
//   walk.ts, plain-walk.ts   the walk of tree-sitter's tree, and of the fast path's statements (plain.ts)
//   branching.ts             if/case/loops in the tree walk: walked twice, the second walk only as far as it differs
//   words.ts                 words as bash expands them (quotes, variables, braces, ~, IFS splitting, globs)
//   assignments.ts           NAME=value, alone, before a command, or given to a declaration builtin
//   declarations.ts          export, declare, typeset, local, readonly, unset
//   redirects.ts             redirects and heredocs
//   evaluated-text.ts        text bash evaluates: arithmetic, subscripts, ${…} forms
//   command-effects.ts       what follows from a command: the state it changes, the code it runs
//   analysis.ts              what they share: the context of a statement, the facts, the script's own changes
//   source-text.ts           source text bash and tree-sitter read differently, checked on the text
//   syntax-error.ts          a syntax error described for the model

import type { Parser, Tree } from "web-tree-sitter";
import { GUARD } from "../limits.ts";
import type { Command, FunctionDef, Script } from "./facts.ts";
import type { ParserMemory } from "./language.ts";
import { parsePlain } from "./plain.ts";
import { longestPipeline } from "./pipelines.ts";
import { Scope } from "./scope.ts";
import { copyTree, type SyntaxNode } from "./tree.ts";
import type { Analysis, AnalyzeOptions, Ctx, FunctionEffects } from "./analysis.ts";
import { walkPlain } from "./plain-walk.ts";
import { walk } from "./walk.ts";
import { commentAfterContinuation, readWriteAsRead } from "./source-text.ts";
import { describeSyntaxError } from "./syntax-error.ts";

export class ScriptAnalyzer implements Analysis {
  /** Set per check: what `~` means. */
  home = "/";
  /** Set per check: characters of code still to be parsed (the command and code inside it) before giving up. */
  parseBudget = 0;
  /** Set per check: characters arithmetic may still read (values it reads as expressions included). */
  arithBudget = { left: 0 };
  script!: Script;
  options!: AnalyzeOptions;
  nextId = 0;
  nextPipeline = 0;
  fnVersion = 0;
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
      walk(this, copy, ctx, source, where);
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

}
