// A scripted stand-in for @webcontainer/api, for the webcontainer adapter's protocol tests. It copies what the fact
// sheet (shared/research/webcontainer-and-jsh.md) says the real one does, and nothing it leaves open is assumed:
// the jsh marker order, the place of `interactive`, the prompt redraw and the chunking are all switchable.
//
// - Process output is a push-only ReadableStream<string> that never closes; `exit` is a separate promise.
// - Bytes become text the way WebContainer does it: one shared TextDecoder, no `stream: true` (split UTF-8 → U+FFFD).
// - `jsh --osc`: a small line editor (echo, backspace, C-c) over a tiny command interpreter, printing
//   `\r\n~/project\r\n❯ ` prompts and `interactive`, `prompt`, `exit=-1:CODE` (and optionally `pid=N`) markers.
// - `jsh -c CMD`: answers from a profile (the capability probes) or the same interpreter.
// - `node -e SCRIPT`: runs the script with the real Node (the adapter's file helper).
// - fs: a real directory tree; paths resolve against the workdir, errors lose their `code` (as across Comlink).

import { spawn as spawnChild } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type {
  WcBootOptions,
  WcDirEnt,
  WcFileSystem,
  WcInstance,
  WcProcess,
  WcSpawnOptions,
  WebContainerApi,
} from "../../src/runtime/webcontainer.ts";

const ESC = "\x1b";
export const mark = (payload: string): string => `${ESC}]654;${payload}\x07`;
/** WebContainer's decoder: shared, and never told that more bytes follow. */
const wcDecoder = new TextDecoder();

export class FakeProcess implements WcProcess {
  readonly exit: Promise<number>;
  readonly input: WritableStream<string>;
  readonly output: ReadableStream<string>;
  readonly resizes: Array<{ cols: number; rows: number }> = [];
  readonly inputs: string[] = [];
  kills = 0;
  exited = false;
  onInput: (data: string) => void = () => undefined;
  onKill: (() => void) | null = null;
  private controller!: ReadableStreamDefaultController<string>;
  private resolveExit!: (code: number) => void;

  constructor() {
    this.output = new ReadableStream<string>({
      start: (c) => {
        this.controller = c;
      },
    });
    this.input = new WritableStream<string>({
      write: (chunk) => {
        this.inputs.push(chunk);
        if (!this.exited) this.onInput(chunk);
      },
    });
    this.exit = new Promise((r) => (this.resolveExit = r));
  }

  /** One output chunk, as text. */
  push(chunk: string): void {
    if (chunk === "") return;
    try {
      this.controller.enqueue(chunk);
    } catch {
      // the reader cancelled the stream: output after that goes nowhere
    }
  }

  /** One output chunk, as bytes: decoded the way WebContainer decodes (a split character becomes U+FFFD). */
  pushBytes(bytes: Uint8Array): void {
    this.push(wcDecoder.decode(bytes));
  }

  end(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.resolveExit(code);
  }

  kill(): void {
    this.kills++;
    if (this.onKill) this.onKill();
    else this.end(143);
  }

  resize(d: { cols: number; rows: number }): void {
    this.resizes.push(d);
  }
}

// ------------------------------------------------------------------------------------------------------------

