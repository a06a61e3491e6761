// The walk of the fast path: statements that plain.ts parsed without tree-sitter, walked as the tree walk
// (walk.ts) walks the same text: the same lists, pipelines and substitutions, the same snapshots and merges of
// the script's state, in the same order, so that both paths find the same facts.

import { GUARD } from "../limits.ts";
import type { Command, Redirect, Word } from "./facts.ts";
import type { PlainStatement, PlainWord } from "./plain.ts";
import type { ScopeState } from "./scope.ts";
import { plainWords } from "./words.ts";
import { makeCommand, type Analysis, type Ctx } from "./analysis.ts";
import { finish } from "./command-effects.ts";

/** Walks statements of the fast path in `outer`, as the tree walk would walk their tree. */
export function walkPlain(a: Analysis, statements: PlainStatement[], outer: Ctx): void {
  const stages = new Map<number, Command[]>();
  // A chain `a && b || c` changes state as tree-sitter's nested lists do (see the "list" case of walk):
  // the same snapshots, the same merges, in the same order.
  let ctx = outer;
  let before: ScopeState | null = null;
  let middle: ScopeState | null = null;
  for (let s = 0; s < statements.length && !a.script.incomplete; s++) {
    const st = statements[s]!;
    if (st.commands.length > GUARD.maxPipelineStages) {
      // As on the tree-sitter path (pipelines.ts); here the cost would be the rules' (each stage looks upstream).
      a.script.incomplete ??= `it holds a pipeline of ${st.commands.length} stages, more than the ${GUARD.maxPipelineStages} the guard reads: split it, or write it to a file and run that`;
      return;
    }
    const prevOp = s > 0 ? statements[s - 1]!.op : null;
    if (prevOp === null) {
      // A new chain; one that ends in `&` runs in the background as a whole, in a subshell.
      let end = s;
      while (statements[end]!.op !== null && end + 1 < statements.length) end++;
      ctx = statements[end]!.background ? { ...outer, scope: outer.scope.fork() } : outer;
      before = statements[end]!.op === null && end === s ? null : ctx.scope.snapshot();
    } else {
      middle = ctx.scope.snapshot();
      if (prevOp === "&&") ctx.scope.assumeCdWorked();
      else if (ctx.scope.lastCd) ctx.scope.restore(before!);
    }
    plainStatement(a, st, ctx, stages);
    if (prevOp !== null) ctx.scope.mergeList(prevOp, [before!, middle!]);
  }
}

/** One statement of the fast path: each command of its pipeline, then the substitutions in its words. */
function plainStatement(a: Analysis, st: PlainStatement, ctx: Ctx, stages: Map<number, Command[]>): void {
  {
    const size = st.commands.length;
    const id = size > 1 ? a.nextPipeline++ : -1;
    for (let index = 0; index < size; index++) {
      const pc = st.commands[index]!;
      const c: Ctx = size > 1 ? { ...ctx, scope: ctx.scope.fork(), pipeline: { id, index, size }, background: st.background } : st.background ? { ...ctx, background: true } : ctx;
      const argv: Word[] = [];
      for (const w of pc.words) argv.push(...plainWords(w, c.scope, a.home, "argv"));
      const redirects: Redirect[] = [];
      for (const r of pc.redirects) redirects.push({ op: r.op, fd: r.fd, target: plainWords(r.target, c.scope, a.home, "redirect")[0]! });
      const fact = makeCommand(a, pc.text, argv, redirects, c);
      // Substitutions run as commands of their own, owned by this one, in source order, and (as on the tree
      // path) in the state from before the command (a `cd $(…)` has not happened for them).
      let withSubs: PlainWord[] | null = null;
      for (const w of pc.words) if (w.subs.length) (withSubs ??= []).push(w);
      for (const r of pc.redirects) if (r.target.subs.length) (withSubs ??= []).push(r.target);
      const subCtx: Ctx | null = withSubs ? { ...c, scope: c.scope.fork(), owner: fact, pipeline: null, background: false } : null;
      finish(a, fact, c, stages);
      if (withSubs) {
        withSubs.sort((x, y) => x.start - y.start);
        for (const w of withSubs) for (const sub of w.subs) walkPlain(a, sub, { ...subCtx!, scope: subCtx!.scope.fork() });
      }
    }
  }
}
