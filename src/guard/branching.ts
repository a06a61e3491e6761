// Branching statements (if, case, loops) in the tree walk (walk.ts): a branch may see what another branch set, a
// loop's body what its last round set, so each is walked twice; the second walk stops where it would only repeat
// the first.

import type { Command } from "./facts.ts";
import type { ScopeMark } from "./scope.ts";
import type { SyntaxNode } from "./tree.ts";
import { affects, forget, makeCommand, shellAssigns, SKIP, type Analysis, type Ctx, type Task } from "./analysis.ts";
import { arith } from "./evaluated-text.ts";
import { unwrap } from "./wrappers.ts";

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
export const BRANCHING = new Set(["if_statement", "case_statement", "while_statement", "for_statement", "c_style_for_statement"]);
/** How deep branches are walked twice (once with the state before, once with every state they may see). */
const MAX_REWALK_DEPTH = 3;

/** What a walk from one statement on reads and changes besides the facts it records, as `mark` takes it. */
interface Mark {
  /** The statement about to be walked (null: the end of the walk). */
  node: SyntaxNode | null;
  scope: ScopeMark;
  nextId: number;
  /** How many commands the script had recorded. */
  commands: number;
  nextPipeline: number;
  parseBudget: number;
  arithBudget: number;
  otherCwds: number;
  fnVersion: number;
  /**
   * The command last recorded as the stage of the pipeline the statement stands in (a loop that is a stage,
   * `… | while read f; do …; done | sh`: its last command is what the next stage reads).
   */
  stage: Command | undefined;
}

function mark(a: Analysis, ctx: Ctx, stages: Map<number, Command[]>, node: SyntaxNode | null): Mark {
  const p = ctx.pipeline;
  return {
    node,
    scope: ctx.scope.mark(),
    nextId: a.nextId,
    commands: a.script.commands.length,
    nextPipeline: a.nextPipeline,
    parseBudget: a.parseBudget,
    arithBudget: a.arithBudget.left,
    otherCwds: a.otherCwds.size,
    fnVersion: a.fnVersion,
    stage: p ? stages.get(p.id)?.[p.index] : undefined,
  };
}

/** Statements whose children are a list of statements walked in order (the walk's default case): a loop's body, a branch. */
const SEQUENCES = new Set(["do_group", "else_clause", "elif_clause", "case_item"]);

/**
 * As `pushChildren`, with `at(child, skippable)` called just before each child is walked, and the statements of a
 * loop's body or a branch (SEQUENCES) pushed the same way when their turn comes (not before: a statement sent to
 * the background forks the state it is pushed in, so each is pushed when the walk would push it). For that same
 * reason a child is not `skippable` when a statement at or after it is sent to the background and the state may
 * have changed since they were pushed (any child but the first): that statement's walk does not start from the
 * state the walk is in at the child.
 */
function pushMarked(children: readonly SyntaxNode[], ctx: Ctx, stack: Task[], at: (node: SyntaxNode, skippable: boolean) => void): void {
  let first = -1;
  let lastBg = -1;
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    if (!c.isNamed || SKIP.has(c.type)) continue;
    if (first < 0) first = i;
    if (children[i + 1]?.type === "&") lastBg = i;
  }
  for (let i = children.length - 1; i >= 0; i--) {
    const c = children[i]!;
    if (!c.isNamed || SKIP.has(c.type)) continue;
    const bg = children[i + 1]?.type === "&";
    if (bg) stack.push({ node: c, ctx: { ...ctx, background: true, scope: ctx.scope.fork() } });
    else if (SEQUENCES.has(c.type)) stack.push(() => pushMarked(c.children, ctx, stack, at));
    else stack.push({ node: c, ctx });
    const skippable = i === first || i > lastBg;
    stack.push(() => at(c, skippable));
  }
}

/**
 * if/case/loops: a branch may see what another branch set, a loop body what its last round set. The
 * statement is walked with the state before it, then once more with every state it may leave (a
 * variable set inside is unknown, the directory any it may have changed to); both walks are judged.
 *
 * The second walk often reaches, at some statement of the body, the very state the first walk had there (a loop
 * whose body sets nothing, or only variables it sets again before reading them: `while read f; do d=$(dirname
 * "$f"); …`): from there on it would record the same facts again and end in the same state. So the first walk
 * marks the state before each statement of the body, and the second walk stops at the first statement whose mark
 * it matches, taking the first walk's end state, ids and budgets as if it had walked the rest. It does not stop
 * where the rest of the first walk changed what the script's functions do, or recorded a command that also runs
 * in other directories, or where the budgets would run out on the rest, or where a command since the first walk's
 * mark makes a link, or (in a pipeline) where the command the next stage reads would not be the same.
 */