export interface JshStyle {
  /** Where the `prompt` marker goes relative to the prompt's text. */
  promptOrder: "marker-first" | "text-first";
  /**
   * When `interactive` is printed: "before-prompt" alone in its own chunk, the first prompt a moment later (the order
   * under which bolt's and tutorialkit's ready checks work, so the likely real one: the default); "startup" in one
   * chunk after the first prompt; after the first command's echo (3P order); or never.
   */
  interactive: "before-prompt" | "startup" | "first-command" | "never";
  /** Whether a command's end brings a `prompt` marker (false: only `exit` and the drawn prompt). */
  commandPromptMarker: boolean;
  /** Whether the first prompt comes with a `prompt` marker. */
  startupPromptMarker: boolean;
  /** A `pid=N` marker when a command starts. */
  pid: boolean;
  /** On Enter the line editor redraws the line (prompt glyph and coloured command) before the newline. */
  redraw: boolean;
  /** Output chunks of this many characters (code points); "whole" keeps each burst in one chunk. */
  split: number | "whole";
  /** When set, output goes out as bytes in pieces of this size, decoded like WebContainer (no streaming). */
  bytes: number | null;
  /** After C-c of a running command, print `exit=-1:130` before the prompt (false: only the prompt). */
  exitAfterInterrupt: boolean;
  /** Raw output for a command line, after the echo of its Enter: replaces the interpreter. */
  transcripts: Record<string, string[]>;
  /** A broken jsh (for the startup canary): "none" never prints `exit=`, "zero" always reports exit code 0. */
  exitMarkers: "real" | "none" | "zero";
  /** A broken jsh: `cd` succeeds but the directory does not change. */
  tracksCd: boolean;
  /** The line editor wraps the echo with a real newline every this many characters (0: never). */
  wrapCols: number;
  /** Lines typed between `{` and `}` run as one command (heredocs inside included), with one exit marker. */
  braceGroups: boolean;
}

export const DEFAULT_STYLE: JshStyle = {
  promptOrder: "marker-first",
  interactive: "before-prompt",
  commandPromptMarker: true,
  startupPromptMarker: true,
  pid: false,
  redraw: false,
  split: "whole",
  bytes: null,
  exitAfterInterrupt: true,
  transcripts: {},
  exitMarkers: "real",
  tracksCd: true,
  wrapCols: 0,
  braceGroups: false,
};

type Outcome = { out: string; code: number } | { hang: "loop" | "cat" } | { exit: number };

/** Words of a command line, with simple quoting. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

export interface Interpreter {
  run(line: string, cwd: string): Outcome & { cwd?: string };
}

/** What `which` finds in the fake (a plausible WebContainer: no grep/sed/awk/git/sleep). */
export const FAKE_PROGRAMS = ["cat", "curl", "head", "jq", "ls", "node", "npm", "npx", "pnpm", "python3", "sort", "tail", "yarn"];

export function makeInterpreter(): Interpreter {
  return {
    run(line, cwd) {
      const piped = /^(.*\S)\s+\|\s+cat$/.exec(line);
      if (piped) return this.run(piped[1]!, cwd); // `X | cat` prints what X prints
      const w = words(line);
      const cmd = w[0] ?? "";
      switch (cmd) {
        case "":
          return { out: "", code: 0 };
        case "echo":
          return { out: `${w.slice(1).join(" ")}\n`, code: 0 };
        case "pwd":
          return { out: `${cwd}\n`, code: 0 };
        case "true":
          return { out: "", code: 0 };
        case "false":
          return { out: "", code: 1 };
        case "cd": {
          const to = resolve(cwd, w[1] ?? cwd);
          if (existsSync(to) && statSync(to).isDirectory()) return { out: "", code: 0, cwd: to };
          return { out: `jsh: cd: no such file or directory: ${w[1]}\n`, code: 1 };
        }
        case "mkdir": {
          const target = w.filter((x) => !x.startsWith("-"))[1];
          if (!target) return { out: "mkdir: missing operand\n", code: 1 };
          try {
            require_mkdir(resolve(cwd, target), w.includes("-p"));
            return { out: "", code: 0 };
          } catch (err) {
            return { out: `mkdir: ${(err as Error).message}\n`, code: 1 };
          }
        }
        case "ls": {
          const target = resolve(cwd, w[1] ?? ".");
          try {
            return { out: `${readdirSync(target).sort().join("  ")}\n`, code: 0 };
          } catch {
            return { out: `ls: cannot access '${w[1]}': No such file or directory\n`, code: 2 };
          }
        }
        case "node":
          if (w[1] === "-v" || w[1] === "--version") return { out: "v20.19.1\n", code: 0 };
          if (w[1] === "-e" && /setInterval|setTimeout/.test(w[2] ?? "")) return { hang: "loop" };
          return { out: "", code: 0 };
        case "cat":
          if (w.length === 1) return { hang: "cat" };
          return { out: "", code: 0 };
        case "which": {
          const names = w.slice(1);
          const out = names.map((n) => (FAKE_PROGRAMS.includes(n) ? `/usr/local/bin/${n}\n` : `${n} not found\n`)).join("");
          return { out, code: names.every((n) => FAKE_PROGRAMS.includes(n)) ? 0 : 1 };
        }
        case "exit":
          return { exit: Number(w[1] ?? 0) };
        case "fake-marker":
          return { out: `before${mark("exit=-1:0")}${mark("prompt")}after\n`, code: 0 };
        default:
          return { out: `jsh: command not found: ${cmd}\n`, code: 127 };
      }
    },
  };
}

