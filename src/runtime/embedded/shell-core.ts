// The embedded shell, transport-agnostic: it runs inside a worker (worker.ts in the browser, node-entry.ts in Node)
// and talks to the page only through `post` and `handle`. One instance is either the agent's interactive shell
// (prompt, line editor, multi-line input, OSC 654 markers, state carried from command to command) or a background
// job (one command line, its output, its exit code).
//
// just-bash resets cwd, variables, functions and options on every exec(); this shell carries them over: before each
// command it puts the previous state into the interpreter's base state, and a trailer statement at the end of every
// command line reports the final state ($?, variables, functions, arrays) back (transform.ts).

import { formatMarker } from "../markers.ts";
import { Bash, defineCommand, getCommandNames } from "just-bash/browser";
import { EMBEDDED } from "./config.ts";
import { LineEditor } from "./line-editor.ts";
import { MirroredFs, type TtyKind } from "./mirrored-fs.ts";
import type { CarryState, FsOp, HostToWorker, InitMessage, WorkerToHost } from "./protocol.ts";
import {
  completeness,
  findFunctionDefs,
  type FunctionDefNode,
  type FunctionRecord,
  rewriteScript,
  type RewriteOptions,
  type ScriptNode,
  type StatementNode,
  TRAILER_SOURCE,
  COMMANDS,
} from "./transform.ts";

export type Post = (message: WorkerToHost) => void;

/** The slice of just-bash's private interpreter state that carries over (just-bash 3.4.2, Bash.state). */
interface BashState {
  env: Map<string, string>;
  cwd: string;
  previousDir: string;
  functions: Map<string, unknown>;
  options: Record<string, boolean>;
  shoptOptions: Record<string, boolean>;
  exportedVars: Set<string>;
  readonlyVars: Set<string>;
  lastExitCode: number;
}

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

export { formatMarker };

/** A command's output for the terminal: LF as CRLF, and no OSC 654 marker (only the interpreter's own are markers). */
function toTerminal(text: string): string {
  return text.replace(/\x1b\]654;[^\x07\x1b]*(?:\x07|\x1b\\)?/g, "").replace(/\r?\n/g, "\r\n");
}

/**
 * A command line whose trailer did not run ended early: by `exit` (or errexit), which ends the shell as in bash, or by
 * an interpreter error, which does not: a limit (126), the time limit (124), a syntax error (2). `output` is the end of
 * what the command line printed (its error message may have been streamed already).
 */
function interpreterError(exitCode: number, output: string): boolean {
  if (exitCode === 126 || exitCode === 124) return true;
  if (exitCode === 2 && /syntax error/i.test(output)) return true;
  return false;
}

/** Cooked-mode reading of the terminal by a running command (`cat`, `read`, `head -n 1`): echo, backspace, Enter, C-d. */
class TtyRead {
  private line = "";
  private collected = "";
  private lines = 0;
  private readonly silent: boolean;
  constructor(
    readonly kind: TtyKind,
    private readonly echo: (text: string) => void,
    private readonly done: (text: string) => void,
  ) {
    this.silent = kind === "line-silent" || (typeof kind === "object" && "chars" in kind && kind.silent);
  }

  /** Does a completed line end the read? */
  private lineEnds(): boolean {
    const k = this.kind;
    if (k === "eof") return false;
    if (typeof k === "object" && "lines" in k) return ++this.lines >= k.lines;
    return true;
  }

