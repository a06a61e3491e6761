// State carry-over: just-bash resets cwd, variables, functions and options on every exec(); an interactive shell keeps
// them. Before each command line the shell's state goes into the interpreter's base state (restore); a trailer at
// the end of the line reports the final state ($?, variables, function names and texts, arrays) back (transform.ts
// TRAILER_SOURCE), and function definitions are tracked as they run, so functions carry over exactly. The state is
// plain data (protocol.ts CarryState), so a fresh worker (after C-c had to end one) starts from it too.

import { hex } from "../../lib/text.ts";
import type { Interpreter } from "./interpreter.ts";
import type { CarryState } from "./protocol.ts";
import { mayChangeFunctionsOrArrays } from "./state-changes.ts";
import {
  findFunctionDefs,
  STATUS_VARIABLE,
  stateTrailer,
  statusTrailer,
  type FunctionDefNode,
  type FunctionRecord,
  type RewriteOptions,
  type ScriptNode,
  type StatementNode,
  TRAILER_SOURCE,
} from "./transform.ts";

/** What the trailer reported. */
interface Captured {
  code: number;
  env: Record<string, string>;
  names: string[];
  types: string;
  arrays: string;
}

/** Arrays the shell keeps itself; never carried. */
const SPECIAL_ARRAYS = new Set(["PIPESTATUS", "FUNCNAME", "BASH_SOURCE", "BASH_LINENO", "BASH_REMATCH", "GROUPS", "DIRSTACK", "BASH_ARGV", "BASH_ARGC"]);
/** Environment entries that are not the user's. */
const NOT_CARRIED = new Set(["_"]);

function carried(name: string): boolean {
  return !NOT_CARRIED.has(name) && !name.startsWith(STATUS_VARIABLE);
}

/** The platform's random bytes, fetched 1 KiB at a time (a call costs 10 µs in Node); each byte is used once. */
const pool = new Uint8Array(1024);
let poolAt = pool.length;

