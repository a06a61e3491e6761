// The session engine: one persistent shell for an agent, on any runtime. It writes commands to the shell's terminal
// and reads one stream back through one MarkerScanner, event-driven; timers exist only for the soft and hard
// timeouts, the quiet before a prompt-like last line, and the grace after a C-c. The pieces live beside it:
// command.ts (a running command and its waiting call), paste.ts (bracketed-paste switches), person.ts (the person's
// keys), env.ts (state carried over a respawn), spill.ts (spill files), prompt.ts (prompt-like lines, echo cutting).
//
// How a command's output is cut out of the terminal stream (works for every runtime):
//   write ──> [echo of the command] ──(start marker, or bracketed paste switched off)──> [output] ──exit marker──> …
//   … [ignored] ──prompt marker──> done.
// - The echo is dropped, not suppressed: the person watching the terminal sees what the agent typed. The echo ends
//   at the runtime's `start` marker (bash: PS0) or, where the line editor uses bracketed paste, at `ESC[?2004l`
//   (readline switches it off when it accepts the line, also for a line that then fails to parse). A runtime with
//   neither has its echo cut heuristically (the leading lines that repeat the command).
// - `exit=N:CODE` (N = the runtime's nonce) ends the output; the next `prompt` marker completes the command, so
//   `cwd` (and anything else the prompt hook prints) is known by then. A fake marker printed by the command itself
//   carries no nonce and is ignored.

import { SHELL } from "../limits.ts";
import { type Marker, MarkerScanner } from "../runtime/markers.ts";
import type { Runtime, TerminalProcess, Unsubscribe } from "../runtime/types.ts";
import { type CommandEnd, RunningCommand, type Segment, type Waiter } from "./command.ts";
import { NOT_RESTORED, parseExportP } from "./env.ts";
import { JobError, JobManager, type JobInfo, type JobOutput } from "./jobs.ts";
import { keyToBytes } from "./keys.ts";
import { OutputCollector } from "./output.ts";
import { PasteSwitches } from "./paste.ts";
import { PersonInput } from "./person.ts";
import { looksLikePrompt } from "./prompt.ts";
import { SpillFiles } from "./spill.ts";
import { commandText } from "./wire.ts";
import type {
  InputOptions,
  RunOptions,
  SessionStats,
  ShellResult,
  ShellSession,
  ShellSessionOptions,
  ShellState,
  ShellStatus,
} from "./types.ts";
import { clampTimeout, head, now, safely, secs, shellQuote } from "./util.ts";

export type * from "./types.ts";
export { looksLikePrompt, stripEcho } from "./prompt.ts";
export { parseExportP } from "./env.ts";