function require_mkdir(path: string, recursive: boolean): void {
  mkdirSync(path, { recursive });
}

/** The interactive `jsh --osc`. */
export class FakeJshShell {
  line = "";
  running: { kind: "loop" | "cat"; buffer: string } | null = null;
  private firstCommand = true;
  private pidCounter = 100;
  private readonly interp = makeInterpreter();

  constructor(
    readonly proc: FakeProcess,
    readonly style: JshStyle,
    public cwd: string,
    readonly home: string,
  ) {
    proc.onInput = (data) => this.input(data);
    setTimeout(() => this.startup(), 0);
  }

  private display(path: string): string {
    if (path === this.home) return "~";
    return path.startsWith(`${this.home}/`) ? `~${path.slice(this.home.length)}` : path;
  }

  promptText(): string {
    return `\r\n${ESC}[1;34m${this.display(this.cwd)}${ESC}[0m\r\n${ESC}[35m❯${ESC}[0m `;
  }

  promptBlock(): string {
    return this.style.promptOrder === "marker-first" ? mark("prompt") + this.promptText() : this.promptText() + mark("prompt");
  }

  /** Output through the configured chunking. */
  emit(text: string): void {
    if (text === "" || this.proc.exited) return;
    const { bytes, split } = this.style;
    if (bytes !== null) {
      const data = new TextEncoder().encode(text);
      for (let i = 0; i < data.length; i += bytes) this.proc.pushBytes(data.subarray(i, i + bytes));
      return;
    }
    if (split === "whole") {
      this.proc.push(text);
      return;
    }
    const cps = Array.from(text);
    for (let i = 0; i < cps.length; i += split) this.proc.push(cps.slice(i, i + split).join(""));
  }

  private startup(): void {
    let text = this.style.startupPromptMarker ? this.promptBlock() : this.promptText();
    if (this.style.interactive === "startup") text += mark("interactive");
    if (this.style.interactive === "before-prompt") {
      this.emit(mark("interactive"));
      setTimeout(() => this.emit(text), 20);
      return;
    }
    this.emit(text);
  }

  /** The prompt after a command's end. */
  private endBlock(): string {
    return this.style.commandPromptMarker ? this.promptBlock() : this.promptText();
  }

  private input(data: string): void {
    let echo = "";
    const flushEcho = (): void => {
      this.emit(echo);
      echo = "";
    };
    for (const c of data) {
      if (this.running !== null) {
        flushEcho();
        this.inputWhileRunning(c);
        continue;
      }
      if (c === "\r" || c === "\n") {
        flushEcho();
        this.submit();
      } else if (c === "\x03") {
        flushEcho();
        this.line = "";
        this.emit(`^C${this.promptBlock()}`);
      } else if (c === "\x7f") {
        if (this.line.length > 0) {
          this.line = this.line.slice(0, -1);
          echo += "\b \b";
        }
      } else if (c >= " " || c === "\t") {
        this.line += c;
        echo += c;
        if (this.style.wrapCols > 0 && this.line.length % this.style.wrapCols === 0) echo += "\r\n";
      }
    }
    flushEcho();
  }

