// The agent's (or a person's) interactive shell inside the worker: prompt and line editor, multi-line input, keys
// typed while a command runs (to the command reading the terminal, else kept as typeahead), C-c, and one command line
// at a time through the interpreter, framed by OSC 654 markers: `start=N`, output, `exit=N:CODE`, `cwd=N:PATH`,
// `prompt` (N = the runtime's nonce, never visible to the shell). State carries from line to line (carry-over.ts).

import { formatMarker } from "../markers.ts";
import { type CarryOver, exportText } from "./carry-over.ts";
import { EMBEDDED } from "./config.ts";
import type { ExecResult, Interpreter } from "./interpreter.ts";
import { type EditorEvent, LineEditor } from "./line-editor.ts";
import type { TtyKind } from "./devices.ts";
import type { WorkerFs } from "./worker-fs.ts";
import type { CarryState, InitMessage, Post } from "./protocol.ts";
import { completeness } from "./completeness.ts";
import { TtyRead } from "./tty-read.ts";
import { type OutputNews, toTerminal, type WorkerOutput } from "./worker-output.ts";

/** What the shell works with: set up by the worker's core (shell-core.ts). */
export interface ShellParts {
  init: InitMessage;
  interp: Interpreter;
  carry: CarryOver;
  fs: WorkerFs;
  out: WorkerOutput;
  post: Post;
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

/** Messages of just-bash's abort, which bash does not print. */
function withoutAbortNotice(text: string): string {
  return text.replace(/^.*\baborted\b.*(\n|$)/gm, "");
}

export class InteractiveShell {
  private readonly init: InitMessage;
  private readonly interp: Interpreter;
  private readonly carry: CarryOver;
  private readonly fs: WorkerFs;
  private readonly out: WorkerOutput;
  private readonly post: Post;
  private readonly editor: LineEditor;
  /** Lines of a command that is not complete yet (an open quote, heredoc, `if`…). */
  private pendingLines: string[] = [];
  /** Keys typed that nobody has read yet. */
  private typeahead = "";
  private busy = false;
  private exited = false;
  private abort: AbortController | null = null;
  private interrupted = false;
  /** The running command's read of the terminal, if it is reading. */
  private tty: TtyRead | null = null;
  /** The running line was stopped because of `set -u` (statementEnded). */
  private nounsetAbort = false;
  /** The statement running printed an unbound-variable error. */
  private unboundSeen = false;
  /** `set -u` is on, or the running line may turn it on (the interpreter's live options are not visible from here). */
  private nounsetPossible = false;
  /** The env file's text as last written, and the state's version it was written from. */
  private envText: string | null = null;
  private envVersion = -1;
  /** The state's version the page has (sent with a `data` message). */
  private postedVersion = -1;

  constructor(parts: ShellParts) {
    this.init = parts.init;
    this.interp = parts.interp;
    this.carry = parts.carry;
    this.fs = parts.fs;
    this.out = parts.out;
    this.post = parts.post;
    this.editor = new LineEditor((text) => this.out.emit(text), EMBEDDED.historySize);
  }

  private get nonce(): string {
    return this.init.nonce;
  }

  private emit(text: string): void {
    this.out.emit(text);
  }

  /** The end markers of a line that ended with `code`. */
  private endMarkers(code: number): string {
    return formatMarker(`exit=${this.nonce}:${code}`) + formatMarker(`cwd=${this.nonce}:${this.carry.state.cwd}`);
  }

  async start(): Promise<void> {
    this.editor.setHistory(this.init.history ?? []);
    if (this.init.interrupted) {
      this.carry.setLastCode(EMBEDDED.interruptExitCode);
      this.emit(`\r\n${this.endMarkers(EMBEDDED.interruptExitCode)}`);
    } else {
      this.emit(formatMarker("interactive") + formatMarker(`cwd=${this.nonce}:${this.carry.state.cwd}`));
    }
    await this.writeEnvFile();
    if (this.init.envFile !== undefined) this.emit(formatMarker(`envfile=${this.nonce}:${this.init.envFile}`));
    this.showPrompt(this.stateNews());
  }

  /** The state for the page, when it changed since the page last got it. */
  private stateNews(): { state?: CarryState } {
    if (this.carry.version === this.postedVersion) return {};
    this.postedVersion = this.carry.version;
    return { state: this.carry.state };
  }