interface Condition {
  test: () => boolean;
  resolve: (ok: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

class Session implements ShellSession {
  private proc: TerminalProcess | null = null;
  private procUnsubs: Unsubscribe[] = [];
  private scanner = new MarkerScanner();
  private shell: "none" | "starting" | "ready" | "dead" = "none";
  private startingPromise: Promise<void> | null = null;
  private currentCwd: string;
  private envFile: string | null = null;
  /** Highest command sequence number seen in an end marker of this shell (tags `NONCE.SEQ`); -1 before any. */
  private lastSeq = -1;
  /** Typed-ahead characters the shell dropped before its last prompt. */
  private discarded = 0;
  private everStarted = false;
  private lastShellExit: number | null = null;

  // Line-editor state, from the stream.
  private pasteCapable = false;
  private pasteOn = false;
  private atPrompt = false;
  private readonly paste = new PasteSwitches();

  private readonly person = new PersonInput();

  private active: RunningCommand | null = null;
  /** A command that ended while no call waited on it: handed to the next call. */
  private finished: Promise<ShellResult> | null = null;
  private closed = false;
  private conditions = new Set<Condition>();
  /** When the shell last printed anything. */
  private lastDataAt = 0;
  private readonly rawListeners = new Set<(chunk: string) => void>();
  private readonly stateListeners = new Set<(state: ShellState) => void>();
  private lastStateKey = "";
  private readonly spills: SpillFiles;
  private readonly jobs: JobManager;

  private readonly cols: number;
  private readonly rows: number;
  private readonly softSec: number;
  private readonly hardSec: number;
  private readonly promptQuietMs: number;
  private readonly graceMs: number;
  private readonly maxOutputChars: number;
  private readonly startupTimeoutMs: number;
  private readonly largeCommandChars: number;
  readonly stats: SessionStats = { commands: 0, peakRetainedChars: 0, peakSpillBacklogChars: 0, shellsStarted: 0 };

  constructor(
    readonly runtime: Runtime,
    options: ShellSessionOptions,
  ) {
    this.cols = options.cols ?? SHELL.agentCols;
    this.rows = options.rows ?? SHELL.agentRows;
    this.softSec = options.softTimeoutSec ?? SHELL.softTimeoutSec;
    this.hardSec = clampTimeout(options.timeoutSec, SHELL.defaultTimeoutSec);
    this.promptQuietMs = options.promptQuietMs ?? SHELL.promptQuietMs;
    this.graceMs = options.interruptGraceMs ?? SHELL.interruptGraceMs;
    this.maxOutputChars = options.maxOutputChars ?? SHELL.maxOutputChars;
    this.startupTimeoutMs = options.startupTimeoutMs ?? SHELL.startupTimeoutMs;
    this.largeCommandChars = options.largeCommandChars ?? SHELL.largeCommandChars;
    this.currentCwd = runtime.workspace;
    const onBacklog = (chars: number): void => {
      if (chars > this.stats.peakSpillBacklogChars) this.stats.peakSpillBacklogChars = chars;
    };
    this.spills = new SpillFiles(runtime.fs, options.spillDir ?? runtime.spillDir ?? SHELL.spillDir, onBacklog, runtime.commandDir);
    this.jobs = new JobManager(runtime, {
      maxJobs: options.maxJobs ?? SHELL.maxJobs,
      maxOutputChars: this.maxOutputChars,
      openSpill: (prefix) => this.spills.open(prefix),
    });
  }

  get cwd(): string {
    return this.currentCwd;
  }

  foreground(): string | undefined {
    return this.proc?.foreground?.();
  }

  get busy(): boolean {
    return this.active !== null || this.person.busy;
  }

  // ------------------------------------------------------------------------------------------------ public API

  async start(): Promise<void> {
    await this.ensureShell();
  }

  async run(command: string, options: RunOptions = {}): Promise<ShellResult> {
    const t0 = now();
    if (this.closed) return this.refusal(t0, "The shell session is closed.", "closed");
    if (this.active !== null) {
      if (command.trim() === "") return this.input("", options);
      return this.busyRefusal(t0, this.active);
    }
    if (command.trim() === "") {
      if (this.finished !== null) return this.takeFinished(t0, "");
      return this.refusal(t0, "No command given, and no command is running to wait for.", "idle");
    }
    // The exact text the shell receives; the bash tool checked this same text (wire.ts). Nothing changes it below.
    const wire = commandText(command);
    if (!wire.ok) return this.refusal(t0, wire.error, "control");
    command = wire.text;
    const notices: string[] = [];
    const a = this.newCommand(command);
    this.active = a; // claim the shell at once: a parallel call is refused from here on
    if (this.finished !== null) notices.push(await this.describeFinished());
    if (command.length > this.largeCommandChars) {
      try {
        const path = await this.spills.saveCommand(command);
        a.command = `. ${shellQuote(path)}`;
        notices.push(`The command (${command.length} characters) was saved to ${path} and run with \`. ${path}\`.`);
      } catch {
        // typed as it is then: slower, but the same
      }
    }
    try {
      const fresh = await this.ensureShell();
      if (fresh !== null) notices.push(fresh);
    } catch (err) {
      this.active = null;
      return this.refusal(t0, `The shell could not be started: ${(err as Error).message}`, "shell");
    }
    const personRefusal = (): ShellResult =>
      this.refusal(
        t0,
        "A command typed by the person at the terminal is still running, so this command was NOT run. Try again when it has finished.",
        "person",
      );
    if (this.person.busy) {
      this.active = null;
      return personRefusal();
    }
    if (this.person.dirty && !this.person.entered && this.runtime.kind === "node") {
      // Only typed, never entered: readline's C-e C-u clears the line with no signal, so no new prompt and no
      // flushed input (a C-c makes the tty discard what is queued, and readline set itself up again).
      this.proc?.write("\x05\x15");
      this.person.dirty = false;
    }
    if (this.person.dirty) {
      // A half-typed line from the person: C-c discards it (also a PS2 continuation) and brings a fresh prompt.
      // A line the person just entered may bring a prompt of its own first, and the C-c's exit marker after it:
      // wait until the shell has settled, or that marker would be taken for the end of the agent's command.
      this.atPrompt = false;
      this.proc?.write("\x03");
      this.person.dirty = false;
      await this.waitFor(() => this.atPrompt || this.shell !== "ready", SHELL.promptWaitMs);
      await this.quiet(SHELL.personSettleMs, 5 * SHELL.personSettleMs);
      if (this.person.busy) {
        this.active = null;
        return personRefusal();
      }
    }
    // Wait for the prompt (not there after SHELL.promptWaitMs: type anyway, as a person would), then, with a line editor that uses
    // bracketed paste, for the switch that says it reads in raw mode (typed before that, the tty is still cooked).
    await this.waitFor(() => this.atPrompt || this.shell !== "ready", SHELL.promptWaitMs);
    if (this.shell === "ready" && this.atPrompt && !this.pasteOn) {
      // Without paste a tab would be completion: give a line editor that just took paste up again a moment.
      const wait = this.pasteCapable ? SHELL.pasteReturnMs : a.command.includes("\t") ? SHELL.pasteTabWaitMs : 0;
      const on = wait > 0 && (await this.waitFor(() => this.pasteOn || this.shell !== "ready", wait));
      if (!on && this.shell === "ready") this.pasteCapable = false; // it stopped (bind …, set +o emacs): type plainly
    }
    if (this.active !== a) return this.refusal(t0, "The shell session was closed or restarted before the command could run.", "closed");
    if (this.shell !== "ready") {
      this.active = null;
      return this.refusal(t0, "The shell ended before the command could run; call again to start a fresh one.", "shell");
    }
    this.stats.commands++;
    a.startedAt = now();
    const result = this.attach(a, options, t0, notices);
    this.writeCommand(a);
    this.emitState();
    return result;
  }

  async input(textOrKey: string, options: InputOptions = {}): Promise<ShellResult> {
    const t0 = now();
    if (this.closed) return this.refusal(t0, "The shell session is closed.", "closed");
    const a = this.active;
    if (a === null) {
      if (this.finished !== null) {
        const notice = textOrKey === "" ? undefined : "The command had already finished, so the input was not sent.";
        return this.takeFinished(t0, notice);
      }
      return this.refusal(t0, "No command is running, so there is nothing to send input to (the input was not sent).", "idle");
    }
    if (a.waiter !== null || a.phase === "preparing") {
      return this.refusal(t0, "Another call is already waiting on the running command; the input was not sent.", "busy", "running");
    }
    const key = keyToBytes(textOrKey);
    const enter = options.enter !== false;
    const bytes = key ?? (textOrKey === "" ? "" : !enter || /\n$/.test(textOrKey) ? textOrKey : `${textOrKey}\r`);
    if (bytes.includes("\x03")) a.interrupted = true;
    const result = this.attach(a, options, t0, []);
    // Once the exit marker is in, the prompt is due: typing now would start a new command, so nothing is sent.
    if (bytes !== "" && a.phase !== "ended") this.proc?.write(bytes);
    return result;
  }

  async interrupt(): Promise<ShellResult> {
    const t0 = now();
    const a = this.active;
    if (this.closed || a === null || a.phase === "preparing") {
      if (a === null && this.finished !== null) return this.takeFinished(t0, "The command had already finished.");
      return this.refusal(t0, "No command is running, so there is nothing to interrupt.", "idle");
    }
    a.interrupted = true;
    const ended = new Promise<ShellResult>((resolve) => a.endListeners.push(resolve));
    // Without a call waiting, this one waits for the end (no early `running`: the grace decides).
    const own = a.waiter === null ? this.attach(a, {}, t0, [], false) : null;
    if (a.phase !== "ended") this.proc?.write("\x03");
    this.armGrace(a);
    return own ?? ended;
  }

  async restart(): Promise<{ cwd: string; notice: string }> {
    if (this.closed) throw new Error("The shell session is closed");
    const a = this.active;
    this.active = null;
    await this.jobs.killAll();
    await this.killShell();
    const notice = "The shell was restarted: a fresh shell in the workspace; background jobs were stopped.";
    if (a !== null) this.endActive(a, { status: a.interrupted ? "interrupted" : "completed", exitCode: null, notice });
    this.finished = null;
    this.currentCwd = this.runtime.workspace;
    this.envFile = null;
    this.everStarted = false;
    await this.ensureShell();
    return { cwd: this.currentCwd, notice };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const a = this.active;
    this.active = null;
    if (a !== null) this.endActive(a, { status: "interrupted", exitCode: null, notice: "The shell session was closed." });
    await this.jobs.close();
    await this.killShell();
    await this.spills.removeAll();
    for (const c of [...this.conditions]) this.settle(c, false);
    this.emitState();
  }

  onRawOutput(listener: (chunk: string) => void): Unsubscribe {
    this.rawListeners.add(listener);
    return () => this.rawListeners.delete(listener);
  }

  onState(listener: (state: ShellState) => void): Unsubscribe {
    this.stateListeners.add(listener);
    listener(this.state());
    return () => this.stateListeners.delete(listener);
  }

  writeFromPerson(data: string): void {
    if (this.closed || data === "") return;
    if (this.active !== null) {
      if (data === "\x03") this.proc?.write(data); // a person may always stop what runs
      else this.person.hold(data);
      return;
    }
    if (this.proc === null || this.shell !== "ready") return;
    this.person.typed(data);
    this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    this.proc?.resize(cols, rows);
  }

  async startJob(command: string): Promise<JobInfo> {
    if (this.closed) throw new JobError("The shell session is closed; no job can start.", "closed");
    const env = (await this.readExported()) ?? undefined;
    return this.jobs.start(command, { cwd: this.currentCwd, env });
  }

  jobOutput(id: string, options: { waitSec?: number } = {}): Promise<JobOutput> {
    return this.jobs.output(id, options);
  }

  listJobs(): JobInfo[] {
    return this.jobs.list();
  }

  killJob(id: string): Promise<JobInfo> {
    return this.jobs.kill(id);
  }

  // ------------------------------------------------------------------------------------------------ the shell

  /** Starts a shell when there is none; returns a notice when this replaces one that had ended. */
  private async ensureShell(): Promise<string | null> {
    while (this.startingPromise !== null) await this.startingPromise.catch(() => undefined);
    if (this.shell === "ready") return null;
    const replacing = this.everStarted;
    const exitCode = this.lastShellExit;
    let restored: { env: Record<string, string> | null } = { env: null };
    const p = (async () => {
      const env = replacing ? await this.readExported() : null;
      restored = { env };
      await this.spawn(replacing ? this.currentCwd : undefined, env ?? undefined);
    })();
    this.startingPromise = p;
    try {
      await p;
    } finally {
      this.startingPromise = null;
    }
    if (!replacing) return null;
    return (
      `The previous shell had ended${exitCode !== null ? ` (exit code ${exitCode})` : ""}; this command runs in a ` +
      `fresh shell in ${this.currentCwd}${restored.env !== null ? ` with ${this.restoredWhat()} restored` : ""}.` +
      (this.runtime.kind === "node" && restored.env !== null ? "" : " Shell variables, functions and aliases that were not exported are gone.")
    );
  }

  private async spawn(cwd: string | undefined, env: Record<string, string> | undefined): Promise<void> {
    const restoreFrom = env !== undefined ? (this.envFile ?? undefined) : undefined;
    this.lastSeq = -1;
    this.shell = "starting";
    this.emitState();
    this.scanner = new MarkerScanner();
    this.paste.reset();
    this.pasteOn = false;
    this.atPrompt = false;
    this.person.reset();
    this.envFile = null;
    const proc = await this.runtime.spawnShell({ cols: this.cols, rows: this.rows, cwd, env, ...(restoreFrom ? { restoreFrom } : {}) });
    if (this.closed) {
      proc.kill();
      throw new Error("The shell session was closed");
    }
    this.proc = proc;
    this.stats.shellsStarted++;
    this.procUnsubs = [proc.onData((chunk) => this.onData(proc, chunk))];
    void proc.exited.then((code) => this.onShellExit(proc, code));
    const up = await this.waitFor(() => this.atPrompt || this.proc !== proc, this.startupTimeoutMs);
    if (!up || this.proc !== proc) {
      if (this.proc === proc) await this.killShell();
      this.shell = "dead";
      throw new Error(up ? "the shell exited while starting" : `no prompt within ${this.startupTimeoutMs} ms`);
    }
    // The line editor switches bracketed paste on right after the prompt when it has it; wait a moment to learn.
    if (!this.pasteOn) await this.waitFor(() => this.pasteOn, SHELL.pasteProbeMs);
    this.shell = "ready";
    this.everStarted = true;
    this.lastShellExit = null;
    this.emitState();
  }

  private async killShell(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    for (const off of this.procUnsubs) off();
    this.procUnsubs = [];
    if (this.shell !== "none") this.shell = "dead";
    if (proc === null) return;
    proc.kill();
    await Promise.race([proc.exited, new Promise((r) => setTimeout(r, SHELL.killWaitMs))]);
  }

  private onShellExit(proc: TerminalProcess, code: number): void {
    if (proc !== this.proc) return; // replaced on purpose
    for (const ev of this.scanner.flush()) if (ev.type === "text") this.onText(ev.text);
    for (const off of this.procUnsubs) off();
    this.procUnsubs = [];
    this.proc = null;
    this.shell = "dead";
    this.lastShellExit = code;
    this.person.busy = false;
    const a = this.active;
    if (a !== null && a.phase !== "preparing") {
      // (a command still being prepared is refused by run() itself)
      this.active = null;
      a.endOutput();
      this.endActive(a, {
        status: a.timedOut !== null ? "timeout" : a.interrupted ? "interrupted" : "completed",
        exitCode: a.exitCode ?? code,
        notice: `The shell exited (exit code ${code}). The next command starts a fresh shell in ${this.currentCwd}.`,
      });
    }
    this.checkConditions();
    this.emitState();
  }

  /** What a respawn carries over on this runtime. */
  private restoredWhat(): string {
    return this.runtime.kind === "node"
      ? "the working directory, exported and plain variables, functions and aliases"
      : "the working directory and exported variables (plain variables, functions and aliases are gone)";
  }

  private async readExported(): Promise<Record<string, string> | null> {
    if (this.envFile === null) return null;
    try {
      const text = new TextDecoder().decode(await this.runtime.fs.readFile(this.envFile));
      const vars = parseExportP(text);
      for (const name of NOT_RESTORED) delete vars[name];
      return vars;
    } catch {
      return null;
    }
  }

  // ------------------------------------------------------------------------------------------------ the stream

  private onData(proc: TerminalProcess, chunk: string): void {
    if (proc !== this.proc) return;
    this.lastDataAt = now();
    for (const listener of this.rawListeners) safely(() => listener(chunk));
    for (const ev of this.scanner.push(chunk)) {
      if (ev.type === "text") this.onText(ev.text);
      else this.onMarker(ev.marker);
    }
    this.checkConditions();
  }

  private onText(text: string): void {
    this.paste.push(
      text,
      (piece) => this.route(piece),
      (on) => this.onPasteMode(on),
    );
  }

  private onPasteMode(on: boolean): void {
    this.pasteOn = on;
    if (on) this.pasteCapable = true;
    const a = this.active;
    if (!on && a !== null && a.phase === "echo" && a.pasted) a.beginOutput();
  }

  private route(text: string): void {
    if (text === "") return;
    const a = this.active;
    if (a === null) return;
    const w = a.waiter;
    if (w !== null && w.longSleep) {
      // Output after a quiet spell: check for a prompt-like last line once it has been quiet for quietMs again.
      w.longSleep = false;
      if (w.quietTimer !== null) clearTimeout(w.quietTimer);
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.min(w.quietMs, w.softMs));
    }
    a.push(text);
  }

  /** `NONCE` or `NONCE.SEQ` → whether it is this runtime's, and the sequence number when there is one. */
  private tagOf(tag: string): { ours: boolean; seq: number | null } {
    const nonce = this.runtime.markerNonce;
    const dot = tag.lastIndexOf(".");
    const seqText = dot === -1 ? "" : tag.slice(dot + 1);
    const seq = /^\d{1,15}$/.test(seqText) ? Number(seqText) : null;
    const base = seq === null ? tag : tag.slice(0, dot);
    return { ours: nonce === null || base === nonce, seq };
  }

  private onMarker(m: Marker): void {
    switch (m.kind) {
      case "exit": {
        const t = this.tagOf(m.tag);
        if (t.ours) this.onExitMarker(m.code, t.seq);
        break;
      }
      case "cwd": {
        const t = this.tagOf(m.tag);
        // Only the cwd that comes with an accepted end (same tag) counts; on node it was read from /proc already.
        if (t.ours && m.path !== "" && (t.seq === null || t.seq === this.acceptedSeq)) {
          if (this.cwdVerified) this.claimedCwd = m.path;
          else this.currentCwd = m.path;
        }
        break;
      }
      case "prompt":
        this.onPromptMarker();
        break;
      case "interactive":
        this.atPrompt = true; // a runtime that shows no prompt marker at startup is ready with this one
        break;
      case "start": {
        const seq = /^\d{1,15}$/.test(m.tag) ? Number(m.tag) : null;
        if (seq !== null || this.tagOf(m.tag).ours) this.onStartMarker(seq);
        break;
      }
      case "envfile":
        if (this.tagOf(m.tag).ours) this.envFile = m.path;
        break;
      case "discarded":
        if (this.tagOf(m.tag).ours) this.discarded += m.count;
        break;
      default:
        break;
    }
  }

  private onStartMarker(seq: number | null): void {
    const a = this.active;
    if (a !== null) {
      if (a.phase === "echo") {
        if (seq !== null) a.startSeq = seq;
        a.beginOutput();
      }
      return;
    }
    if (this.shell === "ready" && !this.person.busy) {
      this.person.busy = true;
      this.person.dirty = false;
      this.emitState();
    }
  }

  /** The sequence number of the end last accepted, and whether its cwd came from the OS (then markers' cwd is ignored). */
  private acceptedSeq: number | null = null;
  private cwdVerified = false;
  private claimedCwd: string | undefined;

  private onExitMarker(code: number, seq: number | null): void {
    const a = this.active;
    if (seq !== null) {
      // A command's end is bound to it: newer than anything before it was typed, and its own start's number.
      if (a === null || a.phase === "preparing" || a.phase === "ended") {
        if (seq > this.lastSeq) this.lastSeq = seq;
        return;
      }
      if (seq <= a.afterSeq || (a.startSeq !== null && seq !== a.startSeq)) return;
    } else if (a === null || a.phase === "preparing" || a.phase === "ended") {
      return;
    }
    // Out of band, where the OS can tell: the shell must own the terminal again (nothing of the command runs in the
    // foreground), or this "end" was printed by the command itself.
    const proof = this.proc?.verifyEnd?.(undefined) ?? null;
    if (proof !== null && !proof.atPrompt) return;
    if (seq !== null) this.lastSeq = Math.max(this.lastSeq, seq);
    this.acceptedSeq = seq;
    this.cwdVerified = proof !== null && proof.cwd !== undefined;
    a.endOutput();
    a.exitCode = code;
    a.phase = "ended";
  }

  private onPromptMarker(): void {
    const a = this.active;
    if (a !== null && a.phase !== "ended" && a.phase !== "preparing") return; // not after an accepted end: the command's own
    this.atPrompt = true;
    this.pasteOn = false; // the line editor switches it on again when it starts reading
    if (a !== null) {
      this.person.entered = false;
      if (a.phase === "ended") {
        if (this.cwdVerified) {
          const proof = this.proc?.verifyEnd?.(this.claimedCwd) ?? null;
          if (proof?.cwd !== undefined) this.currentCwd = proof.cwd;
          this.claimedCwd = undefined;
        }
        this.complete(a);
      }
      return;
    }
    if (this.person.atPrompt()) this.emitState();
  }

  // ------------------------------------------------------------------------------------------------ commands

  private newCommand(command: string): RunningCommand {
    return new RunningCommand(command, {
      newSegment: () => this.newSegment(),
      retained: (chars) => {
        if (chars > this.stats.peakRetainedChars) this.stats.peakRetainedChars = chars;
      },
      cwd: () => this.currentCwd,
    });
  }

  private newSegment(): Segment {
    const segment: Segment = { collector: undefined as unknown as OutputCollector, spill: null };
    segment.collector = new OutputCollector({
      maxChars: this.maxOutputChars,
      onSpill: (text) => {
        segment.spill ??= this.spills.open("out");
        segment.spill.write(text);
      },
    });
    return segment;
  }

  private writeCommand(a: RunningCommand): void {
    const text = a.command; // commandText(): no control characters but newline and tab, no trailing newline
    a.afterSeq = this.lastSeq;
    this.discarded = 0;
    a.phase = "echo";
    a.pre = "";
    a.lastOutputAt = now();
    this.atPrompt = false;
    if (this.pasteCapable && this.pasteOn) {
      // One paste: readline takes every byte literally (tabs too) and runs the lines as one unit.
      a.pasted = true;
      this.proc?.write(`\x1b[200~${text}\x1b[201~\r`);
    } else {
      // Typed line by line. Several lines go in a brace group, so the shell reads them all before it runs any and
      // prints one exit marker (each line of its own would end the command at the first line's marker).
      a.pasted = false;
      const typed = text.includes("\n") ? `{\n${text}\n}` : text;
      this.proc?.write(`${typed.replace(/\n/g, "\r")}\r`);
    }
  }

  /** Attaches a waiting call to the running command. Unless `yieldable` is false it may return `running` early. */
  private attach(a: RunningCommand, options: RunOptions, t0: number, notices: string[], yieldable = true): Promise<ShellResult> {
    return new Promise<ShellResult>((resolve) => {
      const w = a.newWaiter(options, t0, notices, { softSec: this.softSec, hardSec: this.hardSec, quietMs: this.promptQuietMs });
      w.resolve = resolve;
      a.waiter = w;
      a.lastOutputAt = now();
      if (!yieldable) return;
      const firstCheck = Math.min(w.softMs, w.quietMs);
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), firstCheck);
      w.hardTimer = setTimeout(() => this.onHardTimeout(a, w), w.hardSec * 1000);
    });
  }

  private onQuietTimer(a: RunningCommand, w: Waiter): void {
    w.quietTimer = null;
    if (a.waiter !== w) return;
    const quiet = now() - a.lastOutputAt;
    if (quiet >= w.softMs - 1) {
      this.yieldRunning(a, w, "quiet");
      return;
    }
    if (quiet >= w.quietMs - 1 && looksLikePrompt(a.lastLine())) {
      this.yieldRunning(a, w, "prompt");
      return;
    }
    w.longSleep = quiet >= w.quietMs;
    // A soft timeout shorter than the prompt quiet must not be overslept.
    const next = w.longSleep ? w.softMs - quiet : Math.min(w.quietMs, w.softMs) - quiet;
    w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.max(1, next));
  }

  /** Soft timeout or a prompt-like pause: return what came so far; the command keeps running. */
  private yieldRunning(a: RunningCommand, w: Waiter, reason: "quiet" | "prompt"): void {
    const lastLine = a.lastLine();
    a.endOutput(); // the open lines are final for this call; the echo, if still unmarked, is cut now
    const waiting = { reason, lastLine, quietMs: reason === "prompt" ? w.quietMs : w.softMs };
    const segment = a.takeSegment();
    a.detach(w);
    void a.render(segment, w, { status: "running", exitCode: null, waiting }).then(w.resolve);
  }

  private onHardTimeout(a: RunningCommand, w: Waiter): void {
    w.hardTimer = null;
    if (a.waiter !== w || this.active !== a) return;
    a.timedOut = w.hardSec;
    a.interrupted = true;
    this.proc?.write("\x03");
    this.armGrace(a);
  }

  /** After a C-c of ours: when the prompt does not come back within the grace, kill the shell and start afresh. */
  private armGrace(a: RunningCommand): void {
    if (a.graceTimer !== null) return;
    a.graceTimer = setTimeout(() => {
      a.graceTimer = null;
      if (this.active === a) void this.forceRespawn(a);
    }, this.graceMs);
  }

  private async forceRespawn(a: RunningCommand): Promise<void> {
    a.endOutput();
    this.active = null;
    const cwd = this.currentCwd;
    const env = await this.readExported();
    await this.killShell();
    let restartNote: string;
    try {
      const p = this.spawn(cwd, env ?? undefined);
      this.startingPromise = p;
      try {
        await p;
      } finally {
        if (this.startingPromise === p) this.startingPromise = null;
      }
      restartNote =
        `the shell was killed (with anything it had started) and a fresh shell started in ${this.currentCwd}` +
        `${env !== null ? ` with ${this.restoredWhat()} restored` : ""}`;
    } catch (err) {
      restartNote = `the shell was killed, and a fresh one could not be started (${(err as Error).message}); the next command tries again`;
    }
    const what = a.timedOut !== null ? `The command timed out after ${a.timedOut}s and` : "The command";
    this.endActive(a, {
      status: a.timedOut !== null ? "timeout" : "interrupted",
      exitCode: null,
      notice: `${what} did not stop within ${secs(this.graceMs)} of C-c: ${restartNote}.`,
    });
    this.flushPersonQueue();
    this.emitState();
  }

  /** Exit marker and prompt seen: the command is over. */
  private complete(a: RunningCommand): void {
    this.active = null;
    const code = a.exitCode;
    let notice: string | undefined;
    if (a.timedOut !== null) {
      notice = `The command timed out after ${a.timedOut}s and was stopped with C-c${code !== null ? ` (exit code ${code})` : ""}.`;
    }
    if (this.discarded > 0) {
      const typed = `${this.discarded} typed-ahead character${this.discarded === 1 ? "" : "s"} the command did not read ${this.discarded === 1 ? "was" : "were"} discarded, not run.`;
      notice = notice ? `${notice} ${typed}` : typed;
      this.discarded = 0;
    }
    this.endActive(a, {
      status: a.timedOut !== null ? "timeout" : a.interrupted ? "interrupted" : "completed",
      exitCode: code,
      notice,
    });
    this.flushPersonQueue();
    this.emitState();
  }

  /** Hands the end of `a` to whoever waits: the attached call, interrupt() callers, or the next call. */
  private endActive(a: RunningCommand, end: CommandEnd): void {
    if (a.graceTimer !== null) clearTimeout(a.graceTimer);
    a.graceTimer = null;
    a.phase = "ended";
    const w = a.waiter;
    const segment = a.segment;
    if (w !== null) {
      a.detach(w);
      void a.render(segment, w, end).then((r) => {
        w.resolve(r);
        for (const l of a.endListeners) l(r);
      });
      return;
    }
    const p = a.render(segment, { startedAt: a.startedAt, notices: [] }, end);
    if (a.endListeners.length > 0) {
      void p.then((r) => {
        for (const l of a.endListeners) l(r);
      });
    } else if (!this.closed) {
      this.finished = p;
    }
  }

  private async takeFinished(t0: number, notice: string | undefined): Promise<ShellResult> {
    const p = this.finished!;
    this.finished = null;
    const r = await p;
    const notices = [r.notice, notice].filter((s): s is string => !!s);
    const out: ShellResult = { ...r, durationMs: Math.round(now() - t0), cwd: this.currentCwd };
    if (notices.length > 0) out.notice = notices.join(" ");
    return out;
  }

  private async describeFinished(): Promise<string> {
    const p = this.finished!;
    this.finished = null;
    const r = await p;
    const tail = r.output.length > 2_000 ? `…${r.output.slice(-2_000)}` : r.output;
    let text =
      `The previous command ended (status ${r.status}${r.exitCode !== null ? `, exit code ${r.exitCode}` : ""}) ` +
      "after the last call returned.";
    if (r.notice) text += ` ${r.notice}`;
    if (tail.trim() !== "") text += ` Its output since then:\n${tail}${tail.endsWith("\n") ? "" : "\n"}`;
    if (r.fullOutputPath) text += ` (full output in ${r.fullOutputPath})`;
    return text;
  }

  private refusal(t0: number, error: string, refused: ShellResult["refused"], status: ShellStatus = "completed"): ShellResult {
    return {
      output: "",
      exitCode: null,
      cwd: this.currentCwd,
      durationMs: Math.round(now() - t0),
      status,
      truncated: false,
      error,
      refused,
    };
  }

  /** A new command while one runs: not run; the output that arrived since the last read comes with the refusal. */
  private async busyRefusal(t0: number, a: RunningCommand): Promise<ShellResult> {
    const ago = Math.round((now() - a.startedAt) / 1000);
    const error = `A command is still running (started ${ago}s ago: ${JSON.stringify(head(a.command))}), so this command was NOT run.`;
    if (a.waiter !== null || a.phase !== "output") return this.refusal(t0, error, "busy", "running");
    a.endOutput();
    a.phase = "output";
    const r = await a.render(a.takeSegment(), { startedAt: t0, notices: [] }, { status: "running", exitCode: null });
    return { ...r, error, refused: "busy" };
  }

  private flushPersonQueue(): void {
    if (this.proc === null) return;
    const data = this.person.release();
    if (data !== null) this.proc.write(data);
  }

  // ------------------------------------------------------------------------------------------------ waiting

  /** Resolves once the shell has printed nothing for `ms`, or after `maxMs` at the latest. */
  private async quiet(ms: number, maxMs: number): Promise<void> {
    const deadline = now() + maxMs;
    for (;;) {
      const left = Math.min(this.lastDataAt + ms, deadline) - now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, left));
    }
  }

  private waitFor(test: () => boolean, ms: number): Promise<boolean> {
    if (test()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const c: Condition = { test, resolve, timer: setTimeout(() => this.settle(c, false), ms) };
      this.conditions.add(c);
    });
  }

  private settle(c: Condition, ok: boolean): void {
    if (!this.conditions.delete(c)) return;
    clearTimeout(c.timer);
    c.resolve(ok);
  }

  private checkConditions(): void {
    if (this.conditions.size === 0) return;
    for (const c of [...this.conditions]) if (c.test()) this.settle(c, true);
  }

  // ------------------------------------------------------------------------------------------------ state

  private state(): ShellState {
    if (this.closed) return { state: "closed", cwd: this.currentCwd };
    if (this.shell === "starting" || this.shell === "none") return { state: "starting", cwd: this.currentCwd };
    if (this.active !== null && this.active.phase !== "preparing") {
      return { state: "running", by: "agent", command: this.active.command, cwd: this.currentCwd };
    }
    if (this.person.busy) return { state: "running", by: "person", cwd: this.currentCwd };
    return { state: "idle", cwd: this.currentCwd };
  }

  private emitState(): void {
    const s = this.state();
    const key = `${s.state}|${s.by ?? ""}|${s.command ?? ""}|${s.cwd}`;
    if (key === this.lastStateKey) return;
    this.lastStateKey = key;
    for (const l of this.stateListeners) safely(() => l(s));
  }
}

/** Creates a session and starts its shell (resolves when the first prompt is there). */
export async function createShellSession(runtime: Runtime, options: ShellSessionOptions = {}): Promise<ShellSession> {
  const session = new Session(runtime, options);
  await session.start();
  return session;
}
