// The tree walk: every node of tree-sitter's tree (lists, pipelines, subshells, groups, branches and loops,
// function bodies, $(…), backticks, <(…)), each simple command with its words, assignments and redirects, and
// the substitutions inside them, owned by the command whose word holds them. Iterative (a stack of tasks), so
// that deep nesting cannot overflow the stack; branches and loops are walked twice (branching.ts).

import type { Command, FunctionDef } from "./facts.ts";
import type { ScopeState } from "./scope.ts";
import type { SyntaxNode } from "./tree.ts";
import { literalWord } from "./argv.ts";
import { asDoubleQuoted, dollarBraceEnd } from "./source-text.ts";
import { appendWords, fields } from "./words.ts";
import { affects, forget, makeCommand, nested, shellAssigns, SKIP, type Analysis, type Ctx, type Task } from "./analysis.ts";
import { assignment } from "./assignments.ts";
import { declarationCommand } from "./declarations.ts";
import { arith, evaluatedName, expansionCode, testCode } from "./evaluated-text.ts";
import { redirect } from "./redirects.ts";
import { finish } from "./command-effects.ts";
import { branching, BRANCHING } from "./branching.ts";


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

/** Walks the tree of `source` (the script, or code found inside it: `where` says where), recording every command it holds. */
export function walk(a: Analysis, root: SyntaxNode, rootCtx: Ctx, source: string, where: string | undefined): void {
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
    if (a.script.incomplete) return;
    const task = stack.pop()!;
    if (typeof task === "function") {
      task();
      continue;
    }
    const { node, ctx } = task;
    switch (node.type) {
      case "command":
        command(a, node, a.trailing.get(node) ?? [], ctx, stack, stages, source, where);
        break;
      case "redirected_statement": {
        const children = node.children;
        const body = children.find((c) => c.isNamed && !REDIRECTS.has(c.type));
        const redirects = children.filter((c) => REDIRECTS.has(c.type));
        const receiver = body ? redirectReceiver(body) : null;
        if (body && receiver) {
          a.trailing.set(receiver, redirects);
          stack.push({ node: body, ctx });
        } else {
          // `{ …; } > file`, `while …; done < f`: the redirects still write.
          const bare = makeCommand(a, node.text, [], [], ctx);
          const words: SyntaxNode[] = [];
          for (const r of redirects) redirect(a, r, bare, ctx, words, source, where);
          pushWords(a, words, bare, ctx, stack);
          if (body) stack.push({ node: body, ctx });
        }
        break;
      }
      case "pipeline":
        pipeline(a, node, ctx, stack);
        break;
      case "subshell":
        pushChildren(node.children, { ...ctx, scope: ctx.scope.fork() });
        break;
      case "command_substitution":
      case "process_substitution": {
        // tree-sitter reads `a` `b` as ONE substitution "a` `b"; judging that would miss b entirely. Fail closed.
        const text = node.text;
        if (text.startsWith("`") && /(?<!\\)`/.test(text.slice(1, -1))) {
          a.script.incomplete ??= "two backtick substitutions in one command are misread by the parser: write them as $(…) instead";
          break;
        }
        pushChildren(node.children, { ...ctx, scope: ctx.scope.fork(), pipeline: null, background: false });
        break;
      }
      case "function_definition": {
        const nameNode = node.childForFieldName("name");
        const name = nameNode?.text ?? "";
        const def: FunctionDef = { name, text: node.text, selfCalls: 0, selfForks: false, redirect: /[})]\s*(?:\d*[<>]|&>)[^{}()]*$/.test(node.text) };
        a.script.functions.push(def);
        a.lastDef.set(name, def);
        a.fnVersion++;
        const body = node.childForFieldName("body");
        // The body runs when the function is called, in whatever state the caller is then: all unknown.
        const scope = ctx.scope.fork();
        scope.forgetAll();
        a.effects.set(name, { names: new Set(), cwd: false, opaque: false });
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
        const fact = makeCommand(a, node.text, [], [], ctx);
        const words: SyntaxNode[] = [];
        for (const assign of assigns) assignment(a, assign, fact, ctx, words, true);
        pushWords(a, words, fact, ctx, stack);
        break;
      }
      case "declaration_command":
      case "unset_command": {
        const words: SyntaxNode[] = [];
        const fact = declarationCommand(a, node, ctx, words, where);
        pushWords(a, words, fact, ctx, stack);
        break;
      }
      case "compound_statement":
      case "arithmetic_expansion": {
        const open = node.children[0]?.type;
        if (open === "((" || open === "$((" || open === "$[") {
          const fact = makeCommand(a, node.text, [], [], ctx);
          const body = node.text.slice(open.length, open === "$[" ? -1 : -2);
          arith(a, body, false, open === "((" ? "(( ))" : `${open}…${open === "$[" ? "]" : "))"}`, fact, ctx);
        }
        pushChildren(node.children, ctx);
        break;
      }
      case "expansion": {
        // tree-sitter reads a single quote inside `${…}` as opening a string where bash does not
        // (`${x#\'} $(cmd) ${x#\'}`, `"${x:-$'}" $(cmd) "${x:-$'}"`): it then swallows the command. Fail closed.
        if ((node.text.includes("'") || node.text.indexOf("{", 2) >= 0) && dollarBraceEnd(node.text) !== node.text.length) {
          a.script.problem ??= {
            line: node.startPosition.row + 1,
            column: node.startPosition.column + 1,
            cause: "bash and the guard's parser would end this ${…} at different places (a single quote or a `{` inside it): put the pattern or value in a variable first",
            ...(where ? { where } : {}),
          };
          break;
        }
        if (/[:[@!=]/.test(node.text)) {
          const fact = makeCommand(a, node.text, [], [], ctx);
          expansionCode(a, node, fact, ctx);
        }
        unparsedCode(a, node, ctx, "${…}");
        pushChildren(node.children, ctx);
        break;
      }
      case "simple_expansion": {
        // `"$ $(cmd)"`: tree-sitter reads `$ $` as one parameter and swallows the `$` of `$(`.
        if (/\$$/.test(node.namedChildren[0]?.text ?? "") && /\$\s/.test(node.text)) {
          a.script.problem ??= { line: node.startPosition.row + 1, column: node.startPosition.column + 1, cause: "a `$` followed by a blank is read differently by bash and the guard's parser: write `\\$` for a literal dollar sign", ...(where ? { where } : {}) };
          break;
        }
        pushChildren(node.children, ctx);
        break;
      }
      case "test_command": {
        const fact = makeCommand(a, node.text, [], [], ctx);
        testCode(a, node, fact, ctx);
        unparsedCode(a, node, ctx, "[[ … =~ … ]]");
        pushChildren(node.children, ctx);
        break;
      }
      default:
        if (BRANCHING.has(node.type)) branching(a, node, ctx, stack, stages, pushChildren);
        else pushChildren(node.children, ctx);
    }
  }
}

/** The stages of a pipeline, each in a subshell of its own. */
function pipeline(a: Analysis, node: SyntaxNode, ctx: Ctx, stack: Task[]): void {
  const children = node.children;
  const parts = children.filter((c) => c.isNamed && !SKIP.has(c.type));
  // `a |& b` is `a 2>&1 | b`: a's errors go into the pipe too
  const stderr = new Set<number>();
  for (let i = 0, k = 0; i < children.length; i++) {
    if (children[i]!.isNamed && !SKIP.has(children[i]!.type)) k++;
    else if (children[i]!.type === "|&") stderr.add(k - 1);
  }
  const id = a.nextPipeline++;
  for (let i = parts.length - 1; i >= 0; i--) {
    const pipeline = stderr.has(i) ? { id, index: i, size: parts.length, stderr: true } : { id, index: i, size: parts.length };
    stack.push({ node: parts[i]!, ctx: { ...ctx, scope: ctx.scope.fork(), pipeline } });
  }
}

/** A simple command: its words, assignments and redirects (its own and those tree-sitter hung on a list around it). */
function command(
  a: Analysis,
  node: SyntaxNode,
  outerRedirects: readonly SyntaxNode[],
  ctx: Ctx,
  stack: Task[],
  stages: Map<number, Command[]>,
  source: string,
  where: string | undefined,
): void {
  const fact = makeCommand(a, node.text, [], [], ctx);
  if (outerRedirects.length) fact.text = source.slice(node.startIndex, outerRedirects[outerRedirects.length - 1]!.endIndex);
  const words: SyntaxNode[] = [];
  const later: SyntaxNode[] = [];
  let lastEnd = -1;
  for (const c of node.children) {
    if (!c.isNamed || SKIP.has(c.type)) continue;
    if (c.type === "regex") {
      // `echo =~&&* $(cmd)`: outside [[ ]] bash has no `=~`; tree-sitter takes the rest of the line for a regex.
      a.script.problem ??= { line: c.startPosition.row + 1, column: c.startPosition.column + 1, cause: "the guard's parser reads `=~` here as the regex test of [[ ]], which bash does not: quote it ('=~')", ...(where ? { where } : {}) };
      return;
    }
    if (c.type === "variable_assignment") assignment(a, c, fact, ctx, words, false);
    else if (REDIRECTS.has(c.type)) redirect(a, c, fact, ctx, words, source, where, later);
    else {
      const inner = c.type === "command_name" ? (c.namedChildren[0] ?? c) : c;
      const ws = fields(inner, ctx.scope, a.home, "argv");
      // Bash drops a backslash-newline inside a word (`r\<newline>m` is rm); tree-sitter splits the word there. It
      // also splits `a[\$\(x\)]` after the `[`, with nothing between the parts: to bash that is one word.
      const gap = lastEnd >= 0 ? source.slice(lastEnd, c.startIndex) : null;
      appendWords(fact.argv, ws, gap === "\\\n" || gap === "" ? gap : null);
      words.push(inner);
      lastEnd = c.endIndex;
    }
  }
  for (const r of outerRedirects) redirect(a, r, fact, ctx, words, source, where, later);
  // `{NAME}>file`, `{NAME}<&0`: bash opens a descriptor and stores its number in NAME (in this shell, for a
  // builtin): `: {PATH}>/dev/null`, `: {BASH_CMDS[ls]}>f`. Read from the text, quotes and all (a quoted one only
  // asks more). The subscript of an element is evaluated.
  if (fact.text.includes("}>") || fact.text.includes("}<")) {
    for (const m of fact.text.matchAll(/(?:^|[\s;&|()])\{([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\}(?=[<>])/g)) {
      evaluatedName(a, literalWord(m[1]!), "a named descriptor", fact, ctx);
      shellAssigns(a, fact, ctx, m[1]!);
    }
  }
  // Things tree-sitter hangs under a heredoc redirect (`cat <<EOF | sh`, `cat <<EOF && x`) come after it.
  for (let i = later.length - 1; i >= 0; i--) {
    const n = later[i]!;
    if (n.type === "pipeline" && n.children[0]?.type === "|") {
      const id = a.nextPipeline++;
      const parts = n.children.filter((c) => c.isNamed && !SKIP.has(c.type));
      fact.pipeline = { id, index: 0, size: parts.length + 1 };
      stages.set(id, [fact]);
      for (let j = parts.length - 1; j >= 0; j--) {
        stack.push({ node: parts[j]!, ctx: { ...ctx, scope: ctx.scope.fork(), pipeline: { id, index: j + 1, size: parts.length + 1 } } });
      }
    } else stack.push({ node: n, ctx });
  }
  pushWords(a, words, fact, ctx, stack);
  finish(a, fact, ctx, stages);
}

/** Substitutions inside a command's words run as commands of their own, owned by it. */
function pushWords(a: Analysis, words: SyntaxNode[], owner: Command, ctx: Ctx, stack: Task[]): void {
  let sub: Ctx | null = null;
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i]!;
    const text = w.text;
    // `${PATH:=/tmp/x}` and `${PATH=…}` assign PATH in the shell that expands the word.
    // `${PATH[0]:=…}` assigns PATH too (element 0 is the variable).
    if (text.includes("${")) for (const m of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?:?=/g)) shellAssigns(a, owner, ctx, m[1]!);
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
function unparsedCode(a: Analysis, node: SyntaxNode, ctx: Ctx, label: string): void {
  for (const c of node.namedChildren) {
    if ((c.type === "regex" || c.type === "word") && /\$\(|`|[<>]\(/.test(c.text)) {
      // As a double-quoted string: a newline or `#` in it is text, not the end of a command or a comment.
      a.run(`: "${asDoubleQuoted(c.text)}"`, { ...nested(ctx), via: label }, `in ${label}`);
    }
  }
}
