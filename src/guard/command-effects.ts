// What follows from a command once its words are known, however it was parsed: the state it changes in the
// shell that runs it (cd, read, printf -v, source, the script's own functions) and the code it runs, judged
// as if it were written here: `bash -c` and `eval` strings, code inside other programs' arguments, the
// commands find -exec and unknown programs run, text fed to a shell on stdin.

import { parseArgs } from "./argv.ts";
import { findExecs } from "./find-exec.ts";
import { inlineCode, programSource, SHELLS } from "./interpreters.ts";
import { unwrap, type Effective } from "./wrappers.ts";
import { embeddedCode } from "./embedded.ts";
import { DYN, type Command, type Word } from "./facts.ts";
import { cdTarget } from "./scope.ts";
import { argumentCommands } from "./unknown-programs.ts";
import { affects, forget, makeCommand, nested, shellAssigns, type Analysis, type Ctx } from "./analysis.ts";
import { declares, DECLARES } from "./declarations.ts";
import { arith, evaluatedName } from "./evaluated-text.ts";

const C_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** A printf format without `%`, as printf prints it: its backslash escapes decoded. */
function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_m, e: string) => {
    if (e[0] === "x" || e[0] === "u" || e[0] === "U") return String.fromCodePoint(parseInt(e.slice(1), 16) || 0);
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (e[0] === "c") return String.fromCharCode(e.charCodeAt(1) & 31);
    return C_ESCAPES[e] ?? "\\" + e;
  });
}

/** What follows from a command, however it was parsed: state it changes, and code it runs. */
export function finish(a: Analysis, fact: Command, ctx: Ctx, stages: Map<number, Command[]>): void {
  if (fact.pipeline) {
    const seen = stages.get(fact.pipeline.id) ?? [];
    seen[fact.pipeline.index] = fact;
    stages.set(fact.pipeline.id, seen);
  }

  const eff = unwrap(fact.argv);
  fact.effective = eff;
  if (ctx.fn !== null && eff.name === ctx.fn) {
    const def = a.lastDef.get(ctx.fn);
    if (def) {
      def.selfCalls++;
      a.fnVersion++;
      def.selfForks ||= fact.pipeline !== null || fact.background;
    }
  }

  // Track the working directory and plain variables the way the script itself changes them. A pipeline
  // stage or a background job runs in a subshell: what it changes is gone after it.
  const here = !fact.pipeline && !fact.background && eff.wrappers.every((w) => w === "builtin" || w === "command");
  evaluatedText(a, fact, eff, ctx);
  // `source` of text the guard can read runs it in this shell, like eval; of anything else, forgets all.
  const sourced = (eff.name === "source" || eff.name === ".") && programSource(eff) === "stdin" ? stdinText(fact, stages) : null;
  if (here && !(sourced !== null && !sourced.includes(DYN))) changesState(a, fact, eff, ctx);

  // Code that this command runs: judge it as if it were written here.
  const code = inlineCode(eff);
  if (code && !code.dynamic) {
    const label = eff.name === "eval" ? "eval" : `${eff.name} -c`;
    // eval runs in this shell: what it changes stays (unless it runs in a pipeline or the background).
    const inner = eff.name === "eval" && here ? { ...nested(ctx), scope: ctx.scope } : nested(ctx);
    a.run(code.value, { ...inner, via: label }, `in the string given to ${label}`);
  }
  // Command lines inside other programs' arguments (trap, tar --to-command, git -c core.pager, python3 -c os.system(…)).
  // An interpreter reading its program from a static heredoc or herestring: that text is its inline code.
  const fed = fact.redirects.find((r) => r.body && !r.body.dynamic && (r.op === "<<" || r.op === "<<-" || r.op === "<<<"))?.body?.text;
  for (const e of embeddedCode(eff, fact.argv, fact.assignments, fed)) {
    if (!e.code.dynamic) a.run(e.code.value, { ...nested(ctx), via: e.via, ...(e.lenient ? { lenient: true } : {}) }, `in the command given to ${e.via}`);
  }
  // Command lines a wrapper runs itself (`strace -o '|CMD'`).
  if (eff.wrapperCode) for (const w of eff.wrapperCode) if (!w.dynamic) a.run(w.value, { ...nested(ctx), via: eff.wrappers.join(" ") }, `in the command given to ${eff.wrappers.join(" ")}`);
  // A program the guard does not know may run its arguments: judge the commands they spell.
  for (const argv of argumentCommands(eff, fed)) {
    const child = makeCommand(a, argv.map((w) => w.raw).join(" "), argv, [], { ...ctx, via: `the arguments of ${eff.name}`, pipeline: null });
    derived(a, child, nested(ctx));
  }
  if (eff.name === "find") {
    for (const exec of findExecs(eff)) {
      for (const root of exec.roots.slice(0, 8)) {
        // `{}` is each path found: the root itself only when no test narrows what is found.
        const found = exec.filtered ? `${root.value.replace(/\/+$/, "")}/${DYN}` : root.value;
        const argv = exec.argv.map((w) => (w.value.includes("{}") ? { ...w, value: w.value.split("{}").join(found), dynamic: w.dynamic || found.includes(DYN) } : w));
        const child = makeCommand(a, argv.map((w) => w.raw).join(" "), argv, [], { ...ctx, via: "find -exec", pipeline: null });
        derived(a, child, nested(ctx));
      }
    }
  }
  if (eff.name !== null && (SHELLS.has(eff.name) || eff.name === "source" || eff.name === ".") && programSource(eff) === "stdin") {
    const text = stdinText(fact, stages);
    const inner = sourced !== null && here ? { ...nested(ctx), scope: ctx.scope } : nested(ctx);
    if (text !== null && !text.includes(DYN)) a.run(text, { ...inner, via: `text fed to ${eff.name}` }, `in the text fed to ${eff.name}`);
  }
}

