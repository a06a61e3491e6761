// tree-sitter-bash → Script facts. Walks every simple command anywhere in a script (lists, pipelines,
// subshells, groups, function bodies, $(…), backticks, <(…), heredoc bodies) and unpacks code that other
// commands run (`bash -c '…'`, `eval '…'`, `find -exec`, text piped or fed into a shell), so that the
// rules judge what will really run. Iterative, so that deep nesting cannot overflow the stack.

import type { Node, Parser } from "web-tree-sitter";
import { copyTree, type SyntaxNode } from "./tree.ts";
import { DYN, type Command, type FunctionDef, type Redirect, type Script, type SyntaxProblem, type Word } from "./facts.ts";
import { findExecs, inlineCode, literalWord, programName, programSource, SHELLS, unwrap } from "./commands.ts";
import { embeddedCode } from "./embedded.ts";
import { resolvePath } from "./paths.ts";
import { EXPANSION_CLOSE, EXPANSION_OPEN, parsePlain, type PlainStatement, type PlainWord } from "./plain.ts";

const EXPANSION = new RegExp(`${EXPANSION_OPEN}([^${EXPANSION_CLOSE}]*)${EXPANSION_CLOSE}`, "g");

export interface AnalyzeOptions {
  cwd: string;
  home: string;
  /** How deep `bash -c` / `eval` strings are unpacked before giving up. */
  maxNestedDepth: number;
  /** Parse plain commands without tree-sitter (default). Off only to compare the two paths in tests. */
  fastPath?: boolean;
}

/**
 * The working directory and plain variables as the script changes them. A fork is a snapshot: both
 * sides share the variables until one of them changes one (most scripts set none, and the walk forks
 * for every pipeline stage and substitution).
 */
class Scope {
  private shared = false;

  constructor(
    public cwd: string | null,
    private vars: Map<string, string> | null,
  ) {}

  get(name: string): string | undefined {
    return this.vars?.get(name);
  }

  set(name: string, value: string): void {
    this.own().set(name, value);
  }

  delete(name: string): void {
    if (this.vars?.has(name)) this.own().delete(name);
  }

  fork(): Scope {
    const child = new Scope(this.cwd, this.vars);
    child.shared = this.shared = this.vars !== null;
    return child;
  }

  private own(): Map<string, string> {
    if (!this.vars) this.vars = new Map();
    else if (this.shared) this.vars = new Map(this.vars);
    this.shared = false;
    return this.vars;
  }
}

interface Ctx {
  scope: Scope;
  pipeline: Command["pipeline"];
  owner: Command | null;
  via: string | null;
  fn: string | null;
  depth: number;
  background: boolean;
}

type Task = { node: SyntaxNode; ctx: Ctx } | (() => void);

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
const SKIP = new Set(["comment", "heredoc_start", "heredoc_end", "variable_name", "file_descriptor"]);

/** Text of a double-quoted or unquoted segment with its backslash escapes applied. */
function unescape(text: string, quoted: boolean): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\" || i === text.length - 1) {
      out += c;
      continue;
    }
    const n = text[++i]!;
    if (n === "\n") continue; // line continuation
    if (quoted && !'$`"\\'.includes(n)) out += "\\";
    out += n;
  }
  return out;
}

const C_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_m, e: string) => {
    if (e[0] === "x" || e[0] === "u" || e[0] === "U") return String.fromCodePoint(parseInt(e.slice(1), 16) || 0);
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (e[0] === "c") return String.fromCharCode(e.charCodeAt(1) & 31);
    return C_ESCAPES[e] ?? "\\" + e;
  });
}

/** The context of code a command runs (`bash -c`, `eval`, find -exec, a shell's stdin): one level deeper. */
function nested(ctx: Ctx): Ctx {
  return { ...ctx, scope: ctx.scope.fork(), pipeline: null, owner: null, depth: ctx.depth + 1, background: false };
}

export class ScriptAnalyzer {
  private nextId = 0;
  private nextPipeline = 0;
  /** Redirects tree-sitter put on a list or pipeline, by the command bash gives them to. */
  private trailing = new Map<SyntaxNode, SyntaxNode[]>();

  constructor(private readonly parser: Parser) {}