  private inputWhileRunning(c: string): void {
    const r = this.running!;
    if (c === "\x03") {
      this.running = null;
      this.emit(`^C\r\n${this.style.exitAfterInterrupt ? mark("exit=-1:130") : ""}${this.promptBlock()}`);
      return;
    }
    if (r.kind === "cat") {
      if (c === "\x04") {
        this.running = null;
        this.emit(`${mark("exit=-1:0")}${this.promptBlock()}`);
      } else if (c === "\r") {
        this.emit(`\r\n${r.buffer}\r\n`);
        r.buffer = "";
      } else {
        r.buffer += c;
        this.emit(c);
      }
    }
  }

  private group: string[] | null = null;

  /** A brace group's lines as one command: outputs joined (a heredoc's body is cat's output), the last exit code. */
  private runGroup(lines: string[]): { out: string; code: number } {
    let out = "";
    let code = 0;
    for (let i = 0; i < lines.length; i++) {
      const here = /^cat <<'?(\w+)'?$/.exec(lines[i]!);
      if (here) {
        const end = lines.indexOf(here[1]!, i + 1);
        out += lines.slice(i + 1, end === -1 ? lines.length : end).map((l) => `${l}\n`).join("");
        i = end === -1 ? lines.length : end;
        code = 0;
        continue;
      }
      const r = this.interp.run(lines[i]!, this.cwd);
      if ("out" in r) {
        out += r.out;
        code = r.code;
      }
    }
    return { out, code };
  }

  private submit(): void {
    const line = this.line;
    this.line = "";
    if (this.style.braceGroups && (this.group !== null || line.trim() === "{")) {
      if (this.group === null) this.group = [];
      else if (line.trim() !== "}") this.group.push(line);
      if (line.trim() !== "}") {
        this.emit("\r\n"); // (a continuation: no prompt, no marker)
        return;
      }
      const lines = this.group;
      this.group = null;
      const r = this.runGroup(lines);
      this.emit(`\r\n${r.out.replace(/\n/g, "\r\n")}${mark(`exit=-1:${r.code}`)}${this.endBlock()}`);
      return;
    }
    let head = "";
    if (this.style.redraw) head += `\r${ESC}[K${ESC}[35m❯${ESC}[0m ${ESC}[32m${line}${ESC}[0m`;
    head += "\r\n";
    if (this.firstCommand && this.style.interactive === "first-command") head += mark("interactive");
    this.firstCommand = false;
    if (line.trim() === "") {
      this.emit(head + this.promptBlock());
      return;
    }
    if (this.style.pid) head += mark(`pid=${this.pidCounter++}`);
    const transcript = this.style.transcripts[line];
    if (transcript) {
      this.emit(head);
      for (const chunk of transcript) this.proc.push(chunk);
      return;
    }
    const r = this.interp.run(line, this.cwd);
    if ("exit" in r) {
      this.emit(head);
      setTimeout(() => this.proc.end(r.exit), 5);
      return;
    }
    if ("hang" in r) {
      this.running = { kind: r.hang, buffer: "" };
      this.emit(head);
      return;
    }
    if (r.cwd && this.style.tracksCd) this.cwd = r.cwd;
    const exit = { real: mark(`exit=-1:${r.code}`), none: "", zero: mark("exit=-1:0") }[this.style.exitMarkers];
    this.emit(`${head}${r.out.replace(/\n/g, "\r\n")}${exit}${this.endBlock()}`);
  }
}

// ------------------------------------------------------------------------------------------------------------

/** Answers of `jsh -c` for the capability probes: a jsh without heredocs, whose `&` hangs. */
export type ProbeProfile = (command: string) => { out: string; code: number } | "hang" | null;

export const DEFAULT_PROFILE: ProbeProfile = (command) => {
  if (command === 'false; echo "status=$?"') return { out: "status=1\n", code: 0 };
  if (command === "echo semi-a; echo semi-b") return { out: "semi-a\nsemi-b\n", code: 0 };
  if (command === "false || echo or-ok") return { out: "or-ok\n", code: 0 };
  if (command === "echo pipe-ok | cat") return { out: "pipe-ok\n", code: 0 };
  if (command.startsWith("echo redir-ok > ")) return { out: "redir-ok\n", code: 0 };
  if (command === "echo err-ok 2>&1") return { out: "err-ok\n", code: 0 };
  if (command.startsWith("cat <<")) return { out: "jsh: unsupported shell syntax\n", code: 1 };
  if (command === "echo bg-ok & echo fg-ok") return "hang";
  if (command.startsWith("export SANDSHELL_PROBE=")) return { out: "v=exp-ok\n", code: 0 };
  return null;
};