/** Builtins that evaluate their arguments as arithmetic or parse them as names with subscripts. */
function evaluatedText(a: Analysis, fact: Command, eff: Effective, ctx: Ctx): void {
  const name = eff.name;
  const args = eff.argv.slice(1);
  if (name === "let") {
    for (const w of args) arith(a, w.value, true, "let", fact, ctx);
  } else if (name === "test" || name === "[") {
    args.forEach((w, i) => {
      if ((w.value === "-v" || w.value === "-R") && args[i + 1]) evaluatedName(a, args[i + 1]!, `${name} ${w.value}`, fact, ctx);
    });
  } else if (name === "printf") {
    const v = parseArgs(args, "v").values.get("v");
    if (v) evaluatedName(a, v, "printf -v", fact, ctx);
  } else if (name === "read") {
    const p = parseArgs(args, "adinNptu");
    for (const w of p.operands) evaluatedName(a, w, "read", fact, ctx);
    const array = p.values.get("a");
    if (array) evaluatedName(a, array, "read -a", fact, ctx);
  } else if (name === "wait") {
    const v = parseArgs(args, "p").values.get("p");
    if (v) evaluatedName(a, v, "wait -p", fact, ctx);
  } else if (name !== null && DECLARES.has(name)) {
    // `builtin export PAGER`, `command unset PATH`, and `! unset PATH` (which tree-sitter reads as a plain
    // command): the same builtin as a declaration_command. (Those never come here.)
    if (declares(a, fact, ctx, name, args)) {
      ctx.scope.forgetAll();
      affects(a, ctx, { opaque: true });
    }
  }
}