/** 16 random hex digits. */
function randomToken(): string {
  if (poolAt + 8 > pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const token = hex(pool, poolAt, poolAt + 8);
  poolAt += 8;
  return token;
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  let n = 0;
  for (const key in a) {
    if (a[key] !== b[key]) return false;
    n++;
  }
  return n === Object.keys(b).length;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `declare -x NAME="VALUE"` lines of the exported variables (what `export -p` prints), sorted. */
export function exportText(state: CarryState): string {
  const quote = (v: string): string => v.replace(/(["\\$`])/g, "\\$1");
  return state.exported
    .filter((name) => state.env[name] !== undefined)
    .sort()
    .map((name) => `declare -x ${name}="${quote(state.env[name] ?? "")}"\n`)
    .join("");
}

export class CarryOver {
  /** The state the next command line starts from. */
  state: CarryState;
  /**
   * Counts changes of `state` (a new object, or a new exit code): the shell posts the state and rewrites the env file
   * only when it has changed since it last did.
   */
  version = 0;
  /** The running line left functions, variables, exports and cwd as they were (adoptStatus): restore has less to do. */
  private unchanged = false;
  private functions = new Map<string, FunctionRecord>();
  private arrayPrelude: StatementNode[] = [];
  private readonly trailer: StatementNode | null;
  private captured: Captured | null = null;
  // function definitions of the running line: ids the rewrite gave them, and the ones that ran
  private fnIds = new Map<string, FunctionRecord>();
  private nextFnId = 1;
  /** The running line's token: only its own trailer and function tracking carry it (see transform.ts stateTrailer). */
  private token = "";
  private defined = new Map<string, FunctionRecord>();

  /** Starts from `from` (a replaced worker's state) or from the interpreter's fresh state in `cwd`. */
  constructor(
    private readonly interp: Interpreter,
    from: CarryState | undefined,
    cwd: string,
  ) {
    this.trailer = interp.parse(TRAILER_SOURCE).statements[0] ?? null;
    if (from === undefined) {
      const st = interp.state;
      this.state = {
        env: Object.fromEntries(st.env),
        cwd,
        exported: [...st.exportedVars],
        readonly: [...st.readonlyVars],
        functions: [],
        arrays: "",
        lastExitCode: 0,
      };
    } else {
      this.state = from;
      this.restore();
    }
  }

  // ---------------------------------------------------------------------------------------------- during a line

  /** The parts of a command line's rewrite that carry state: arrays first, the trailer last, functions tracked. */
  rewrite(stream: boolean, tty: boolean, nounsetCheck: boolean): RewriteOptions {
    this.captured = null;
    this.unchanged = false;
    this.defined = new Map();
    this.fnIds = new Map();
    const token = randomToken();
    this.token = token;
    return {
      stream,
      tty,
      nounsetCheck,
      prelude: this.arrayPrelude,
      trailer: (ast) => (this.trailer !== null && this.mayChange(ast) ? stateTrailer(this.trailer, token) : statusTrailer(token)),
      onFunction: (record) => {
        const id = `${token}-${this.nextFnId++}`;
        this.fnIds.set(id, record);
        return id;
      },
    };
  }

  /** May the line change functions or arrays (so that the full trailer must report them)? */
  private mayChange(ast: ScriptNode): boolean {
    const aliases = new Set<string>();
    for (const key of Object.keys(this.state.env)) if (key.startsWith("BASH_ALIAS_")) aliases.add(key.slice("BASH_ALIAS_".length));
    return mayChangeFunctionsOrArrays(ast, new Set(this.functions.keys()), aliases);
  }

  functionRan(id: string): void {
    const record = this.fnIds.get(id);
    if (record !== undefined) this.defined.set(record.name, record);
  }

  /** The trailer ran: `__sandshell_state TOKEN "$?" NAMES TYPES ARRAYS`. Returns the line's exit code. */
  report(args: string[], env: Map<string, string>): number {
    if (this.token === "" || args[0] !== this.token) return 1; // not the trailer: a command calling it by name
    const vars: Record<string, string> = {};
    for (const [k, v] of env) if (carried(k)) vars[k] = v;
    const code = Number(args[1] ?? "0");
    this.captured = {
      code: Number.isFinite(code) ? code : 0,
      env: vars,
      names: (args[2] ?? "").split("\n").filter((n) => n !== ""),
      types: args[3] ?? "",
      arrays: args[4] ?? "",
    };
    return this.captured.code;
  }

  // ---------------------------------------------------------------------------------------------- after a line

  /** The exit code the trailer reported, when it ran. */
  get reportedCode(): number | null {
    return this.captured?.code ?? null;
  }

  /** Takes the state the trailer reported, when it ran; returns whether it did. */
  adoptReported(): boolean {
    const c = this.captured;
    this.captured = null;
    if (c === null) return false;
    this.replace(this.fromCaptured(c));
    return true;
  }

  /**
   * The line ended with the short trailer: its variables, cwd and $? are exec()'s final environment; functions and
   * arrays are as they were. Returns the exit code, or null when the short trailer did not run.
   */
  adoptStatus(env: Record<string, string> | undefined): number | null {
    const code = this.token === "" ? undefined : env?.[`${STATUS_VARIABLE}${this.token}`];
    if (env === undefined || code === undefined) return null;
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (carried(k)) vars[k] = v;
    const st = this.interp.state;
    const cwd = vars.PWD ?? this.state.cwd;
    const exported = [...st.exportedVars];
    const readonly = [...st.readonlyVars];
    const was = this.state;
    // Most lines change nothing the next one starts from (`echo hi`): the state stays the same object.
    this.unchanged = cwd === was.cwd && sameEnv(vars, was.env) && sameList(exported, was.exported) && sameList(readonly, was.readonly);
    if (!this.unchanged) this.replace({ ...was, env: vars, cwd, exported, readonly });
    const n = Number(code);
    return Number.isInteger(n) ? n : 0;
  }

  /** The trailer did not run, but the interpreter returned its final environment. */
  adoptEnv(env: Record<string, string>): void {
    this.replace({ ...this.state, env: { ...env }, cwd: env.PWD ?? this.state.cwd });
  }

  /** `set -u` stopped the line before the trailer: it stays on, as in bash. */
  keepNounset(): void {
    const opts = new Set((this.state.env.SHELLOPTS ?? "").split(":").filter((o) => o !== ""));
    opts.add("nounset");
    this.replace({ ...this.state, env: { ...this.state.env, SHELLOPTS: [...opts].sort().join(":") } });
  }

  /** The line ended with `code`: `$?` is set and the state goes into the interpreter for the next line. */
  finish(code: number): void {
    this.captured = null;
    this.setLastCode(code);
    this.restore();
  }

  setLastCode(code: number): void {
    if (this.state.lastExitCode !== code || this.state.env["?"] !== String(code)) this.version++;
    this.state.lastExitCode = code;
    this.state.env["?"] = String(code);
    const st = this.interp.state;
    st.lastExitCode = code;
    st.env.set("?", String(code));
  }

  // ---------------------------------------------------------------------------------------------- the interpreter

  private replace(next: CarryState): void {
    this.state = next;
    this.version++;
  }

  /** Puts the state into the interpreter's base state (what the next exec starts from). */
  private restore(): void {
    const carry = this.state;
    const st = this.interp.state;
    if (this.unchanged) {
      // exec() ran on copies of the environment, options, functions and arrays, and the exported and readonly names
      // were found as they were (adoptStatus); only shopt's options are the base state's own object, changed in place.
      this.unchanged = false;
      st.env.delete("?"); // as the rebuild below leaves it: the base environment holds exported variables only
      this.restoreShopts();
      return;
    }
    // The base environment holds only exported variables: `bash -c`, `sh -c` and xargs children start from it. The
    // rest is passed to each top-level exec() as its own environment (see the interactive shell's runLine).
    const exported = new Set(carry.exported);
    st.env = new Map(Object.entries(carry.env).filter(([k]) => exported.has(k)));
    st.cwd = carry.cwd;
    st.previousDir = carry.env.OLDPWD ?? carry.cwd;
    st.lastExitCode = carry.lastExitCode;
    st.exportedVars = new Set(carry.exported);
    st.readonlyVars = new Set(carry.readonly);
    const opts = new Set((carry.env.SHELLOPTS ?? "").split(":"));
    for (const key of Object.keys(st.options)) st.options[key] = opts.has(key);
    this.restoreShopts();
    // functions: this worker's own records where it has them, else parsed from their text
    const records = new Map<string, FunctionRecord>();
    for (const { name, text } of carry.functions) {
      const known = this.functions.get(name);
      if (known !== undefined && known.text === text) {
        records.set(name, known);
        continue;
      }
      const node = this.functionFromText(name, text);
      if (node !== null) records.set(name, { name, text, node });
    }
    this.functions = records;
    st.functions = new Map([...records].map(([name, r]) => [name, { ...r.node, sourceFile: "main" }]));
    this.arrayPrelude = this.arrayStatements(carry.arrays);
  }

  private restoreShopts(): void {
    const carry = this.state;
    const st = this.interp.state;
    const shopts = new Set((carry.env.BASHOPTS ?? "").split(":"));
    if (carry.env.BASHOPTS !== undefined) for (const key of Object.keys(st.shoptOptions)) st.shoptOptions[key] = shopts.has(key);
    st.shoptOptions.expand_aliases = true;
  }

  private functionFromText(name: string, text: string): FunctionDefNode | null {
    try {
      const defs = findFunctionDefs(this.interp.parse(text)).filter((f) => f.name === name);
      return defs[defs.length - 1] ?? null;
    } catch {
      return null;
    }
  }

  private arrayStatements(text: string): StatementNode[] {
    if (text.trim() === "") return [];
    try {
      return this.interp.parse(text).statements;
    } catch {
      return [];
    }
  }

  /** The state after a command line whose trailer ran. */
  private fromCaptured(c: Captured): CarryState {
    const st = this.interp.state;
    // functions: the definitions that ran in this command line, else the ones carried, else `type`'s text
    const typeTexts = functionTexts(c.types);
    const records = new Map<string, FunctionRecord>();
    for (const name of c.names) {
      const record = this.defined.get(name) ?? this.functions.get(name);
      if (record !== undefined) {
        records.set(name, record);
        continue;
      }
      const text = typeTexts.get(name);
      const node = text === undefined ? null : this.functionFromText(name, text);
      if (node !== null && text !== undefined) records.set(name, { name, text, node });
    }
    this.functions = records;
    return {
      env: c.env,
      cwd: c.env.PWD ?? this.state.cwd,
      exported: [...st.exportedVars],
      readonly: [...st.readonlyVars],
      functions: [...records.values()].map((r) => ({ name: r.name, text: r.text })),
      arrays: this.arrayText(c.arrays),
      lastExitCode: c.code,
    };
  }

  /** `declare -pa; declare -pA` output without the shell's own arrays, in a form that restores faithfully. */
  private arrayText(declared: string): string {
    const arrays = this.arrayStatements(declared).filter((s) => {
      const args = (s.pipelines[0]?.commands[0] as { args?: Array<{ parts: Array<{ value?: string }> }> } | undefined)?.args ?? [];
      const assignment = args.map((a) => a.parts.map((p) => p.value ?? "").join("")).find((t) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(t));
      const name = assignment?.slice(0, assignment.indexOf("=")) ?? "";
      return name !== "" && !SPECIAL_ARRAYS.has(name) && !name.startsWith("BASH_");
    });
    // `declare -a x=([0]="a b")` splits "a b" in just-bash 3.4.2, `declare -a x; x=([0]="a b")` does not
    return arrays
      .map((s) => (s.sourceText ?? "").replace(/^declare\s+(-[A-Za-z]+)\s+([A-Za-z_][A-Za-z0-9_]*)=\(/, "declare $1 $2; $2=("))
      .join("\n");
  }
}

/** `type NAME` output for several functions ("NAME is a function" and its text), by name. */
function functionTexts(types: string): Map<string, string> {
  const texts = new Map<string, string>();
  let current: string | null = null;
  let body: string[] = [];
  const close = (): void => {
    if (current !== null) texts.set(current, body.join("\n"));
  };
  for (const line of types.split("\n")) {
    const m = /^(\S+) is a function$/.exec(line);
    if (m !== null) {
      close();
      current = m[1] ?? null;
      body = [];
    } else body.push(line);
  }
  close();
  return texts;
}
