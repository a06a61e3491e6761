// What one analysis (the analyzer, parse.ts) shares with the parts of its walk: the options of a check, the
// context a statement is walked in, the facts recorded so far, and what the script's own commands change (its
// variables, its directory, what its functions change for their callers).

import { variableOf, type Command, type FunctionDef, type Redirect, type Script, type Word } from "./facts.ts";
import type { Scope } from "./scope.ts";
import type { SyntaxNode } from "./tree.ts";

export interface AnalyzeOptions {
  cwd: string;
  home: string;
  /** How deep `bash -c` / `eval` strings are unpacked before giving up. */
  maxNestedDepth: number;
  /** Parse plain commands without tree-sitter (default). Off only to compare the two paths in tests. */
  fastPath?: boolean;
  /**
   * Walk a branch or loop the second time in full, even from where it would only repeat the first walk (by
   * default it stops there: branching.ts). On only to compare the two in tests.
   */
  fullRewalk?: boolean;
}

/** Where a statement is walked: its variables and directory, and where it stands (pipeline, owner, function, depth). */
export interface Ctx {
  scope: Scope;
  pipeline: Command["pipeline"];
  owner: Command | null;
  via: string | null;
  fn: string | null;
  depth: number;
  background: boolean;
  /** Branching statements this one is inside. */
  branches?: number;
  /** Text that runs later, if ever (an alias value): judged when it parses, but a syntax error in it refuses nothing. */
  lenient?: boolean;
  /** Inside a loop without end whose body never pauses. */
  endless?: boolean;
}

/** One step of the walk: a node to walk in its context, or what to do once the steps pushed after it are done. */
export type Task = { node: SyntaxNode; ctx: Ctx } | (() => void);

/** What calling a function of the script does to the caller's state. */
export interface FunctionEffects {
  names: Set<string>;
  cwd: boolean;
  opaque: boolean;
}

/** One check's state (the analyzer, parse.ts), as the parts of its walk use it. Set anew for each check. */
export interface Analysis {
  /** What `~` means. */
  readonly home: string;
  readonly script: Script;
  readonly options: AnalyzeOptions;
  nextId: number;
  nextPipeline: number;
  /** Characters arithmetic may still read (values it reads as expressions included). */
  readonly arithBudget: { left: number };
  /** Characters of code still to be parsed (the command and code inside it) before giving up. */
  parseBudget: number;
  /**
   * Counts changes to what the script's functions are known to do (a definition, a caller's effects, a call of a
   * function to itself): a loop's second walk can be skipped only where none happened since (walk.ts, branching).
   */
  fnVersion: number;
  /** Redirects tree-sitter put on a list or pipeline, by the command bash gives them to. */
  readonly trailing: Map<SyntaxNode, SyntaxNode[]>;
  /** Commands that may run in other directories too (an earlier `cd` may have failed), by command. */
  readonly otherCwds: Map<Command, readonly string[]>;
  /** What each function of the script changes when called. */
  readonly effects: Map<string, FunctionEffects>;
  /** The last definition of each function, by name. */
  readonly lastDef: Map<string, FunctionDef>;
  /** Parses `source` and walks it; nested code (bash -c strings) comes back here with depth + 1. */
  run(source: string, ctx: Ctx, where: string | undefined): void;
}

/** Node types that are neither statements nor words: the walk passes over them. */
export const SKIP = new Set(["comment", "heredoc_start", "heredoc_end", "variable_name", "file_descriptor"]);

/** The context of code a command runs (`bash -c`, `eval`, find -exec, a shell's stdin): one level deeper. */
export function nested(ctx: Ctx): Ctx {
  return { ...ctx, scope: ctx.scope.fork(), pipeline: null, owner: null, depth: ctx.depth + 1, background: false };
}

/** A new command fact, recorded in the script, standing where `ctx` says. */
export function makeCommand(a: Analysis, text: string, argv: Word[], redirects: Redirect[], ctx: Ctx): Command {
  ctx.scope.lastCd = null;
  const fact: Command = {
    id: a.nextId++,
    text,
    argv,
    assignments: [],
    redirects,
    cwd: ctx.scope.cwd,
    pipeline: ctx.pipeline,
    owner: ctx.owner,
    via: ctx.via,
    fn: ctx.fn,
    background: ctx.background,
    depth: ctx.depth,
  };
  if (ctx.endless) fact.endlessLoop = true;
  a.script.commands.push(fact);
  if (ctx.scope.cwd !== null && ctx.scope.alts.length) a.otherCwds.set(fact, ctx.scope.alts);
  return fact;
}

/** Records that the function being walked (if any) changes `what` for its callers. */
export function affects(a: Analysis, ctx: Ctx, what: { name?: string; cwd?: boolean; opaque?: boolean }): void {
  if (ctx.fn === null) return;
  let e = a.effects.get(ctx.fn);
  if (!e) {
    a.effects.set(ctx.fn, (e = { names: new Set(), cwd: false, opaque: false }));
    a.fnVersion++;
  }
  if (what.name !== undefined && !e.names.has(what.name)) {
    e.names.add(what.name);
    a.fnVersion++;
  }
  if (what.cwd && !e.cwd) {
    e.cwd = true;
    a.fnVersion++;
  }
  if (what.opaque && !e.opaque) {
    e.opaque = true;
    a.fnVersion++;
  }
}

/** `fact` sets or unsets the shell variable `name` (not exported): its value is unknown from here on. */
export function shellAssigns(a: Analysis, fact: Command, ctx: Ctx, name: string, numeric = false): void {
  forget(a, ctx, name, numeric);
  (fact.shellAssigns ??= []).push(name);
}

/** The variable `name` is no longer known (for an element, `x[0]`, its array). */
export function forget(a: Analysis, ctx: Ctx, name: string, numeric = false): void {
  // `read 'x[0]'`, `printf -v 'x[0]'`, `unset 'x[0]'`: `$x` is element 0, so it is x that is no longer known.
  const base = variableOf(name) ?? name;
  ctx.scope.forget(base, numeric && base === name);
  affects(a, ctx, { name: base });
}