  analyze(source: string, options: AnalyzeOptions): Script {
    this.nextId = 0;
    this.nextPipeline = 0;
    this.trailing.clear();
    this.home = options.home;
    const script: Script = { commands: [], functions: [], problem: null, incomplete: null };
    const scope = new Scope(options.cwd, null);
    const ctx: Ctx = { scope, pipeline: null, owner: null, via: null, fn: null, depth: 0, background: false };
    this.run(source, ctx, script, options, undefined);
    return script;
  }

  /** Parses `source` and walks it; nested code (bash -c strings) comes back here with depth + 1. */
  private run(source: string, ctx: Ctx, script: Script, options: AnalyzeOptions, where: string | undefined): void {
    if (ctx.depth > options.maxNestedDepth) {
      script.incomplete ??= `code is nested more than ${options.maxNestedDepth} levels deep (${where ?? "bash -c"})`;
      return;
    }
    const plain = options.fastPath === false ? null : parsePlain(source);
    if (plain) {
      this.walkPlain(plain, ctx, script, options);
      return;
    }
    const tree = this.parser.parse(source);
    if (!tree) {
      script.incomplete ??= "the parser gave up on this input";
      return;
    }
    try {
      const root = tree.rootNode;
      if (root.hasError) {
        script.problem ??= { ...describeSyntaxError(root, source), ...(where ? { where } : {}) };
        return;
      }
      this.walk(copyTree(tree, source), ctx, script, options, source, where);
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
        stack.push({ node: c, ctx: bg ? { ...ctx, background: true } : ctx });
      }
    };