export interface SpawnRecord {
  command: string;
  args: string[];
  options: WcSpawnOptions | undefined;
  proc: FakeProcess;
}

class FakeFs implements WcFileSystem {
  constructor(private readonly workdir: string) {}

  private path(p: string): string {
    // resolved against the workdir; "/x" means workdir/x (the API's fs is scoped to the workdir)
    const inside = resolve("/", p.startsWith("/") ? p : `/${p}`);
    return join(this.workdir, inside);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new Error((err as Error).message); // the code does not survive postMessage
    }
  }

  readFile(p: string): Promise<Uint8Array> {
    return this.call(async () => new Uint8Array(await fsp.readFile(this.path(p))));
  }
  writeFile(p: string, data: string | Uint8Array): Promise<void> {
    return this.call(() => fsp.writeFile(this.path(p), data));
  }
  readdir(p: string, _o: { withFileTypes: true }): Promise<WcDirEnt[]> {
    return this.call(async () =>
      (await fsp.readdir(this.path(p), { withFileTypes: true })).map((d) => ({
        name: d.name,
        isFile: () => d.isFile(),
        isDirectory: () => d.isDirectory(),
      })),
    );
  }
  mkdir(p: string, o?: { recursive?: false }): Promise<void>;
  mkdir(p: string, o: { recursive: true }): Promise<string>;
  mkdir(p: string, o?: { recursive?: boolean }): Promise<void | string> {
    return this.call(async () => {
      const r = await fsp.mkdir(this.path(p), { recursive: o?.recursive ?? false });
      return o?.recursive ? (r ?? "") : undefined;
    });
  }
  rm(p: string, o?: { force?: boolean; recursive?: boolean }): Promise<void> {
    return this.call(() => fsp.rm(this.path(p), o));
  }
  rename(a: string, b: string): Promise<void> {
    return this.call(() => fsp.rename(this.path(a), this.path(b)));
  }
}

export class FakeInstance implements WcInstance {
  readonly fs: WcFileSystem;
  readonly path = "/usr/local/bin:/usr/bin:/bin";
  readonly spawns: SpawnRecord[] = [];
  readonly shells: FakeJshShell[] = [];
  readonly events = new Map<string, Set<(...args: never[]) => void>>();
  style: JshStyle;
  profile: ProbeProfile;
  teardowns = 0;
  /**
   * Output of one-shot processes (`jsh -c`, `node -e`) arrives this long after it was written, while their exit does
   * not wait: the API's output and exit are separate messages in no set order ("closed process keeps writing").
   */
  outputDelayMs = 0;

  constructor(
    readonly root: string,
    readonly workdir: string,
    style: Partial<JshStyle> = {},
    profile: ProbeProfile = DEFAULT_PROFILE,
  ) {
    this.fs = new FakeFs(workdir);
    this.style = { ...DEFAULT_STYLE, ...style };
    this.profile = profile;
  }

  get home(): string {
    return resolve(this.workdir, "..");
  }

  async spawn(command: string, args: string[], options?: WcSpawnOptions): Promise<FakeProcess> {
    const proc = new FakeProcess();
    this.spawns.push({ command, args, options, proc });
    const cwd = options?.cwd ? resolve(this.workdir, options.cwd) : this.workdir;
    if (command === "jsh" && args[0] === "--osc") {
      this.shells.push(new FakeJshShell(proc, this.style, cwd, this.home));
    } else if (command === "jsh" && args[0] === "-c") {
      this.oneShot(proc, args[1] ?? "", cwd);
    } else if (command === "node" && args[0] === "-e") {
      this.realNode(proc, args[1] ?? "", options?.env ?? {});
    } else {
      throw new Error(`spawn ${command} ENOENT`);
    }
    return proc;
  }