  /** Keeps `export -p` of the shell in init.envFile, for the session engine to restore after `exit`. */
  private async writeEnvFile(): Promise<void> {
    const path = this.init.envFile;
    if (path === undefined || this.carry.version === this.envVersion) return;
    this.envVersion = this.carry.version;
    const text = exportText(this.carry.state);
    if (text === this.envText) return;
    this.envText = text;
    try {
      await this.fs.writeFile(path, text);
    } catch {
      // /tmp removed: nothing to restore from then
    }
  }

  // ------------------------------------------------------------------------------------------------ prompt and input

  private promptText(): string {
    const cwd = this.carry.state.cwd;
    const home = this.carry.state.env.HOME ?? "";
    const shown = home !== "" && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
    return `\x1b[1;32muser@sandshell\x1b[0m:\x1b[1;34m${shown}\x1b[0m$ `;
  }

  /** The prompt marker and the prompt; `news` goes out with them. */
  private showPrompt(news?: OutputNews): void {
    this.emit(formatMarker("prompt"));
    this.editor.start(this.promptText());
    this.out.flush(news);
    this.drainTypeahead();
  }

  private drainTypeahead(): void {
    if (this.typeahead === "" || this.busy || this.exited || !this.editor.reading) return;
    const data = this.typeahead;
    this.typeahead = "";
    this.input(data);
  }

  /** Keys from the terminal. */
  input(data: string): void {
    if (this.exited) return;
    if (this.busy) {
      const cc = data.indexOf("\x03");
      const before = cc === -1 ? data : data.slice(0, cc);
      if (before !== "") {
        this.keep(this.tty !== null ? this.tty.feed(before) : before);
      }
      if (cc !== -1) this.interrupt();
      this.out.flush();
      return;
    }
    if (!this.editor.reading) {
      this.keep(data);
      return;
    }
    const { event, rest } = this.editor.feed(data);
    if (event !== null) {
      this.typeahead = rest + this.typeahead;
      this.onEditorEvent(event);
    }
    this.out.flush();
  }

  /**
   * Keeps keys nobody reads yet, up to EMBEDDED.maxTypeaheadChars: past it they are dropped, as a terminal's input
   * queue drops what overflows it (a command that never reads would otherwise collect every key sent meanwhile).
   */
  private keep(data: string): void {
    const room = EMBEDDED.maxTypeaheadChars - this.typeahead.length;
    if (room > 0) this.typeahead += data.length <= room ? data : data.slice(0, room);
  }

  private onEditorEvent(event: EditorEvent): void {
    if (event.type === "interrupt") {
      this.pendingLines = [];
      this.carry.setLastCode(EMBEDDED.interruptExitCode);
      this.emit(this.endMarkers(EMBEDDED.interruptExitCode));
      this.showPrompt();
      return;
    }
    if (event.type === "eof") {
      if (this.pendingLines.length > 0) {
        const text = this.pendingLines.join("\n");
        this.pendingLines = [];
        this.emit("\r\n");
        void this.runLine(text).catch((err: unknown) => this.fail(err));
        return;
      }
      this.emit("exit\r\n");
      this.exit(this.carry.state.lastExitCode);
      return;
    }
    this.pendingLines.push(event.text);
    const text = this.pendingLines.join("\n");
    if (completeness(text, (t) => this.interp.parse(t)) === "incomplete") {
      this.editor.start("> ");
      this.out.flush();
      this.drainTypeahead();
      return;
    }
    this.pendingLines = [];
    if (text.trim() === "") {
      this.emit(this.endMarkers(this.carry.state.lastExitCode));
      this.showPrompt();
      return;
    }
    const added = text.length <= EMBEDDED.historyMaxEntryChars && this.editor.addHistory(text);
    void this.runLine(text, added ? text : undefined).catch((err: unknown) => this.fail(err));
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.out.flush();
    this.post({ t: "error", message });
  }

  /** Output a command printed (already on its way to the terminal). */
  onOutput(text: string): void {
    if (this.busy && this.nounsetPossible && /(?:^|\n)(?:bash: )?[^\n:]+: unbound variable\n/.test(text)) this.unboundSeen = true;
  }

  /**
   * `set -u`: bash abandons the rest of the command line at an unbound variable ($? = 1). just-bash ends only the
   * statement (its group swallows the error), so the line is stopped here, after a statement that printed the error
   * and failed while the shell itself has `nounset` on (not a `bash -c` inside, whose options are its own).
   */
  statementEnded(status: number, shellopts: string): void {
    const seen = this.unboundSeen;
    this.unboundSeen = false;
    if (!seen || status === 0 || this.abort === null || this.nounsetAbort || !shellopts.split(":").includes("nounset")) return;
    this.nounsetAbort = true;
    this.abort.abort();
  }