  /** Returns the input after the point where the read completed ("" when it takes everything). */
  feed(input: string): string {
    // bracketed-paste brackets are not text (a terminal sends them only while the line editor reads, but be safe)
    const data = input.replace(/\x1b\[20[01]~/g, "");
    const chars = typeof this.kind === "object" && "chars" in this.kind ? this.kind.chars : 0;
    for (let i = 0; i < data.length; i++) {
      const ch = data[i] as string;
      if (ch === "\r" || ch === "\n") {
        if (ch === "\r" && data[i + 1] === "\n") i++;
        this.echo("\r\n");
        this.collected += `${this.line}\n`;
        this.line = "";
        if (this.lineEnds()) {
          this.done(this.collected);
          return data.slice(i + 1);
        }
      } else if (ch === "\x04") {
        // C-d: end of input on an empty line, else hand over the line so far
        if (this.line === "" || this.kind !== "eof") {
          this.done(this.collected + this.line);
          return data.slice(i + 1);
        }
        this.collected += this.line;
        this.line = "";
      } else if (ch === "\x7f" || ch === "\b") {
        if (this.line !== "") {
          const kept = Array.from(this.line);
          kept.pop();
          this.line = kept.join("");
          if (!this.silent) this.echo("\b \b");
        }
      } else if (ch === "\x1b") {
        // escape sequences are taken as typed (a terminal in cooked mode would too), but not echoed raw
        this.line += ch;
      } else if (ch.charCodeAt(0) >= 0x20 || ch === "\t") {
        this.line += ch;
        if (!this.silent) this.echo(ch);
        // `read -n N`: N characters end the read without Enter (the shell keeps the terminal out of line mode)
        if (chars > 0 && Array.from(this.line).length >= chars) {
          this.done(this.line);
          return data.slice(i + 1);
        }
      }
    }
    return "";
  }

  /** C-c or the end of the command: what was typed so far. */
  cancel(): void {
    this.done("");
  }
}

export class ShellCore {
  private bash: Bash | null = null;
  private fs: MirroredFs | null = null;
  private init: InitMessage | null = null;
  private appliedSeq = 0;

  // output
  private outBuf = "";
  /** The end of what was printed (to tell an interpreter error from `exit`). */
  private recent = "";
  private lastFlush = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  // interactive state
  private editor: LineEditor;
  private pendingLines: string[] = [];
  private typeahead = "";
  private busy = false;
  private exited = false;
  private abort: AbortController | null = null;
  private interrupted = false;
  private tty: TtyRead | null = null;
  private ttyEnabled = true;

  // carried state
  private carry: CarryState | null = null;
  private envText: string | null = null;
  private functions = new Map<string, FunctionRecord>();
  private arrayPrelude: StatementNode[] = [];
  private trailer: StatementNode | null = null;

  // per exec
  private armed: RewriteOptions | null = null;
  /** The running line was stopped because of `set -u` (abortOnNounset). */
  private nounsetAbort = false;
  /** `set -u` is on, or the running line may turn it on (the interpreter's live options are not visible from here). */
  private nounsetPossible = false;
  private captured: Captured | null = null;
  private fnIds = new Map<number, FunctionRecord>();
  private nextFnId = 1;
  private defined = new Map<string, FunctionRecord>();

  constructor(private readonly post: Post) {
    this.editor = new LineEditor((text) => this.emit(text), EMBEDDED.historySize);
  }

  /** Posted once the worker is loaded. */
  static programs(): string[] {
    return [...getCommandNames()];
  }

  handle(message: HostToWorker): void {
    switch (message.t) {
      case "init":
        void this.start(message).catch((err: unknown) => this.fail(err));
        break;
      case "input":
        this.onInput(message.data);
        break;
      case "interrupt":
        this.onInterrupt();
        break;
      case "resize":
        break;
      case "fs":
        this.fs?.applyOps(message.ops);
        this.appliedSeq = message.seq;
        break;
    }
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.flush();
    this.post({ t: "error", message });
  }

  // ------------------------------------------------------------------------------------------------ output

  private emit(text: string): void {
    if (text === "") return;
    this.recent = text.length >= 2_000 ? text.slice(-2_000) : (this.recent + text).slice(-2_000);
    this.outBuf += text;
    const now = Date.now();
    if (this.outBuf.length >= EMBEDDED.outputFlushChars || now - this.lastFlush >= EMBEDDED.outputFlushMs) {
      this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, EMBEDDED.outputFlushMs);
  }

  private flush(): void {
    if (this.flushTimer !== null) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    this.lastFlush = Date.now();
    if (this.outBuf === "") return;
    const text = this.outBuf;
    this.outBuf = "";
    this.post({ t: "data", text });
  }

  private marker(payload: string): string {
    return formatMarker(payload);
  }

  // ------------------------------------------------------------------------------------------------ start