export function branching(a: Analysis, node: SyntaxNode, ctx: Ctx, stack: Task[], stages: Map<number, Command[]>, pushChildren: (children: readonly SyntaxNode[], ctx: Ctx) => void): void {
  const depth = (ctx.branches ?? 0) + 1;
  // (A loop that is itself sent to the background, `(while :; do …; done | x &)`, is one job, not a job per round.)
  const inner: Ctx = { ...ctx, branches: depth, ...(endlessLoop(node) && !ctx.background ? { endless: true } : {}) };
  const before = ctx.scope.snapshot();
  const loopVar = node.type === "for_statement" ? node.childForFieldName("variable")?.text : undefined;
  // `select x in …` also reads the line typed into REPLY.
  const select = node.type === "for_statement" && node.children[0]?.type === "select";
  const walkOnce = (push: (children: readonly SyntaxNode[], ctx: Ctx) => void): void => {
    // `for PATH in /tmp/x; do ls; done` runs /tmp/x/ls: the loop variable is set like any other.
    if (loopVar) shellAssigns(a, makeCommand(a, `${select ? "select" : "for"} ${loopVar}`, [], [], inner), ctx, loopVar);
    if (select) forget(a, ctx, "REPLY");
    if (node.type === "c_style_for_statement") {
      // The header `((init; test; step))` is arithmetic.
      const open = node.children.find((c) => c.type === "((");
      const close = node.children.find((c) => c.type === "))");
      if (open && close) {
        const fact = makeCommand(a, node.text.slice(0, close.endIndex - node.startIndex), [], [], inner);
        for (const part of node.text.slice(open.endIndex - node.startIndex, close.startIndex - node.startIndex).split(";")) arith(a, part, false, "for (( ))", fact, inner);
      }
      // Its substitutions still run; its `i=0` is arithmetic (done above), not a plain assignment.
      push(node.children.flatMap((c) => (c.type === "variable_assignment" ? c.namedChildren.slice(1) : [c])), inner);
      return;
    }
    push(node.children, inner);
  };
  if (depth > MAX_REWALK_DEPTH) {
    // Too deep to walk twice: everything it may change is unknown from the start.
    ctx.scope.forgetAll();
    affects(a, ctx, { opaque: true });
    walkOnce(pushChildren);
    return;
  }
  const marks: Mark[] = [];
  // The last command (its index in the script) that makes a link, of those recorded since the first mark.
  let scanned = -1;
  let linkAt = -1;
  stack.push(() => {
    const end = mark(a, ctx, stages, null);
    ctx.scope.merge([before]);
    const merged = ctx.scope.snapshot();
    stack.push(() => ctx.scope.merge([before, merged]));
    const base = stack.length;
    const p = ctx.pipeline;
    let k = 0;
    walkOnce((children, c) =>
      pushMarked(children, c, stack, (at, skippable) => {
        const m = marks[k++];
        if (!skippable || !m || a.options.fullRewalk || m.node !== at || a.fnVersion !== m.fnVersion || end.otherCwds !== m.otherCwds) return;
        const parse = a.parseBudget - (m.parseBudget - end.parseBudget);
        const arithLeft = a.arithBudget.left - (m.arithBudget - end.arithBudget);
        if (parse < 0 || arithLeft < 0 || !ctx.scope.sameAs(m.scope)) return;
        // A statement that is a pipeline's stage: the next stage reads the last command recorded in it (xargs its
        // paths, a shell its text), which must be the same as after the rest: the rest records none, or nothing
        // was recorded since the first walk's rest.
        if (p && end.stage !== m.stage && stages.get(p.id)?.[p.index] !== end.stage) return;
        // A link made since the first walk reached this statement: the rest's commands, walked again, would come
        // after it and write through it (write-through-symlink), which their first walk did not.
        const commands = a.script.commands;
        if (scanned < 0) scanned = marks[0]!.commands;
        for (; scanned < commands.length; scanned++) {
          const name = (commands[scanned]!.effective ?? unwrap(commands[scanned]!.argv)).name;
          if (name === "ln" || name === "cp") linkAt = scanned;
        }
        if (linkAt >= m.commands) return;
        // The rest of this walk would repeat the first one's: skip it, and be where the first one ended.
        stack.length = base;
        ctx.scope.restoreMark(end.scope);
        a.nextId += end.nextId - m.nextId;
        a.nextPipeline += end.nextPipeline - m.nextPipeline;
        a.parseBudget = parse;
        a.arithBudget.left = arithLeft;
      }),
    );
  });
  walkOnce((children, c) => pushMarked(children, c, stack, (at) => marks.push(mark(a, ctx, stages, at))));
}