  /** Output of a one-shot process, `outputDelayMs` late. */
  private out(proc: FakeProcess, chunk: string): void {
    if (this.outputDelayMs <= 0) proc.push(chunk);
    else setTimeout(() => proc.push(chunk), this.outputDelayMs);
  }

  private oneShot(proc: FakeProcess, command: string, cwd: string): void {
    const answer = this.profile(command);
    setTimeout(() => {
      if (answer === "hang") {
        proc.onKill = () => proc.end(130);
        return;
      }
      if (answer !== null) {
        this.out(proc, answer.out.replace(/\n/g, "\r\n"));
        proc.end(answer.code);
        return;
      }
      const r = makeInterpreter().run(command, cwd);
      if ("hang" in r) {
        proc.onKill = () => proc.end(130);
        if (r.hang === "loop") this.out(proc, "serving on http://localhost:3000\r\n");
        return;
      }
      if ("exit" in r) {
        proc.end(r.exit);
        return;
      }
      this.out(proc, r.out.replace(/\n/g, "\r\n"));
      proc.end(r.code);
    }, 1);
  }

  private realNode(proc: FakeProcess, script: string, env: Record<string, string | number | boolean>): void {
    const child = spawnChild(process.execPath, ["-e", script], {
      env: { PATH: process.env.PATH ?? "", ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const decoder = new TextDecoder();
    child.stdout.on("data", (b: Buffer) => this.out(proc, decoder.decode(b, { stream: true }).replace(/\n/g, "\r\n")));
    child.stderr.on("data", (b: Buffer) => this.out(proc, b.toString("utf8")));
    child.on("close", (code) => proc.end(code ?? 1));
    proc.onKill = () => child.kill("SIGKILL");
  }

  on(event: "server-ready", listener: (port: number, url: string) => void): () => void;
  on(event: "error", listener: (error: { message: string }) => void): () => void;
  on(event: string, listener: (...args: never[]) => void): () => void {
    let set = this.events.get(event);
    if (!set) this.events.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  fire(event: "server-ready", port: number, url: string): void;
  fire(event: "error", error: { message: string }): void;
  fire(event: string, ...args: unknown[]): void {
    for (const l of this.events.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
  }

  teardown(): void {
    this.teardowns++;
  }
}

export type BootMode = "ok" | "hang" | "reject" | "late";

/** A fake `WebContainer` class: `boot()` per `mode` ("late": resolves only when `release()` is called). */
export class FakeApi implements WebContainerApi {
  bootCalls = 0;
  bootOptions: Array<WcBootOptions | undefined> = [];
  private release_: (() => void) | null = null;

  constructor(
    readonly instance: FakeInstance,
    public mode: BootMode = "ok",
  ) {}

  boot(options?: WcBootOptions): Promise<WcInstance> {
    this.bootCalls++;
    this.bootOptions.push(options);
    switch (this.mode) {
      case "ok":
        return Promise.resolve(this.instance);
      case "hang":
        return new Promise(() => undefined);
      case "late":
        return new Promise((resolve) => {
          this.release_ = () => resolve(this.instance);
        });
      case "reject":
        return Promise.reject(new Error("Unable to create more instances"));
    }
  }

  release(): void {
    this.release_?.();
  }
}

/** A temporary tree: ROOT/home/project is the workdir, ROOT/outside is beyond it. */
export function makeWorld(style: Partial<JshStyle> = {}, profile?: ProbeProfile): {
  root: string;
  workdir: string;
  outside: string;
  instance: FakeInstance;
  api: FakeApi;
  cleanup: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), "sandshell-wc-"));
  const workdir = join(root, "home", "project");
  const outside = join(root, "outside");
  require_mkdir(workdir, true);
  require_mkdir(outside, true);
  const instance = new FakeInstance(root, workdir, style, profile);
  const api = new FakeApi(instance);
  return { root, workdir, outside, instance, api, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