/** What a command that runs in the shell itself changes: cd, variables it reads into, sourced files, function calls. */
function changesState(a: Analysis, fact: Command, eff: Effective, ctx: Ctx): void {
  const scope = ctx.scope;
  const name = eff.name;
  const args = eff.argv.slice(1);
  if (name === "cd" || name === "pushd") {
    affects(a, ctx, { cwd: true });
    const end = args.findIndex((w) => w.value === "--");
    const operands = args.filter((w, i) => !(w.value.startsWith("-") && w.value !== "-" && (end < 0 || i < end)) && w.value !== "--");
    const target = operands[0];
    if (!target) {
      // `cd` alone goes to $HOME; `pushd` alone swaps the top two directories.
      const home = scope.get("HOME") ?? a.home;
      if (name === "pushd" || home.includes(DYN)) scope.lostCwd();
      else scope.changeDir(() => home);
    } else if (target.dynamic || target.value === "-" || /^[+-]\d+$/.test(target.value)) {
      scope.lostCwd();
    } else if (/(?:^|\/)\.\.(?:\/|$)/.test(target.value) && args.some((w) => /^-[a-zA-Z@]*P/.test(w.value))) {
      // `cd -P l/..` climbs from where a symlink l really leads, which the text does not tell.
      scope.lostCwd();
    } else {
      const cdpath = scope.get("CDPATH");
      if (cdpath !== undefined && cdpath.includes(DYN)) scope.lostCwd();
      else scope.changeDir((from) => cdTarget(target.value, from, cdpath));
    }
    return;
  }
  if (name === "popd") {
    affects(a, ctx, { cwd: true });
    scope.lostCwd();
    return;
  }
  if (name === "read" || name === "mapfile" || name === "readarray" || name === "getopts" || name === "wait") {
    // Options that take a value, per builtin (mapfile's -t does not: `mapfile -t x` fills x).
    const p = parseArgs(args, name === "read" ? "adinNptu" : name === "wait" ? "p" : name === "getopts" ? "" : "dnOsuCc");
    const arrays = [p.values.get("a"), name === "wait" ? p.values.get("p") : undefined].filter((w): w is Word => w !== undefined);
    const names = name === "getopts" ? p.operands.slice(1, 2) : name === "wait" ? [] : p.operands;
    for (const w of [...arrays, ...names]) if (!w.dynamic) shellAssigns(a, fact, ctx, w.value);
    // The variables they fill when no name is given, and getopts' own.
    if (name === "read" && names.length === 0 && arrays.length === 0) forget(a, ctx, "REPLY");
    if ((name === "mapfile" || name === "readarray") && names.length === 0) forget(a, ctx, "MAPFILE");
    if (name === "getopts") for (const v of ["OPTARG", "OPTIND"]) forget(a, ctx, v);
    return;
  }
  if (name === "printf") {
    const v = parseArgs(args, "v").values.get("v");
    if (v && !v.dynamic) shellAssigns(a, fact, ctx, v.value);
    return;
  }
  if (name === "source" || name === ".") {
    // A sourced file may change anything.
    scope.forgetAll();
    affects(a, ctx, { opaque: true });
    return;
  }
  if (name === "eval" && (inlineCode(eff)?.dynamic ?? false)) {
    scope.forgetAll();
    affects(a, ctx, { opaque: true });
    return;
  }
  const calls = name !== null && eff.wrappers.length === 0 ? a.effects.get(name) : undefined;
  if (calls) {
    if (calls.opaque) scope.forgetAll();
    if (calls.cwd) scope.lostCwd();
    for (const n of calls.names) scope.forget(n);
    affects(a, ctx, { opaque: calls.opaque, cwd: calls.cwd });
    if (ctx.fn !== null) for (const n of calls.names) affects(a, ctx, { name: n });
  }
}

/** A command built from another's words (find -exec) may itself be `bash -c '…'`, or run its own arguments. */
function derived(a: Analysis, fact: Command, nested: Ctx): void {
  const eff = unwrap(fact.argv);
  const code = inlineCode(eff);
  if (code && !code.dynamic) a.run(code.value, { ...nested, via: `${eff.name} -c` }, `in the string given to ${eff.name} -c`);
  if (nested.depth > a.options.maxNestedDepth) return;
  for (const argv of argumentCommands(eff)) {
    const child = makeCommand(a, argv.map((w) => w.raw).join(" "), argv, [], { ...nested, via: `the arguments of ${eff.name}` });
    derived(a, child, { ...nested, depth: nested.depth + 1 });
  }
}

/** What a shell reading stdin gets, when the guard can know it: a heredoc, a herestring, or echo/printf/cat before it. */
function stdinText(fact: Command, stages: Map<number, Command[]>): string | null {
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