    while (stack.length) {
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
            const bare = this.makeCommand(node.text, [], [], ctx, script);
            const words: SyntaxNode[] = [];
            for (const r of redirects) this.redirect(r, bare, ctx, words, script, source, where);
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
          const def: FunctionDef = { name, text: node.text, selfCalls: 0, selfForks: false };
          script.functions.push(def);
          const body = node.childForFieldName("body");
          if (body) stack.push({ node: body, ctx: { ...ctx, scope: ctx.scope.fork(), fn: name, pipeline: null } });
          break;
        }
        case "variable_assignment":
        case "variable_assignments": {
          const assigns = node.type === "variable_assignment" ? [node] : node.namedChildren.filter((c) => c.type === "variable_assignment");
          const fact = this.makeCommand(node.text, [], [], ctx, script);
          const words: SyntaxNode[] = [];
          for (const a of assigns) this.assignment(a, fact, ctx, words, true);
          this.pushWords(words, fact, ctx, stack);
          break;
        }
        case "declaration_command":
        case "unset_command": {
          const fact = this.makeCommand(node.text, [], [], ctx, script);
          const words: SyntaxNode[] = [];
          for (const c of node.children) {
            if (!c.isNamed) fact.argv.push(literalWord(c.text));
            else if (c.type === "variable_assignment") this.assignment(c, fact, ctx, words, true);
            else if (c.type === "variable_name") {
              fact.argv.push(literalWord(c.text));
              ctx.scope.delete(c.text);
            } else if (!SKIP.has(c.type)) {
              fact.argv.push(this.word(c, ctx.scope));
              words.push(c);
            }
          }
          this.pushWords(words, fact, ctx, stack);
          break;
        }
        case "for_statement": {
          const variable = node.childForFieldName("variable");
          if (variable) ctx.scope.delete(variable.text);
          pushChildren(node.children, ctx);
          break;
        }
        default:
          pushChildren(node.children, ctx);
      }
    }
  }

  private pipeline(node: SyntaxNode, ctx: Ctx, stack: Task[]): void {
    const parts = node.children.filter((c) => c.isNamed && !SKIP.has(c.type));
    const id = this.nextPipeline++;
    for (let i = parts.length - 1; i >= 0; i--) {
      const pipeline = { id, index: i, size: parts.length };
      stack.push({ node: parts[i]!, ctx: { ...ctx, scope: ctx.scope.fork(), pipeline } });
    }
  }

  private walkPlain(statements: PlainStatement[], ctx: Ctx, script: Script, options: AnalyzeOptions): void {
    const stages = new Map<number, Command[]>();
    for (const st of statements) {
      const size = st.commands.length;
      const id = size > 1 ? this.nextPipeline++ : -1;
      for (let index = 0; index < size; index++) {
        const pc = st.commands[index]!;
        const c: Ctx = size > 1 ? { ...ctx, scope: ctx.scope.fork(), pipeline: { id, index, size }, background: st.background } : st.background ? { ...ctx, background: true } : ctx;
        const argv: Word[] = [];
        for (const w of pc.words) argv.push(this.plainWord(w, c.scope));
        const redirects: Redirect[] = [];
        for (const r of pc.redirects) redirects.push({ op: r.op, fd: r.fd, target: this.plainWord(r.target, c.scope) });
        const fact = this.makeCommand(pc.text, argv, redirects, c, script);
        // Substitutions run as commands of their own, owned by this one, in source order, and (as on the tree
        // path) in the state from before the command (a `cd $(…)` has not happened for them).
        let withSubs: PlainWord[] | null = null;
        for (const w of pc.words) if (w.subs.length) (withSubs ??= []).push(w);
        for (const r of pc.redirects) if (r.target.subs.length) (withSubs ??= []).push(r.target);
        const subCtx: Ctx | null = withSubs ? { ...c, scope: c.scope.fork(), owner: fact, pipeline: null, background: false } : null;
        this.finish(fact, c, script, options, stages);
        if (withSubs) {
          withSubs.sort((a, b) => a.start - b.start);
          for (const w of withSubs) for (const sub of w.subs) this.walkPlain(sub, { ...subCtx!, scope: subCtx!.scope.fork() }, script, options);
        }
      }
    }
  }

  private plainWord(w: PlainWord, scope: Scope): Word {
    let value = w.tilde ? this.home + w.value.slice(1) : w.value;
    let dynamic = false;
    if (value.includes(EXPANSION_OPEN)) {
      value = value.replace(EXPANSION, (_m, name: string) => {
        if (name === "$(" || name === "`") {
          dynamic = true;
          return DYN;
        }
        if (name === "HOME") return scope.get("HOME") ?? this.home;
        if (name === "PWD") return scope.cwd ?? DYN;
        const known = /^[A-Za-z_]/.test(name) ? scope.get(name) : undefined;
        if (known !== undefined) return known;
        dynamic = true;
        return DYN;
      });
    }
    return { raw: w.raw, value, dynamic: dynamic || value.includes(DYN), glob: w.glob };
  }

  private makeCommand(text: string, argv: Word[], redirects: Redirect[], ctx: Ctx, script: Script): Command {
    const fact: Command = {
      id: this.nextId++,
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
    script.commands.push(fact);
    return fact;
  }

  private assignment(node: SyntaxNode, fact: Command, ctx: Ctx, words: SyntaxNode[], persistent: boolean): void {
    const name = node.childForFieldName("name")?.text ?? "";
    const valueNode = node.childForFieldName("value");
    const value = valueNode ? this.word(valueNode, ctx.scope) : literalWord("");
    if (valueNode) words.push(valueNode);
    fact.assignments.push({ name, value });
    if (!persistent) return;
    if (value.dynamic) ctx.scope.delete(name);
    else ctx.scope.set(name, value.value);
  }

  /** Substitutions inside a command's words run as commands of their own, owned by it. */
  private pushWords(words: SyntaxNode[], owner: Command, ctx: Ctx, stack: Task[]): void {
    let sub: Ctx | null = null;
    for (let i = words.length - 1; i >= 0; i--) {
      const w = words[i]!;
      const text = w.text;
      if (text.includes("$") || text.includes("`") || text.includes("<(") || text.includes(">(")) {
        sub ??= { ...ctx, scope: ctx.scope.fork(), owner, pipeline: null, background: false };
        stack.push({ node: w, ctx: sub });
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
    const fact = this.makeCommand(node.text, [], [], ctx, script);
    if (outerRedirects.length) fact.text = source.slice(node.startIndex, outerRedirects[outerRedirects.length - 1]!.endIndex);
    const words: SyntaxNode[] = [];
    const later: SyntaxNode[] = [];
    let lastEnd = -1;
    for (const c of node.children) {
      if (!c.isNamed || SKIP.has(c.type)) continue;
      if (c.type === "variable_assignment") this.assignment(c, fact, ctx, words, false);
      else if (REDIRECTS.has(c.type)) this.redirect(c, fact, ctx, words, script, source, where, later);
      else {
        const inner = c.type === "command_name" ? (c.namedChildren[0] ?? c) : c;
        const w = this.word(inner, ctx.scope);
        const prev = fact.argv[fact.argv.length - 1];
        // Bash drops a backslash-newline inside a word (`r\<newline>m` is rm); tree-sitter splits the word there.
        if (prev && lastEnd >= 0 && source.slice(lastEnd, c.startIndex) === "\\\n") {
          fact.argv[fact.argv.length - 1] = { raw: prev.raw + "\\\n" + w.raw, value: prev.value + w.value, dynamic: prev.dynamic || w.dynamic, glob: prev.glob || w.glob };
        } else fact.argv.push(w);
        words.push(inner);
        lastEnd = c.endIndex;
      }
    }
    for (const r of outerRedirects) this.redirect(r, fact, ctx, words, script, source, where, later);
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
    this.finish(fact, ctx, script, options, stages);
  }

  /** What follows from a command, however it was parsed: state it changes, and code it runs. */
  private finish(fact: Command, ctx: Ctx, script: Script, options: AnalyzeOptions, stages: Map<number, Command[]>): void {
    if (fact.pipeline) {
      const seen = stages.get(fact.pipeline.id) ?? [];
      seen[fact.pipeline.index] = fact;
      stages.set(fact.pipeline.id, seen);
    }

    const eff = unwrap(fact.argv);
    fact.effective = eff;
    if (ctx.fn !== null && eff.name === ctx.fn) {
      const def = script.functions.findLast((f) => f.name === ctx.fn);
      if (def) {
        def.selfCalls++;
        def.selfForks ||= fact.pipeline !== null || fact.background;
      }
    }

    // Track the working directory and plain variables the way the script itself changes them.
    if (eff.wrappers.length === 0 && (eff.name === "cd" || eff.name === "pushd") && !fact.pipeline) {
      const target = eff.argv.slice(1).find((w) => !w.value.startsWith("-") || w.value === "-");
      if (!target) ctx.scope.cwd = options.home;
      else if (target.dynamic || target.value === "-") ctx.scope.cwd = null;
      else ctx.scope.cwd = resolvePath(target.value, ctx.scope.cwd);
    } else if (eff.name === "popd") ctx.scope.cwd = null;
    else if (eff.name === "read" || eff.name === "mapfile" || eff.name === "readarray") {
      for (const w of eff.argv.slice(1)) if (!w.value.startsWith("-")) ctx.scope.delete(w.value);
    }

    // Code that this command runs: judge it as if it were written here.
    const code = inlineCode(eff);
    if (code && !code.dynamic) {
      const label = eff.name === "eval" ? "eval" : `${eff.name} -c`;
      this.run(code.value, { ...nested(ctx), via: label }, script, options, `in the string given to ${label}`);
    }
    // Command lines inside other programs' arguments (trap, tar --to-command, git -c core.pager, python3 -c os.system(…)).
    for (const e of embeddedCode(eff, fact.argv, fact.assignments)) {
      if (!e.code.dynamic) this.run(e.code.value, { ...nested(ctx), via: e.via }, script, options, `in the command given to ${e.via}`);
    }
    if (eff.name === "find") {
      for (const exec of findExecs(eff)) {
        for (const root of exec.roots.slice(0, 8)) {
          // `{}` is each path found: the root itself only when no test narrows what is found.
          const found = exec.filtered ? `${root.value.replace(/\/+$/, "")}/${DYN}` : root.value;
          const argv = exec.argv.map((w) => (w.value.includes("{}") ? { ...w, value: w.value.split("{}").join(found), dynamic: w.dynamic || found.includes(DYN) } : w));
          const child = this.makeCommand(argv.map((w) => w.raw).join(" "), argv, [], { ...ctx, via: "find -exec", pipeline: null }, script);
          this.derived(child, nested(ctx), script, options);
        }
      }
    }
    if (eff.name !== null && SHELLS.has(eff.name) && programSource(eff) === "stdin") {
      const text = this.stdinText(fact, stages);
      if (text !== null && !text.includes(DYN)) this.run(text, { ...nested(ctx), via: `text fed to ${eff.name}` }, script, options, `in the text fed to ${eff.name}`);
    }
  }

  /** A command built from another's words (find -exec) may itself be `bash -c '…'`. */
  private derived(fact: Command, nested: Ctx, script: Script, options: AnalyzeOptions): void {
    const eff = unwrap(fact.argv);
    const code = inlineCode(eff);
    if (code && !code.dynamic) this.run(code.value, { ...nested, via: `${eff.name} -c` }, script, options, `in the string given to ${eff.name} -c`);
  }

  /** What a shell reading stdin gets, when the guard can know it: a heredoc, a herestring, or echo/printf/cat before it. */
  private stdinText(fact: Command, stages: Map<number, Command[]>): string | null {
    for (const r of fact.redirects) if (r.body && (r.op === "<<" || r.op === "<<-" || r.op === "<<<")) return r.body.text;
    if (!fact.pipeline || fact.pipeline.index === 0) return null;
    const prev = stages.get(fact.pipeline.id)?.[fact.pipeline.index - 1];
    if (!prev) return null;
    const eff = unwrap(prev.argv);
    const args = eff.argv.slice(1);
    if (eff.name === "echo") return args.filter((w) => !/^-[neE]+$/.test(w.value)).map((w) => w.value).join(" ");
    if (eff.name === "printf" && args.length) {
      const [format, ...rest] = args;
      return format!.value.includes("%") ? rest.map((w) => w.value).join("\n") : decodeAnsiC(format!.value);
    }
    if (eff.name === "cat" && args.length === 0) {
      for (const r of prev.redirects) if (r.body) return r.body.text;
    }
    return null;
  }

  private redirect(node: SyntaxNode, fact: Command, ctx: Ctx, words: SyntaxNode[], script: Script, source: string, where: string | undefined, later?: SyntaxNode[]): void {
    let op = "";
    let fd: number | null = null;
    let target: Word | null = null;
    let body: Redirect["body"];
    let delimiter: SyntaxNode | null = null;
    let end: SyntaxNode | null = null;
    let bodyNode: SyntaxNode | null = null;
    for (const c of node.children) {
      if (!c.isNamed) {
        if (!op) op = c.type;
        continue;
      }
      switch (c.type) {
        case "file_descriptor":
          // Only digits make a descriptor; tree-sitter also takes `-200` in `head -200>f`, which bash reads as a word.
          if (/^\d+$/.test(c.text)) fd = Number(c.text);
          else fact.argv.push(literalWord(c.text));
          break;
        case "heredoc_start":
          delimiter = c;
          break;
        case "heredoc_body":
          bodyNode = c;
          break;
        case "heredoc_end":
          end = c;
          break;
        case "file_redirect":
        case "herestring_redirect":
          this.redirect(c, fact, ctx, words, script, source, where, later);
          break;
        default:
          if (node.type === "heredoc_redirect") later?.push(c);
          else if (target === null) {
            target = this.word(c, ctx.scope);
            words.push(c);
          } else {
            // tree-sitter hangs words after a redirect's target (`echo hi >f arg`) under the redirect.
            fact.argv.push(this.word(c, ctx.scope));
            words.push(c);
          }
      }
    }
    if (node.type === "herestring_redirect") {
      body = target ? { text: target.value, dynamic: target.dynamic } : undefined;
      target = null;
      op = "<<<";
    }
    if (node.type === "heredoc_redirect") {
      const quoted = /['"\\]/.test(delimiter?.text ?? "");
      const raw = bodyNode?.text ?? "";
      if (bodyNode && !quoted) {
        const value = this.word(bodyNode, ctx.scope);
        body = { text: value.value, dynamic: value.dynamic };
        words.push(bodyNode);
      } else body = { text: raw, dynamic: false };
      this.checkHeredocEnd(op, delimiter, end, source, script, where);
    }
    fact.redirects.push({ op, fd, target, ...(body ? { body } : {}) });
  }

  /** tree-sitter accepts ` EOF` and `EOF ` as the end of a heredoc; bash does not, and then waits forever. */
  private checkHeredocEnd(op: string, start: SyntaxNode | null, end: SyntaxNode | null, source: string, script: Script, where: string | undefined): void {
    if (!start || script.problem) return;
    const delimiter = start.text.replace(/['"\\]/g, "");
    const at = start.startPosition;
    const problem = (line: number, column: number, found: string): SyntaxProblem => ({
      line,
      column,
      cause: `the heredoc <<${start.text} opened at line ${at.row + 1} is not closed: the closing ${delimiter} must stand alone at the start of a line${found}`,
      ...(where ? { where } : {}),
    });
    if (!end) {
      script.problem = problem(at.row + 1, at.column + 1, "");
      return;
    }
    const lineStart = source.lastIndexOf("\n", end.startIndex - 1) + 1;
    let lineEnd = source.indexOf("\n", end.startIndex);
    if (lineEnd < 0) lineEnd = source.length;
    let line = source.slice(lineStart, lineEnd);
    if (op === "<<-") line = line.replace(/^\t+/, "");
    if (line !== delimiter) {
      const row = source.slice(0, lineStart).split("\n").length;
      script.problem = problem(row, 1, ` (found ${JSON.stringify(source.slice(lineStart, lineEnd))})`);
    }
  }

  /** The static value of a word node: quotes and escapes removed, known variables substituted. */
  word(node: SyntaxNode, scope: Scope): Word {
    let dynamic = false;
    let glob = false;
    const lookup = (name: string): string => {
      if (name === "HOME") return scope.get("HOME") ?? this.home;
      if (name === "PWD") return scope.cwd ?? DYN;
      const v = scope.get(name);
      if (v === undefined) {
        dynamic = true;
        return DYN;
      }
      return v;
    };
    const visit = (n: SyntaxNode, quoted: boolean): string => {
      switch (n.type) {
        case "word":
        case "number": {
          const t = n.text;
          if (!quoted && /(?<!\\)[*?[]/.test(t)) glob = true;
          return unescape(t, quoted);
        }
        case "raw_string":
          return n.text.slice(1, -1);
        case "ansi_c_string":
          return decodeAnsiC(n.text.slice(2, -1));
        case "string":
        case "translated_string":
        case "heredoc_body":
        case "concatenation": {
          const inner = n.type === "string" || n.type === "translated_string" || n.type === "heredoc_body";
          // Text between child nodes (string content tree-sitter leaves unnamed) counts too.
          let out = "";
          let pos = n.startIndex;
          const text = n.text;
          const base = n.startIndex;
          for (const c of n.children) {
            if (c.startIndex > pos) out += unescape(text.slice(pos - base, c.startIndex - base), inner || quoted);
            if (c.isNamed) {
              // Inside quotes tree-sitter folds whitespace before `$x` or `$(…)` into that node (`" $x"`).
              if (inner && c.type !== "string_content" && c.type !== "heredoc_content") out += /^\s*/.exec(c.text)![0];
              out += visit(c, inner || quoted);
            } else if (c.type === '"' && c.endIndex - c.startIndex > 1) {
              // …and whitespace before a closing quote into the quote token (`" "`).
              out += unescape(c.text.slice(0, -1), true);
            } else if (c.type === "$") {
              // A lone `$` is itself; `$$` (the shell's pid) comes as one unnamed token.
              if (c.text === "$") out += "$";
              else {
                dynamic = true;
                out += DYN;
              }
            } else if (c.type !== '"' && c.type !== '$"' && n.type !== "heredoc_body") out += c.type;
            pos = c.endIndex;
          }
          if (n.endIndex > pos) out += unescape(text.slice(pos - base), inner || quoted);
          return out;
        }
        case "string_content":
        case "heredoc_content":
          return n.type === "heredoc_content" ? n.text.replace(/\\([$`\\])/g, "$1") : unescape(n.text, true);
        case "simple_expansion": {
          const name = n.namedChildren[0]?.text ?? "";
          return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? lookup(name) : ((dynamic = true), DYN);
        }
        case "expansion": {
          const kids = n.namedChildren;
          if (kids.length === 1 && kids[0]!.type === "variable_name" && n.text === "${" + kids[0]!.text + "}") return lookup(kids[0]!.text);
          dynamic = true;
          return DYN;
        }
        default:
          dynamic = true;
          return DYN;
      }
    };
    let value = visit(node, false);
    if (node.type === "word" || node.type === "concatenation") {
      // Tilde expansion applies to an unquoted leading ~ only.
      const first = node.type === "word" ? node : node.children[0];
      if (first?.type === "word" && first.text.startsWith("~")) {
        if (value === "~" || value.startsWith("~/")) value = this.home + value.slice(1);
        else if (value === "~+" || value.startsWith("~+/")) value = (scope.cwd ?? DYN) + value.slice(2);
        else {
          value = DYN + value.slice(value.indexOf("/") >= 0 ? value.indexOf("/") : value.length);
          dynamic = true;
        }
      }
    }
    return { raw: node.text, value, dynamic: dynamic || value.includes(DYN), glob };
  }

  /** Set per check: what `~` means. */
  home = "/";
}

/** Line, column and likely cause of the first syntax error, in words a model can act on. */
export function describeSyntaxError(root: Node, source: string): SyntaxProblem {
  let bad: Node | null = null;
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.isMissing || n.type === "ERROR") {
      bad = n;
      break;
    }
    if (!n.hasError) continue;
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  let node = bad ?? root;
  // An unclosed quote is best pointed at where the quote opens, not where the broken statement starts.
  const quoted = findLeaf(node, (n) => /^\$?['"`]/.test(n.text) && n.text.length > 0);
  if (quoted && !node.isMissing) node = quoted;
  const index = node.startIndex;
  const before = source.slice(0, index);
  const line = before.split("\n").length;
  // Columns count characters as a person sees them (code points), from 1.
  const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
  return { line, column, cause: likelyCause(node, source, root) };
}

function likelyCause(node: Node, source: string, root: Node): string {
  const trimmed = source.trimEnd();
  if (node.isMissing && node.type === "heredoc_end") {
    const start = findDescendant(root, "heredoc_start");
    const delimiter = start?.text.replace(/['"\\]/g, "") ?? "EOF";
    return `an unterminated heredoc <<${start?.text ?? delimiter}: the closing ${delimiter} must stand alone at the start of a line`;
  }
  const dangling = /(&&|\|\||\|&?)$/.exec(trimmed);
  if (dangling && (node.isMissing || trimmed.endsWith(dangling[1]!))) {
    return `a dangling ${dangling[1]} at the end: add the command that should follow it, or remove it`;
  }
  if (node.isMissing) {
    const expected = node.type === "word" ? "a word" : `\`${node.type}\``;
    return `${expected} is missing here (an unclosed block or list)`;
  }
  const heredoc = findDescendant(node, "heredoc_start");
  if (heredoc) {
    const delimiter = heredoc.text.replace(/['"\\]/g, "");
    return `an unterminated heredoc <<${heredoc.text}: the closing ${delimiter} must stand alone at the start of a line`;
  }
  const first = firstLeaf(node);
  const text = first?.text ?? node.text;
  const quote = /^(?:\$?['"`])/.exec(text);
  if (quote) return `an unclosed ${quote[0].slice(-1)} quote (it opens here and never closes)`;
  if (/^\$\(\(/.test(text)) return "an unclosed $(( arithmetic expansion";
  if (/^\$\(/.test(text) || text === "(") return "an unclosed ( or $( (a parenthesis that never closes)";
  if (/^(?:if|then|else|elif)$/.test(text)) return "an `if` without its closing `fi`";
  if (/^(?:for|while|until|do)$/.test(text)) return "a loop without its closing `done`";
  if (text === "case") return "a `case` without its closing `esac`";
  if (text === ")" || text === "}" || text === "fi" || text === "done" || text === "esac") return `an unexpected \`${text}\` with nothing open to close`;
  if (text === "{") return "an unclosed { group: it needs `; }` at its end";
  return `unexpected \`${text.slice(0, 20)}\``;
}

function findLeaf(node: Node, test: (n: Node) => boolean): Node | null {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.childCount === 0) {
      if (test(n)) return n;
      continue;
    }
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return null;
}

function firstLeaf(node: Node): Node | null {
  let n: Node | null = node;
  while (n && n.childCount > 0) n = n.child(0);
  return n;
}

function findDescendant(node: Node, type: string): Node | null {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === type) return n;
    for (const c of n.children) stack.push(c);
  }
  return null;
}