  /** C-c. */
  interrupt(): void {
    if (!this.busy) {
      if (this.editor.reading) this.input("\x03");
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

  /** A command reads the terminal: it gets what is typed (typeahead first). */
  readTty(kind: TtyKind): Promise<string> {
    if (this.interrupted || this.abort?.signal.aborted) return Promise.resolve("");
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
      this.out.flush();
    });
  }

  private exit(code: number): void {
    this.exited = true;
    this.out.flush();
    this.post({ t: "exit", code });
  }

  // ------------------------------------------------------------------------------------------------ running

  /** Runs a command line; `historyAdd`: the line went into the history (the page keeps a copy). */
  private async runLine(text: string, historyAdd?: string): Promise<void> {
    this.busy = true;
    this.interrupted = false;
    this.nounsetAbort = false;
    this.unboundSeen = false;
    const turnsOn = /\bset\b[^;&|\n]*(?:\s-[a-zA-Z]*u|-o\s+nounset)/.test(text);
    this.nounsetPossible = turnsOn || this.interp.state.options.nounset === true;
    this.emit(formatMarker(`start=${this.nonce}`));
    // at once: the page must know the line runs before a CPU-bound command keeps this worker from posting
    this.out.flush({ busy: true, ...(historyAdd !== undefined ? { historyAdd } : {}) });
    this.out.resetRecent();
    this.abort = new AbortController();
    let result: ExecResult;
    let threw = false;
    try {
      result = await this.interp.exec(text, this.carry.rewrite(true, true, this.nounsetPossible), { signal: this.abort.signal, env: { ...this.carry.state.env } });
    } catch (err) {
      // an error of the interpreter itself: reported like a command's, the shell goes on
      threw = true;
      result = { stdout: "", stderr: `bash: ${err instanceof Error ? err.message : String(err)}\n`, exitCode: 1 };
    }
    const tty = this.tty;
    this.tty = null;
    tty?.cancel();
    this.fs.releaseLargeFiles();
    const { code, exitShell } = this.settle(result, threw);
    this.abort = null;
    this.carry.finish(code);
    await this.writeEnvFile();
    this.busy = false;
    if (exitShell) {
      this.emit("exit\r\n");
      this.out.flush({ busy: false, ...this.stateNews() });
      this.exit(code);
      return;
    }
    // Typed-ahead input the command did not read is dropped before the prompt, as the node shell's prompt hook does:
    // run at the prompt it would be a command nobody checked, and its end would be taken for the next command's.
    const unread = this.typeahead.length;
    this.typeahead = "";
    if (unread > 0) this.emit(formatMarker(`discarded=${this.nonce}:${unread}`));
    this.emit(this.endMarkers(code));
    this.showPrompt({ busy: false, ...this.stateNews() });
  }

  /** The line's exit code and state, from how it ended; the output the interpreter held back goes out. */
  private settle(result: ExecResult, threw: boolean): { code: number; exitShell: boolean } {
    if (this.nounsetAbort) {
      // what ran before the unbound variable stays done; the rest of the line did not run
      this.emit(toTerminal(result.stdout + withoutAbortNotice(result.stderr)));
      // The trailer did not run, so other changes the line made before the error are lost (as after C-c); `set -u`
      // itself stays on, as in bash.
      if (!this.carry.adoptReported()) this.carry.keepNounset();
      return { code: 1, exitShell: false };
    }
    if (this.interrupted) {
      this.emit(toTerminal(result.stdout));
      this.emit(toTerminal(withoutAbortNotice(result.stderr)));
      this.emit("\r\n");
      this.carry.adoptReported();
      return { code: EMBEDDED.interruptExitCode, exitShell: false };
    }
    const reported = this.carry.reportedCode;
    if (reported !== null) {
      this.carry.adoptReported();
      return { code: reported, exitShell: false };
    }
    const status = this.carry.adoptStatus(result.env);
    if (status !== null) {
      // the short trailer ran (its output, if any, streamed already)
      this.emit(toTerminal(result.stdout + result.stderr));
      return { code: status, exitShell: false };
    }
    this.emit(toTerminal(result.stdout + result.stderr));
    const exitShell = !threw && !interpreterError(result.exitCode, this.out.recent + result.stdout + result.stderr);
    if (!exitShell && result.env !== undefined) this.carry.adoptEnv(result.env);
    return { code: result.exitCode, exitShell };
  }
}