  private async start(init: InitMessage): Promise<void> {
    this.init = init;
    this.appliedSeq = init.seq;
    const fs = new MirroredFs({ maxTotalBytes: EMBEDDED.limits.maxFileSystemBytes });
    // the page's files first; the interpreter adds its layout (/bin, /dev, /proc…), which is never mirrored
    fs.applyOps([{ op: "put", entries: init.fs }]);
    this.fs = fs;

    const state = init.state;
    let cwd = state?.cwd ?? init.cwd;
    if (!(await fs.exists(cwd)) || !(await fs.stat(cwd)).isDirectory) cwd = init.workspace;
    const env: Record<string, string> = {
      HOME: init.workspace,
      PATH: "/usr/bin:/bin",
      USER: "user",
      LOGNAME: "user",
      SHELL: "/bin/bash",
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      ...init.env,
    };
    const bash = new Bash({
      fs,
      cwd,
      env,
      executionLimits: EMBEDDED.limits,
      customCommands: [
        defineCommand(COMMANDS.fn, async (args) => {
          const record = this.fnIds.get(Number(args[0]));
          if (record !== undefined) this.defined.set(record.name, record);
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.syntax, async (args, ctx) => this.syntaxCheck(args, ctx)),
        defineCommand(COMMANDS.noStdin, async (_args, ctx) => ({ stdout: "", stderr: "", exitCode: String(ctx.stdin) === "" ? 0 : 1 })),
        defineCommand(COMMANDS.prompt, async (args) => {
          this.emit(toTerminal(args.join(" ")));
          this.flush();
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.state, async (args, ctx) => {
          const env: Record<string, string> = {};
          for (const [k, v] of ctx.env) if (!NOT_CARRIED.has(k)) env[k] = v;
          const code = Number(args[0] ?? "0");
          this.captured = {
            code: Number.isFinite(code) ? code : 0,
            env,
            names: (args[1] ?? "").split("\n").filter((n) => n !== ""),
            types: args[2] ?? "",
            arrays: args[3] ?? "",
          };
          return { stdout: "", stderr: "", exitCode: this.captured.code };
        }),
      ],
    });
    bash.registerTransformPlugin({
      name: "sandshell",
      transform: ({ ast }) => {
        const options = this.armed;
        if (options === null) return { ast };
        this.armed = null; // only the command line itself, not `bash -c` or xargs inside it
        return { ast: rewriteScript(ast as unknown as ScriptNode, options) as unknown as typeof ast };
      },
    });
    this.bash = bash;
    const st = this.state();
    st.shoptOptions.expand_aliases = true; // an interactive shell expands aliases
    this.trailer = (bash.transform(TRAILER_SOURCE).ast as unknown as ScriptNode).statements[0] ?? null;

    fs.attach((ops) => this.reportFs(ops), {
      output: (text) => {
        this.emit(toTerminal(text));
        this.abortOnNounset(text);
      },
      readTty: (kind) => this.readTty(kind),
    });

    if (init.mode === "job") {
      this.ttyEnabled = false;
      await this.runJob(init.command ?? "");
      return;
    }

    this.carry = state ?? this.captureNow(cwd);
    if (state !== undefined) this.restore(state);
    this.editor.setHistory(state?.history ?? []);
    if (init.interrupted) {
      this.emit(`\r\n${this.marker(`exit=${init.nonce}:${EMBEDDED.interruptExitCode}`)}`);
      this.carry.lastExitCode = EMBEDDED.interruptExitCode;
      this.state().lastExitCode = EMBEDDED.interruptExitCode;
      this.state().env.set("?", String(EMBEDDED.interruptExitCode));
      this.carry.env["?"] = String(EMBEDDED.interruptExitCode);
      this.emit(this.marker(`cwd=${init.nonce}:${this.carry.cwd}`));
    } else {
      this.emit(this.marker("interactive") + this.marker(`cwd=${init.nonce}:${this.carry.cwd}`));
    }
    await this.writeEnvFile();
    if (init.envFile !== undefined) this.emit(this.marker(`envfile=${init.nonce}:${init.envFile}`));
    this.post({ t: "state", state: this.snapshotState() });
    this.showPrompt();
  }

  /** Keeps `export -p` of the shell in init.envFile, for the session engine to restore after `exit`. */
  private async writeEnvFile(): Promise<void> {
    const path = this.init?.envFile;
    const carry = this.carry;
    if (path === undefined || carry === null || this.fs === null) return;
    const quote = (v: string): string => v.replace(/(["\\$`])/g, "\\$1");
    const text = carry.exported
      .filter((name) => carry.env[name] !== undefined)
      .sort()
      .map((name) => `declare -x ${name}="${quote(carry.env[name] ?? "")}"\n`)
      .join("");
    if (text === this.envText) return;
    this.envText = text;
    try {
      await this.fs.writeFile(path, text);
    } catch {
      // /tmp removed: nothing to restore from then
    }
  }

  private state(): BashState {
    return (this.bash as unknown as { state: BashState }).state;
  }

  private reportFs(ops: FsOp[]): void {
    this.post({ t: "fs", seen: this.appliedSeq, ops });
  }

  // ------------------------------------------------------------------------------------------------ state carry-over

  private captureNow(cwd: string): CarryState {
    const st = this.state();
    return {
      env: Object.fromEntries(st.env),
      cwd,
      exported: [...st.exportedVars],
      readonly: [...st.readonlyVars],
      functions: [],
      arrays: "",
      lastExitCode: 0,
      history: [],
    };
  }

  /** `bash -n [-c TEXT | FILE]`: parses what bash would run and says whether it parses; runs nothing. */
  private async syntaxCheck(args: string[], ctx: { fs: { readFile(path: string): Promise<string> }; cwd: string; stdin: unknown }): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    let text: string | null = null;
    let where = "bash";
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === "-c") {
        text = args[i + 1] ?? "";
        if (args[i + 1] === undefined) return { stdout: "", stderr: "bash: -c: option requires an argument\n", exitCode: 2 };
        break;
      }
      if (a === "-o") {
        i++;
        continue;
      }
      if (a.startsWith("-") && a !== "-" && a !== "--") continue;
      const file = a === "--" ? args[i + 1] : a;
      if (file === undefined) break;
      where = file;
      const path = file.startsWith("/") ? file : `${ctx.cwd.replace(/\/$/, "")}/${file}`;
      try {
        text = await ctx.fs.readFile(path);
      } catch {
        return { stdout: "", stderr: `bash: ${file}: No such file or directory\n`, exitCode: 127 };
      }
      break;
    }
    // stdin is bytes, one per character (just-bash's ByteString)
    text ??= new TextDecoder().decode(Uint8Array.from(String(ctx.stdin), (c) => c.charCodeAt(0)));
    try {
      this.parse(text.startsWith("#!") ? text.slice(text.indexOf("\n") + 1 || text.length) : text);
      return { stdout: "", stderr: "", exitCode: 0 };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { stdout: "", stderr: `${where}: ${message}\n`, exitCode: 2 };
    }
  }

  private parse(text: string): ScriptNode {
    return (this.bash as Bash).transform(text).ast as unknown as ScriptNode;
  }

  /** Puts `carry` into the interpreter's base state (what the next exec starts from). */
  private restore(carry: CarryState): void {
    const st = this.state();
    // The base environment holds only exported variables: `bash -c`, `sh -c` and xargs children start from it. The
    // rest is passed to each top-level exec() as its own environment (runLine).
    const exported = new Set(carry.exported);
    st.env = new Map(Object.entries(carry.env).filter(([k]) => exported.has(k)));
    st.cwd = carry.cwd;
    st.previousDir = carry.env.OLDPWD ?? carry.cwd;
    st.lastExitCode = carry.lastExitCode;
    st.exportedVars = new Set(carry.exported);
    st.readonlyVars = new Set(carry.readonly);
    const opts = new Set((carry.env.SHELLOPTS ?? "").split(":"));
    for (const key of Object.keys(st.options)) st.options[key] = opts.has(key);
    const shopts = new Set((carry.env.BASHOPTS ?? "").split(":"));
    if (carry.env.BASHOPTS !== undefined) for (const key of Object.keys(st.shoptOptions)) st.shoptOptions[key] = shopts.has(key);
    st.shoptOptions.expand_aliases = true;
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

  private functionFromText(name: string, text: string): FunctionDefNode | null {
    try {
      const defs = findFunctionDefs(this.parse(text)).filter((f) => f.name === name);
      return defs[defs.length - 1] ?? null;
    } catch {
      return null;
    }
  }

  private arrayStatements(text: string): StatementNode[] {
    if (text.trim() === "") return [];
    try {
      return this.parse(text).statements;
    } catch {
      return [];
    }
  }

  /** The state after a command line whose trailer ran. */
  private fromCaptured(c: Captured): CarryState {
    const st = this.state();
    // functions: the definitions that ran in this command line, else the ones carried, else `type`'s text
    const typeTexts = new Map<string, string>();
    let current: string | null = null;
    let body: string[] = [];
    const close = (): void => {
      if (current !== null) typeTexts.set(current, body.join("\n"));
    };
    for (const line of c.types.split("\n")) {
      const m = /^(\S+) is a function$/.exec(line);
      if (m !== null) {
        close();
        current = m[1] ?? null;
        body = [];
      } else body.push(line);
    }
    close();
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
    const arrays = this.arrayStatements(c.arrays).filter((s) => {
      const args = (s.pipelines[0]?.commands[0] as { args?: Array<{ parts: Array<{ value?: string }> }> } | undefined)?.args ?? [];
      const assignment = args.map((a) => a.parts.map((p) => p.value ?? "").join("")).find((t) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(t));
      const name = assignment?.slice(0, assignment.indexOf("=")) ?? "";
      return name !== "" && !SPECIAL_ARRAYS.has(name) && !name.startsWith("BASH_");
    });
    // `declare -a x=([0]="a b")` splits "a b" in just-bash 3.4.2, `declare -a x; x=([0]="a b")` does not
    const arrayText = arrays
      .map((s) => (s.sourceText ?? "").replace(/^declare\s+(-[A-Za-z]+)\s+([A-Za-z_][A-Za-z0-9_]*)=\(/, "declare $1 $2; $2=("))
      .join("\n");
    return {
      env: c.env,
      cwd: c.env.PWD ?? this.carry?.cwd ?? this.init?.workspace ?? "/",
      exported: [...st.exportedVars],
      readonly: [...st.readonlyVars],
      functions: [...records.values()].map((r) => ({ name: r.name, text: r.text })),
      arrays: arrayText,
      lastExitCode: c.code,
      history: [],
    };
  }

  private snapshotState(): CarryState {
    const carry = this.carry as CarryState;
    return { ...carry, history: this.editor.getHistory() };
  }

  // ------------------------------------------------------------------------------------------------ prompt and input

  private promptText(): string {
    const cwd = this.carry?.cwd ?? "/";
    const home = this.carry?.env.HOME ?? "";
    const shown = home !== "" && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
    return `\x1b[1;32muser@sandshell\x1b[0m:\x1b[1;34m${shown}\x1b[0m$ `;
  }

  private showPrompt(): void {
    this.emit(this.marker("prompt"));
    this.editor.start(this.promptText());
    this.flush();
    this.drainTypeahead();
  }

  private drainTypeahead(): void {
    if (this.typeahead === "" || this.busy || this.exited || !this.editor.reading) return;
    const data = this.typeahead;
    this.typeahead = "";
    this.onInput(data);
  }

  private onInput(data: string): void {
    if (this.exited || this.init?.mode !== "shell") return;
    if (this.busy) {
      const cc = data.indexOf("\x03");
      const before = cc === -1 ? data : data.slice(0, cc);
      if (before !== "") {
        if (this.tty !== null) {
          const rest = this.tty.feed(before);
          this.typeahead += rest;
        } else this.typeahead += before;
      }
      if (cc !== -1) this.onInterrupt();
      this.flush();
      return;
    }
    if (!this.editor.reading) {
      this.typeahead += data;
      return;
    }
    const { event, rest } = this.editor.feed(data);
    if (event !== null) {
      this.typeahead = rest + this.typeahead;
      this.onEditorEvent(event);
    }
    this.flush();
  }

  private onEditorEvent(event: import("./line-editor.ts").EditorEvent): void {
    const nonce = this.init?.nonce ?? "";
    if (event.type === "interrupt") {
      this.pendingLines = [];
      this.setLastCode(EMBEDDED.interruptExitCode);
      this.emit(this.marker(`exit=${nonce}:${EMBEDDED.interruptExitCode}`) + this.marker(`cwd=${nonce}:${this.carry?.cwd ?? ""}`));
      this.showPrompt();
      return;
    }
    if (event.type === "eof") {
      if (this.pendingLines.length > 0) {
        const text = this.pendingLines.join("\n");
        this.pendingLines = [];
        this.emit("\r\n");
        void this.runLine(text);
        return;
      }
      this.emit("exit\r\n");
      this.exit(this.carry?.lastExitCode ?? 0);
      return;
    }
    this.pendingLines.push(event.text);
    const text = this.pendingLines.join("\n");
    if (completeness(text, (t) => this.parse(t)) === "incomplete") {
      this.editor.start("> ");
      this.flush();
      this.drainTypeahead();
      return;
    }
    this.pendingLines = [];
    if (text.trim() === "") {
      this.emit(this.marker(`exit=${nonce}:${this.carry?.lastExitCode ?? 0}`) + this.marker(`cwd=${nonce}:${this.carry?.cwd ?? ""}`));
      this.showPrompt();
      return;
    }
    this.editor.addHistory(text);
    void this.runLine(text).catch((err: unknown) => this.fail(err));
  }

  private setLastCode(code: number): void {
    if (this.carry !== null) {
      this.carry.lastExitCode = code;
      this.carry.env["?"] = String(code);
    }
    if (this.bash !== null) {
      this.state().lastExitCode = code;
      this.state().env.set("?", String(code));
    }
  }

  /**
   * `set -u`: bash abandons the rest of the command line at an unbound variable ($? = 1). just-bash ends only the
   * statement (its group swallows the error), so the line is stopped here when a statement reports one.
   */
  private abortOnNounset(text: string): void {
    if (!this.busy || this.abort === null || this.nounsetAbort || !this.nounsetPossible) return;
    if (!/(?:^|\n)(?:bash: )?[^\n:]+: unbound variable\n/.test(text)) return;
    this.nounsetAbort = true;
    this.abort.abort();
  }

  private onInterrupt(): void {
    if (!this.busy) {
      if (this.editor.reading) this.onInput("\x03");
      return;
    }
    if (this.interrupted) return;
    this.interrupted = true;
    this.abort?.abort();
    this.typeahead = "";
    const tty = this.tty;
    this.tty = null;
    tty?.cancel();
  }

  private readTty(kind: TtyKind): Promise<string> {
    if (!this.ttyEnabled || this.interrupted || this.abort?.signal.aborted) return Promise.resolve("");
    return new Promise<string>((resolve) => {
      const read = new TtyRead(
        kind,
        (text) => this.emit(text),
        (text) => {
          if (this.tty === read) this.tty = null;
          resolve(text);
        },
      );
      this.tty = read;
      if (this.typeahead !== "") {
        const data = this.typeahead;
        this.typeahead = "";
        this.typeahead = read.feed(data) + this.typeahead;
      }
      this.flush();
    });
  }

  private exit(code: number): void {
    this.exited = true;
    this.flush();
    this.post({ t: "exit", code });
  }

  // ------------------------------------------------------------------------------------------------ running

  private rewriteOptions(stream: boolean, tty: boolean, track: boolean): RewriteOptions {
    return {
      stream,
      tty,
      prelude: track ? this.arrayPrelude : [],
      trailer: track && this.trailer !== null ? structuredClone(this.trailer) : undefined,
      onFunction: track
        ? (record) => {
            const id = this.nextFnId++;
            this.fnIds.set(id, record);
            return id;
          }
        : undefined,
    };
  }

  private async runLine(text: string): Promise<void> {
    const bash = this.bash as Bash;
    const nonce = this.init?.nonce ?? "";
    this.busy = true;
    this.interrupted = false;
    this.nounsetAbort = false;
    const turnsOn = /\bset\b[^;&|\n]*(?:\s-[a-zA-Z]*u|-o\s+nounset)/.test(text);
    const turnsOff = /\bset\b[^;&|\n]*(?:\s\+[a-zA-Z]*u|\+o\s+nounset)/.test(text);
    this.nounsetPossible = turnsOn || (this.state().options.nounset === true && !turnsOff);
    this.post({ t: "busy", busy: true });
    this.emit(this.marker(`start=${nonce}`));
    this.flush();
    this.recent = "";
    this.captured = null;
    this.defined = new Map();
    this.abort = new AbortController();
    this.armed = this.rewriteOptions(true, true, true);
    let result: { stdout: string; stderr: string; exitCode: number; env?: Record<string, string> };
    let threw = false;
    try {
      result = await bash.exec(text, { signal: this.abort.signal, env: { ...this.carry?.env } });
    } catch (err) {
      // an error of the interpreter itself: reported like a command's, the shell goes on
      threw = true;
      result = { stdout: "", stderr: `bash: ${err instanceof Error ? err.message : String(err)}\n`, exitCode: 1 };
    }
    this.armed = null;
    const tty = this.tty;
    this.tty = null;
    tty?.cancel();
    const captured = this.captured as Captured | null;
    let code: number;
    let exitShell = false;
    if (this.nounsetAbort) {
      // what ran before the unbound variable stays done; the rest of the line did not run
      code = 1;
      this.emit(toTerminal(result.stdout + result.stderr.replace(/^.*\baborted\b.*(\n|$)/gm, "")));
      // The trailer did not run, so other changes the line made before the error are lost (as after C-c); `set -u`
      // itself stays on, as in bash.
      if (captured !== null) this.carry = this.fromCaptured(captured);
      else if (this.carry !== null) {
        const opts = new Set((this.carry.env.SHELLOPTS ?? "").split(":").filter((o) => o !== ""));
        opts.add("nounset");
        this.carry = { ...this.carry, env: { ...this.carry.env, SHELLOPTS: [...opts].sort().join(":") } };
      }
    } else if (this.interrupted) {
      code = EMBEDDED.interruptExitCode;
      this.emit(toTerminal(result.stdout));
      const stderr = result.stderr.replace(/^.*\baborted\b.*(\n|$)/gm, "");
      this.emit(toTerminal(stderr));
      this.emit("\r\n");
      if (captured !== null) this.carry = this.fromCaptured(captured);
    } else if (captured !== null) {
      code = captured.code;
      this.carry = this.fromCaptured(captured);
    } else {
      this.emit(toTerminal(result.stdout + result.stderr));
      code = result.exitCode;
      exitShell = !threw && !interpreterError(result.exitCode, this.recent + result.stdout + result.stderr);
      if (!exitShell && this.carry !== null && result.env !== undefined) {
        this.carry = { ...this.carry, env: { ...result.env }, cwd: result.env.PWD ?? this.carry.cwd };
      }
    }
    this.abort = null;
    this.captured = null;
    if (this.carry !== null) {
      this.carry.lastExitCode = code;
      this.carry.env["?"] = String(code);
      this.restore(this.carry);
    }
    await this.writeEnvFile();
    this.post({ t: "state", state: this.snapshotState() });
    this.busy = false;
    if (exitShell) {
      this.emit("exit\r\n");
      this.exit(code);
      return;
    }
    // Typed-ahead input the command did not read is dropped before the prompt, as the node shell's prompt hook does:
    // run at the prompt it would be a command nobody checked, and its end would be taken for the next command's.
    const unread = this.typeahead.length;
    this.typeahead = "";
    if (unread > 0) this.emit(this.marker(`discarded=${nonce}:${unread}`));
    this.emit(this.marker(`exit=${nonce}:${code}`) + this.marker(`cwd=${nonce}:${this.carry?.cwd ?? ""}`));
    this.post({ t: "busy", busy: false });
    this.showPrompt();
  }

  private async runJob(command: string): Promise<void> {
    const bash = this.bash as Bash;
    this.busy = true;
    this.abort = new AbortController();
    this.armed = this.rewriteOptions(true, false, false);
    let code: number;
    try {
      const r = await bash.exec(command, { signal: this.abort.signal });
      this.emit(toTerminal(r.stdout + r.stderr));
      code = r.exitCode;
    } catch (err) {
      this.emit(toTerminal(`bash: ${err instanceof Error ? err.message : String(err)}\n`));
      code = 1;
    }
    this.armed = null;
    this.exit(code);
  }
}
