// The session engine: one persistent shell for an agent, on any runtime. It writes commands to the shell's terminal
// and reads one stream back through one MarkerScanner, event-driven; timers exist only for the soft and hard
// timeouts, the quiet before a prompt-like last line, and the grace after a C-c.
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
import type { Runtime, RuntimeFs, TerminalProcess, Unsubscribe } from "../runtime/types.ts";
import { JobError, JobManager, type JobInfo, type JobOutput, type SpillTarget } from "./jobs.ts";
import { keyToBytes } from "./keys.ts";
import { type Marker, MarkerScanner } from "./markers.ts";
import { cleanTerminalOutput, OutputCollector, TerminalTextCleaner } from "./output.ts";

export type ShellStatus = "completed" | "running" | "timeout" | "interrupted";

export interface ShellResult {
  /** The command's own output since the previous call returned: no prompt, no echo, no markers; cleaned, bounded. */
  output: string;
  /** Null while the command runs, or when no exit code could be known. */
  exitCode: number | null;
  /** The shell's working directory as last reported. */
  cwd: string;
  durationMs: number;
  status: ShellStatus;
  truncated: boolean;
  /** Where the whole output went when it was truncated. */
  fullOutputPath?: string;
  /** Facts the agent must know beyond the output: a fresh shell, a kill, a command that ended unobserved. */
  notice?: string;
  /** For a `running` result: how to go on (wait, answer, stop). */
  hint?: string;
  /** Set when the call was refused or had nothing to act on; nothing was sent to the shell then. */
  error?: string;
}

export interface RunOptions {
  /** Hard timeout of this call, in seconds (default SHELL.defaultTimeoutSec, at most SHELL.maxTimeoutSec). */
  timeoutSec?: number;
  /** Return `running` after this many seconds without new output (default SHELL.softTimeoutSec). */
  softTimeoutSec?: number;
  /** Cleaned output as it arrives (for streaming to a UI or as progress notifications). */
  onOutput?: (chunk: string) => void;
}

export type InputOptions = RunOptions;

export interface ShellState {
  state: "starting" | "idle" | "running" | "closed";
  /** Who runs the current command. */
  by?: "agent" | "person";
  /** The agent's command, while it runs. */
  command?: string;
  cwd: string;
}

export interface ShellSessionOptions {
  /** Terminal size of the agent's shell: wide, so programs do not wrap or truncate for the agent. */
  cols?: number;
  rows?: number;
  softTimeoutSec?: number;
  timeoutSec?: number;
  promptQuietMs?: number;
  interruptGraceMs?: number;
  maxOutputChars?: number;
  /** Where long output is spilled (default SHELL.spillDir, in the runtime's file system). */
  spillDir?: string;
  maxJobs?: number;
  /** How long a new shell may take to show its first prompt. */
  startupTimeoutMs?: number;
  /**
   * A command longer than this is saved to `${spillDir}/cmd-K.sh` and run with `. FILE`: a line editor takes typed
   * input a byte at a time (readline: about 200 KB/s), a file is read at once. Infinity turns this off.
   */
  largeCommandChars?: number;
}

export interface SessionStats {
  /** Commands run (run() calls that reached the shell). */
  commands: number;
  /** Largest number of output characters an OutputCollector held at once. */
  peakRetainedChars: number;
  /** Largest spill backlog (characters waiting for the file system). */
  peakSpillBacklogChars: number;
  /** Shells started, the first included. */
  shellsStarted: number;
}

export interface ShellSession {
  readonly runtime: Runtime;
  /** Runs a command in the persistent shell. Never throws for shell trouble: the result says what happened. */
  run(command: string, options?: RunOptions): Promise<ShellResult>;
  /**
   * Sends text (Enter is added unless it ends with a newline) or a named key (`C-c`, `Up`, … see keys.ts) to the
   * running command; "" only waits for more output.
   */
  input(textOrKey: string, options?: InputOptions): Promise<ShellResult>;
  /** Stops the running command: C-c, and when that does not end it within the grace, a fresh shell. */
  interrupt(): Promise<ShellResult>;
  /** Kills the shell and every background job; starts a fresh shell in the workspace. */
  restart(): Promise<{ cwd: string; notice: string }>;
  close(): Promise<void>;
  readonly cwd: string;
  readonly busy: boolean;
  readonly stats: SessionStats;
  /** Raw terminal output, markers included (xterm ignores them), for a terminal view. */
  onRawOutput(listener: (chunk: string) => void): Unsubscribe;
  /** Keystrokes from a person: held back while an agent command runs (C-c excepted), forwarded otherwise. */
  writeFromPerson(data: string): void;
  onState(listener: (state: ShellState) => void): Unsubscribe;
  resize(cols: number, rows: number): void;
  startJob(command: string): Promise<JobInfo>;
  jobOutput(id: string, options?: { waitSec?: number }): Promise<JobOutput>;
  listJobs(): JobInfo[];
  killJob(id: string): Promise<JobInfo>;
}

// ---------------------------------------------------------------------------------------------------------------
// Prompt-like last lines: after SHELL.promptQuietMs of quiet these return `running` early.

const PROMPT_PATTERNS: RegExp[] = [
  /(?:password|passphrase|passcode|\bpin)\b[^\n]*[:>]\s*$/i,
  /[[(](?:y\/n|yes\/no)[^\])\n]*[\])]\s*[:?]?\s*$/i,
  /(?:^|\s)(?:>>>|\.\.\.) $/,
  /> $/,
  /\? $/,
  /: $/,
  /[$#%] $/,
];

export function looksLikePrompt(lastLine: string): boolean {
  if (lastLine.trim() === "") return false;
  return PROMPT_PATTERNS.some((re) => re.test(lastLine));
}

// ---------------------------------------------------------------------------------------------------------------
// `export -p` → variables (bash prints `declare -x NAME="value"` or `NAME=$'…'`).

const NOT_RESTORED = new Set(["PWD", "OLDPWD", "SHLVL", "_", "PS1", "PS2", "PS0", "PROMPT_COMMAND"]);

export function parseExportP(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const n = text.length;
  let i = 0;
  const nextLine = (from: number): number => {
    const nl = text.indexOf("\n", from);
    return nl === -1 ? n : nl + 1;
  };
  const nameRe = /[A-Za-z_][A-Za-z0-9_]*/y;
  while (i < n) {
    if (!text.startsWith("declare -", i)) {
      i = nextLine(i);
      continue;
    }
    const sp = text.indexOf(" ", i + 9);
    if (sp === -1) break;
    const flags = text.slice(i + 9, sp);
    nameRe.lastIndex = sp + 1;
    const m = nameRe.exec(text);
    if (m === null) {
      i = nextLine(sp);
      continue;
    }
    const name = m[0];
    i = sp + 1 + name.length;
    if (text[i] !== "=" || /[aA]/.test(flags)) {
      // exported without a value, or an array (not exportable): skip to the next declaration
      const next = text.indexOf("\ndeclare -", i);
      i = next === -1 ? n : next + 1;
      continue;
    }
    i++;
    let value: string;
    if (text[i] === '"') {
      let v = "";
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < n && '"\\$`'.includes(text[i + 1]!)) {
          v += text[i + 1];
          i += 2;
        } else {
          v += text[i];
          i++;
        }
      }
      i++;
      value = v;
    } else if (text.startsWith("$'", i)) {
      const r = parseAnsiC(text, i + 2);
      value = r.value;
      i = r.end;
    } else {
      const end = text.indexOf("\n", i);
      value = text.slice(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    }
    out[name] = value;
    i = nextLine(i);
  }
  return out;
}

/** Bash's $'…' quoting, from just after the opening quote; octal and hex escapes are bytes (UTF-8 decoded). */
function parseAnsiC(text: string, start: number): { value: string; end: number } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const pushText = (s: string): void => {
    for (const b of encoder.encode(s)) bytes.push(b);
  };
  const simple: Record<string, number> = { a: 7, b: 8, e: 27, E: 27, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, "'": 39, '"': 34, "?": 63 };
  let i = start;
  const n = text.length;
  while (i < n && text[i] !== "'") {
    const c = text[i]!;
    if (c !== "\\" || i + 1 >= n) {
      const cp = text.codePointAt(i)!;
      pushText(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = text[i + 1]!;
    if (simple[e] !== undefined) {
      bytes.push(simple[e]);
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))!;
      bytes.push(parseInt(m[0], 8) & 0xff);
      i += 1 + m[0].length;
    } else if (e === "x") {
      const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 2, i + 4));
      if (m) {
        bytes.push(parseInt(m[0], 16));
        i += 2 + m[0].length;
      } else {
        pushText("\\x");
        i += 2;
      }
    } else if (e === "u" || e === "U") {
      const m = (e === "u" ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(text.slice(i + 2, i + 10));
      if (m) {
        pushText(String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff)));
        i += 2 + m[0].length;
      } else {
        pushText("\\" + e);
        i += 2;
      }
    } else if (e === "c" && i + 2 < n) {
      bytes.push(text.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      pushText("\\" + e);
      i += 2;
    }
  }
  return { value: new TextDecoder().decode(new Uint8Array(bytes)), end: i + 1 };
}

/** Drops the leading lines of `clean` that repeat the command's lines (the echo of a runtime with no start marker). */
export function stripEcho(clean: string, command: string): string {
  const lines = clean.split("\n");
  const cmdLines = command.split("\n");
  let k = 0;
  for (const cmdLine of cmdLines) {
    const line = lines[k];
    if (line === undefined) break;
    const want = cmdLine.trimEnd();
    if (want === "" ? line.trim() === "" || /^[>$#%] ?$/.test(line.trim()) : line.trimEnd().endsWith(want)) k++;
    else break;
  }
  return k === 0 ? clean : lines.slice(k).join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// Spill files in the runtime's file system.

class SpillWriter implements SpillTarget {
  private queue: string[] = [];
  private queuedChars = 0;
  private draining: Promise<void> | null = null;
  private failed = false;

  constructor(
    private readonly fs: RuntimeFs,
    private readonly path: Promise<string>,
    private readonly onBacklog: (chars: number) => void,
  ) {
    path.catch(() => {
      this.failed = true;
    });
  }

  write(text: string): void {
    if (this.failed || text === "") return;
    this.queue.push(text);
    this.queuedChars += text.length;
    this.onBacklog(this.queuedChars);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      const path = await this.path;
      while (this.queue.length > 0) {
        const chunk = this.queue.length === 1 ? this.queue[0]! : this.queue.join("");
        this.queue = [];
        this.queuedChars = 0;
        await this.fs.appendFile(path, chunk);
      }
    } catch {
      this.failed = true;
      this.queue = [];
      this.queuedChars = 0;
    } finally {
      this.draining = null;
    }
  }

  async flush(): Promise<string | undefined> {
    while (this.draining !== null) await this.draining;
    if (this.failed) return undefined;
    return this.path.catch(() => undefined);
  }
}

class SpillFiles {
  private next = 1;
  private dirReady: Promise<void> | null = null;

  constructor(
    private readonly fs: RuntimeFs,
    private readonly dir: string,
    private readonly onBacklog: (chars: number) => void,
  ) {}

  open(prefix: string): SpillTarget {
    return new SpillWriter(this.fs, this.allocate(prefix), this.onBacklog);
  }

  /** Writes a long command to `${dir}/cmd-K.sh`; resolves with its path. */
  async saveCommand(text: string): Promise<string> {
    const path = await this.allocate("cmd", "sh");
    await this.fs.writeFile(path, text.endsWith("\n") ? text : `${text}\n`);
    return path;
  }

  /** The first `${dir}/${prefix}-K.${ext}` that does not exist yet, created empty. */
  private async allocate(prefix: string, ext = "log"): Promise<string> {
    this.dirReady ??= this.fs.mkdir(this.dir, { recursive: true }).catch(() => undefined);
    await this.dirReady;
    for (let tries = 0; tries < 10_000; tries++) {
      const path = `${this.dir.replace(/\/+$/, "")}/${prefix}-${this.next++}.${ext}`;
      if ((await this.fs.stat(path).catch(() => null)) === null) {
        await this.fs.writeFile(path, "");
        return path;
      }
    }
    throw new Error(`no free spill file name in ${this.dir}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The session.

type Phase = "preparing" | "echo" | "output" | "ended";

interface Waiter {
  startedAt: number;
  softMs: number;
  quietMs: number;
  hardSec: number;
  onOutput: ((chunk: string) => void) | undefined;
  resolve: (result: ShellResult) => void;
  quietTimer: ReturnType<typeof setTimeout> | null;
  /** The quiet timer sleeps until the soft timeout: new output must bring the next prompt check forward. */
  longSleep: boolean;
  hardTimer: ReturnType<typeof setTimeout> | null;
  /** Notices collected for this call (fresh shell, …). */
  notices: string[];
}

interface Segment {
  collector: OutputCollector;
  spill: SpillTarget | null;
}

interface Active {
  /** What is typed into the shell. */
  command: string;
  startedAt: number;
  phase: Phase;
  /** Raw text of the echo phase (bounded), for runtimes that mark neither its end nor the start. */
  pre: string;
  /** The command went in as a bracketed paste: `ESC[?2004l` ends the echo. */
  pasted: boolean;
  exitCode: number | null;
  /** We sent C-c (interrupt, input C-c, hard timeout). */
  interrupted: boolean;
  timedOut: number | null;
  cleaner: TerminalTextCleaner;
  segment: Segment;
  waiter: Waiter | null;
  lastOutputAt: number;
  graceTimer: ReturnType<typeof setTimeout> | null;
  /** interrupt() calls waiting for the end. */
  endListeners: Array<(result: ShellResult) => void>;
  /** Characters of final clean output so far, and of output streamed to onOutput (final, then provisional lines). */
  finalChars: number;
  streamedChars: number;
}

interface Condition {
  test: () => boolean;
  resolve: (ok: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
const PASTE_SEQ_PREFIX = "\x1b[?2004";
const MAX_PRE_CHARS = 1 << 20;

/** Listeners belong to others: one that throws must not break the stream. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    console.error("sandshell: a shell session listener threw:", err);
  }
}

function now(): number {
  return performance.now();
}

function clampTimeout(sec: number | undefined, fallback: number): number {
  const v = typeof sec === "number" && Number.isFinite(sec) && sec > 0 ? sec : fallback;
  return Math.min(v, SHELL.maxTimeoutSec);
}

function head(command: string, chars = 80): string {
  const one = command.replace(/\s+/g, " ").trim();
  return one.length > chars ? `${one.slice(0, chars)}…` : one;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function secs(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}

class Session implements ShellSession {
  private proc: TerminalProcess | null = null;
  private procUnsubs: Unsubscribe[] = [];
  private scanner = new MarkerScanner();
  private shell: "none" | "starting" | "ready" | "dead" = "none";
  private startingPromise: Promise<void> | null = null;
  private currentCwd: string;
  private envFile: string | null = null;
  private everStarted = false;
  private lastShellExit: number | null = null;

  // Line-editor state, from the stream.
  private pasteCapable = false;
  private pasteOn = false;
  private atPrompt = false;
  private modeCarry = "";

  // The person at the terminal.
  private personBusy = false;
  private personDirty = false;
  /** The person pressed Enter since the last prompt: a continuation line (PS2) may be open. */
  private personEntered = false;
  private personQueue: string[] = [];
  private personQueued = 0;

  private active: Active | null = null;
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
    this.spills = new SpillFiles(runtime.fs, options.spillDir ?? SHELL.spillDir, onBacklog);
    this.jobs = new JobManager(runtime, {
      maxJobs: options.maxJobs ?? SHELL.maxJobs,
      maxOutputChars: this.maxOutputChars,
      openSpill: (prefix) => this.spills.open(prefix),
    });
  }

  get cwd(): string {
    return this.currentCwd;
  }

  get busy(): boolean {
    return this.active !== null || this.personBusy;
  }

  // ------------------------------------------------------------------------------------------------ public API

  async start(): Promise<void> {
    await this.ensureShell();
  }

  async run(command: string, options: RunOptions = {}): Promise<ShellResult> {
    const t0 = now();
    if (this.closed) return this.refusal(t0, "The shell session is closed.");
    if (this.active !== null) {
      if (command.trim() === "") return this.input("", options);
      return this.busyRefusal(t0, this.active);
    }
    if (command.trim() === "") {
      if (this.finished !== null) return this.takeFinished(t0, "");
      return this.refusal(t0, "No command given, and no command is running to wait for.");
    }
    const notices: string[] = [];
    const a = this.newActive(command);
    this.active = a; // claim the shell at once: a parallel call is refused from here on
    if (this.finished !== null) notices.push(await this.describeFinished());
    if (command.length > this.largeCommandChars) {
      try {
        const path = await this.spills.saveCommand(command.replace(/\r\n?/g, "\n"));
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
      return this.refusal(t0, `The shell could not be started: ${(err as Error).message}`);
    }
    if (this.personBusy) {
      this.active = null;
      return this.refusal(
        t0,
        "A command typed by the person at the terminal is still running, so this command was NOT run. Try again when it has finished.",
      );
    }
    if (this.personDirty && !this.personEntered && this.runtime.kind === "node") {
      // Only typed, never entered: readline's C-e C-u clears the line with no signal, so no new prompt and no
      // flushed input (a C-c makes the tty discard what is queued, and readline set itself up again).
      this.proc?.write("\x05\x15");
      this.personDirty = false;
    }
    if (this.personDirty) {
      // A half-typed line from the person: C-c discards it (also a PS2 continuation) and brings a fresh prompt.
      // A line the person just entered may bring a prompt of its own first, and the C-c's exit marker after it:
      // wait until the shell has settled, or that marker would be taken for the end of the agent's command.
      this.atPrompt = false;
      this.proc?.write("\x03");
      this.personDirty = false;
      await this.waitFor(() => this.atPrompt || this.shell !== "ready", SHELL.promptWaitMs);
      await this.quiet(SHELL.personSettleMs, 5 * SHELL.personSettleMs);
      if (this.personBusy) {
        this.active = null;
        return this.refusal(
          t0,
          "A command typed by the person at the terminal is still running, so this command was NOT run. Try again when it has finished.",
        );
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
    if (this.active !== a) return this.refusal(t0, "The shell session was closed or restarted before the command could run.");
    if (this.shell !== "ready") {
      this.active = null;
      return this.refusal(t0, "The shell ended before the command could run; call again to start a fresh one.");
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
    if (this.closed) return this.refusal(t0, "The shell session is closed.");
    const a = this.active;
    if (a === null) {
      if (this.finished !== null) {
        const notice = textOrKey === "" ? undefined : "The command had already finished, so the input was not sent.";
        return this.takeFinished(t0, notice);
      }
      return this.refusal(
        t0,
        "No command is running, so there is nothing to send input to (the input was not sent). Run a command instead.",
      );
    }
    if (a.waiter !== null || a.phase === "preparing") {
      return this.refusal(t0, "Another call is already waiting on the running command; the input was not sent.", "running");
    }
    const key = keyToBytes(textOrKey);
    const bytes = key ?? (textOrKey === "" ? "" : /\n$/.test(textOrKey) ? textOrKey : `${textOrKey}\r`);
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
      return this.refusal(t0, "No command is running, so there is nothing to interrupt.", "completed");
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
      if (data === "\x03") {
        this.proc?.write(data); // a person may always stop what runs
        return;
      }
      if (this.personQueued + data.length <= SHELL.maxPersonQueueChars) {
        this.personQueue.push(data);
        this.personQueued += data.length;
      }
      return;
    }
    if (this.proc === null || this.shell !== "ready") return;
    this.personDirty = true;
    if (/[\r\n]/.test(data)) this.personEntered = true;
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
      `fresh shell in ${this.currentCwd}${restored.env !== null ? " with the exported variables restored" : ""}. ` +
      "Shell variables, functions and aliases that were not exported are gone."
    );
  }

  private async spawn(cwd: string | undefined, env: Record<string, string> | undefined): Promise<void> {
    this.shell = "starting";
    this.emitState();
    this.scanner = new MarkerScanner();
    this.pasteOn = false;
    this.atPrompt = false;
    this.modeCarry = "";
    this.personBusy = false;
    this.personDirty = false;
    this.envFile = null;
    const proc = await this.runtime.spawnShell({ cols: this.cols, rows: this.rows, cwd, env });
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
    this.personBusy = false;
    const a = this.active;
    if (a !== null && a.phase !== "preparing") {
      // (a command still being prepared is refused by run() itself)
      this.active = null;
      this.endOutput(a);
      this.endActive(a, {
        status: a.timedOut !== null ? "timeout" : a.interrupted ? "interrupted" : "completed",
        exitCode: a.exitCode ?? code,
        notice: `The shell exited (exit code ${code}). The next command starts a fresh shell in ${this.currentCwd}.`,
      });
    }
    this.checkConditions();
    this.emitState();
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

  /** Splits text at bracketed-paste switches (which tell when the line editor reads) and routes the pieces. */
  private onText(text: string): void {
    let data = this.modeCarry === "" ? text : this.modeCarry + text;
    this.modeCarry = "";
    if (data.indexOf("\x1b") === -1) {
      this.route(data);
      return;
    }
    // A switch split across chunks: hold back the tail that could begin one (at most 7 characters, from an ESC).
    const lastEsc = data.lastIndexOf("\x1b");
    if (data.length - lastEsc < PASTE_ON.length) {
      const tail = data.slice(lastEsc);
      if (PASTE_ON.startsWith(tail) || PASTE_OFF.startsWith(tail)) {
        this.modeCarry = tail;
        data = data.slice(0, lastEsc);
      }
    }
    let from = 0;
    let i = data.indexOf(PASTE_SEQ_PREFIX);
    while (i !== -1) {
      const seq = data.slice(i, i + PASTE_ON.length);
      if (seq === PASTE_ON || seq === PASTE_OFF) {
        const end = i + PASTE_ON.length;
        this.route(data.slice(from, end)); // the text before and the switch itself (the cleaner drops it)
        from = end;
        this.onPasteMode(seq === PASTE_ON);
      }
      i = data.indexOf(PASTE_SEQ_PREFIX, i + 1);
    }
    this.route(data.slice(from));
  }

  private onPasteMode(on: boolean): void {
    this.pasteOn = on;
    if (on) this.pasteCapable = true;
    const a = this.active;
    if (!on && a !== null && a.phase === "echo" && a.pasted) this.beginOutput(a);
  }

  private route(text: string): void {
    if (text === "") return;
    const a = this.active;
    if (a === null) return;
    a.lastOutputAt = now();
    const w = a.waiter;
    if (w !== null && w.longSleep) {
      // Output after a quiet spell: check for a prompt-like last line once it has been quiet for quietMs again.
      w.longSleep = false;
      if (w.quietTimer !== null) clearTimeout(w.quietTimer);
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.min(w.quietMs, w.softMs));
    }
    if (a.phase === "echo") {
      a.pre = a.pre.length + text.length > MAX_PRE_CHARS ? (a.pre + text).slice(-MAX_PRE_CHARS) : a.pre + text;
    } else if (a.phase === "output") {
      this.collect(a, a.cleaner.push(text), false);
    }
  }

  private onMarker(m: Marker): void {
    const nonce = this.runtime.markerNonce;
    const ours = (tag: string): boolean => nonce === null || tag === nonce;
    switch (m.kind) {
      case "exit":
        if (ours(m.tag)) this.onExitMarker(m.code);
        break;
      case "cwd":
        if (ours(m.tag) && m.path !== "") this.currentCwd = m.path;
        break;
      case "prompt":
        this.onPromptMarker();
        break;
      case "interactive":
        this.atPrompt = true; // a runtime that shows no prompt marker at startup is ready with this one
        break;
      case "other": {
        const eq = m.payload.indexOf("=");
        const name = eq === -1 ? m.payload : m.payload.slice(0, eq);
        const rest = eq === -1 ? "" : m.payload.slice(eq + 1);
        if (name === "start") {
          if (ours(rest)) this.onStartMarker();
        } else if (name === "envfile") {
          const colon = rest.indexOf(":");
          if (colon !== -1 && ours(rest.slice(0, colon))) this.envFile = rest.slice(colon + 1);
        }
        break;
      }
    }
  }

  private onStartMarker(): void {
    const a = this.active;
    if (a !== null) {
      if (a.phase === "echo") this.beginOutput(a);
      return;
    }
    if (this.shell === "ready" && !this.personBusy) {
      this.personBusy = true;
      this.personDirty = false;
      this.emitState();
    }
  }

  private onExitMarker(code: number): void {
    const a = this.active;
    if (a === null || a.phase === "preparing" || a.phase === "ended") return;
    this.endOutput(a);
    a.exitCode = code;
    a.phase = "ended";
  }

  private onPromptMarker(): void {
    this.atPrompt = true;
    this.personEntered = false;
    this.pasteOn = false; // the line editor switches it on again when it starts reading
    const a = this.active;
    if (a !== null) {
      if (a.phase === "ended") this.complete(a);
      return;
    }
    if (this.personBusy || this.personDirty) {
      this.personBusy = false;
      this.personDirty = false;
      this.emitState();
    }
  }

  private beginOutput(a: Active): void {
    a.phase = "output";
    a.pre = "";
  }

  /** Ends the output of `a`: an echo never marked as over is cut heuristically; the cleaner's open lines are final. */
  private endOutput(a: Active): void {
    if (a.phase === "echo") {
      const clean = stripEcho(cleanTerminalOutput(a.pre), a.command.replace(/\r\n?/g, "\n").replace(/\n+$/, ""));
      a.pre = "";
      a.phase = "output";
      this.collect(a, clean, true);
    } else if (a.phase === "output") {
      this.collect(a, a.cleaner.end(), true);
    }
  }

  /**
   * Final clean text goes to the collector. The stream (onOutput) runs ahead of it: the cleaner keeps the last lines
   * editable for cursor moves, so complete lines among them are streamed at once, provisionally. A line redrawn after
   * it was streamed is not sent again; the result's output is always the final text.
   */
  private collect(a: Active, clean: string, ended: boolean): void {
    if (clean !== "") {
      a.segment.collector.push(clean);
      const kept = a.segment.collector.retainedChars;
      if (kept > this.stats.peakRetainedChars) this.stats.peakRetainedChars = kept;
    }
    const before = a.finalChars;
    a.finalChars += clean.length;
    const onOutput = a.waiter?.onOutput;
    if (onOutput === undefined) {
      a.streamedChars = Math.max(a.streamedChars, a.finalChars);
      return;
    }
    let open = "";
    if (!ended) {
      const peek = a.cleaner.peek();
      open = peek.slice(0, peek.lastIndexOf("\n") + 1);
    }
    const tail = clean + open;
    const skip = Math.max(0, a.streamedChars - before);
    if (skip >= tail.length) return;
    const chunk = tail.slice(skip);
    a.streamedChars = before + tail.length;
    safely(() => onOutput(chunk));
  }

  // ------------------------------------------------------------------------------------------------ commands

  private newActive(command: string): Active {
    return {
      command,
      startedAt: now(),
      phase: "preparing",
      pre: "",
      pasted: false,
      exitCode: null,
      interrupted: false,
      timedOut: null,
      cleaner: new TerminalTextCleaner(),
      segment: this.newSegment(),
      finalChars: 0,
      streamedChars: 0,
      waiter: null,
      lastOutputAt: now(),
      graceTimer: null,
      endListeners: [],
    };
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

  private writeCommand(a: Active): void {
    const text = a.command.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
    a.phase = "echo";
    a.pre = "";
    a.lastOutputAt = now();
    this.atPrompt = false;
    if (this.pasteCapable && this.pasteOn) {
      // One paste: readline takes every byte literally (tabs too) and runs the lines as one unit.
      a.pasted = true;
      this.proc?.write(`\x1b[200~${text.replace(/\x1b\[20[01]~/g, "")}\x1b[201~\r`);
    } else {
      // Typed line by line. Several lines go in a brace group, so the shell reads them all before it runs any and
      // prints one exit marker (each line of its own would end the command at the first line's marker).
      a.pasted = false;
      const typed = text.includes("\n") ? `{\n${text}\n}` : text;
      this.proc?.write(`${typed.replace(/\n/g, "\r")}\r`);
    }
  }

  /** Attaches a waiting call to the running command. Unless `yieldable` is false it may return `running` early. */
  private attach(a: Active, options: RunOptions, t0: number, notices: string[], yieldable = true): Promise<ShellResult> {
    return new Promise<ShellResult>((resolve) => {
      const softSec = options.softTimeoutSec !== undefined && options.softTimeoutSec > 0 ? options.softTimeoutSec : this.softSec;
      const w: Waiter = {
        startedAt: t0,
        softMs: Math.min(softSec, SHELL.maxTimeoutSec) * 1000,
        quietMs: this.promptQuietMs,
        hardSec: clampTimeout(options.timeoutSec, this.hardSec),
        onOutput: options.onOutput,
        resolve,
        quietTimer: null,
        longSleep: false,
        hardTimer: null,
        notices,
      };
      a.waiter = w;
      a.lastOutputAt = now();
      if (!yieldable) return;
      const firstCheck = Math.min(w.softMs, w.quietMs);
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), firstCheck);
      w.hardTimer = setTimeout(() => this.onHardTimeout(a, w), w.hardSec * 1000);
    });
  }

  private onQuietTimer(a: Active, w: Waiter): void {
    w.quietTimer = null;
    if (a.waiter !== w) return;
    const quiet = now() - a.lastOutputAt;
    if (quiet >= w.softMs - 1) {
      this.yieldRunning(a, w, "soft");
      return;
    }
    if (quiet >= w.quietMs - 1 && looksLikePrompt(this.lastLine(a))) {
      this.yieldRunning(a, w, "prompt");
      return;
    }
    w.longSleep = quiet >= w.quietMs;
    // A soft timeout shorter than the prompt quiet must not be overslept.
    const next = w.longSleep ? w.softMs - quiet : Math.min(w.quietMs, w.softMs) - quiet;
    w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.max(1, next));
  }

  private lastLine(a: Active): string {
    const text = a.phase === "echo" ? cleanTerminalOutput(a.pre.slice(-2_000)) : a.cleaner.peek();
    return text.slice(text.lastIndexOf("\n") + 1);
  }

  /** Soft timeout or a prompt-like pause: return what came so far; the command keeps running. */
  private yieldRunning(a: Active, w: Waiter, why: "soft" | "prompt"): void {
    const lastLine = this.lastLine(a);
    this.endOutput(a); // the open lines are final for this call; the echo, if still unmarked, is cut now
    const hint =
      why === "prompt"
        ? `The command seems to wait for input (its last line is ${JSON.stringify(lastLine.slice(-80))}). ` +
          'Send the answer with is_input=true (Enter is added), "C-c" with is_input=true to stop it, or an empty ' +
          "command with is_input=true to keep waiting."
        : `The command is still running: no new output for ${secs(w.softMs)}. To wait for more output, send an empty ` +
          'command with is_input=true; to answer it, send text with is_input=true; to stop it, send "C-c" with ' +
          "is_input=true.";
    const segment = a.segment;
    a.segment = this.newSegment();
    this.detach(a, w);
    void this.render(segment, w, { status: "running", exitCode: null, hint }).then(w.resolve);
  }

  private onHardTimeout(a: Active, w: Waiter): void {
    w.hardTimer = null;
    if (a.waiter !== w || this.active !== a) return;
    a.timedOut = w.hardSec;
    a.interrupted = true;
    this.proc?.write("\x03");
    this.armGrace(a);
  }

  /** After a C-c of ours: when the prompt does not come back within the grace, kill the shell and start afresh. */
  private armGrace(a: Active): void {
    if (a.graceTimer !== null) return;
    a.graceTimer = setTimeout(() => {
      a.graceTimer = null;
      if (this.active === a) void this.forceRespawn(a);
    }, this.graceMs);
  }

  private async forceRespawn(a: Active): Promise<void> {
    this.endOutput(a);
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
        `${env !== null ? " with the exported variables restored" : ""}; non-exported shell variables and functions are gone`;
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
  private complete(a: Active): void {
    this.active = null;
    const code = a.exitCode;
    let notice: string | undefined;
    if (a.timedOut !== null) {
      notice = `The command timed out after ${a.timedOut}s and was stopped with C-c${code !== null ? ` (exit code ${code})` : ""}.`;
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
  private endActive(a: Active, end: { status: ShellStatus; exitCode: number | null; notice?: string }): void {
    if (a.graceTimer !== null) clearTimeout(a.graceTimer);
    a.graceTimer = null;
    a.phase = "ended";
    const w = a.waiter;
    const segment = a.segment;
    if (w !== null) {
      this.detach(a, w);
      const p = this.render(segment, w, end);
      void p.then((r) => {
        w.resolve(r);
        for (const l of a.endListeners) l(r);
      });
      return;
    }
    const t0 = a.startedAt;
    const pseudo: Waiter = {
      startedAt: t0,
      softMs: 0,
      quietMs: 0,
      hardSec: 0,
      onOutput: undefined,
      resolve: () => undefined,
      quietTimer: null,
      longSleep: false,
      hardTimer: null,
      notices: [],
    };
    const p = this.render(segment, pseudo, end);
    if (a.endListeners.length > 0) {
      void p.then((r) => {
        for (const l of a.endListeners) l(r);
      });
    } else if (!this.closed) {
      this.finished = p;
    }
  }

  private detach(a: Active, w: Waiter): void {
    if (w.quietTimer !== null) clearTimeout(w.quietTimer);
    if (w.hardTimer !== null) clearTimeout(w.hardTimer);
    w.quietTimer = null;
    w.hardTimer = null;
    if (a.waiter === w) a.waiter = null;
  }

  private async render(
    segment: Segment,
    w: Waiter,
    end: { status: ShellStatus; exitCode: number | null; notice?: string; hint?: string },
  ): Promise<ShellResult> {
    const path = segment.spill ? await segment.spill.flush() : undefined;
    const notices = [...w.notices];
    if (end.notice) notices.push(end.notice);
    const result: ShellResult = {
      output: segment.collector.render(path),
      exitCode: end.exitCode,
      cwd: this.currentCwd,
      durationMs: Math.round(now() - w.startedAt),
      status: end.status,
      truncated: segment.collector.truncated,
    };
    if (path !== undefined) result.fullOutputPath = path;
    if (notices.length > 0) result.notice = notices.join(" ");
    if (end.hint) result.hint = end.hint;
    return result;
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

  private refusal(t0: number, error: string, status: ShellStatus = "completed"): ShellResult {
    return {
      output: "",
      exitCode: null,
      cwd: this.currentCwd,
      durationMs: Math.round(now() - t0),
      status,
      truncated: false,
      error,
    };
  }

  private busyRefusal(t0: number, a: Active): ShellResult {
    const ago = Math.round((now() - a.startedAt) / 1000);
    return this.refusal(
      t0,
      `A command is still running (started ${ago}s ago: ${JSON.stringify(head(a.command))}), so this command was NOT run. ` +
        "To wait for more output, send an empty command with is_input=true; to answer the running program, send " +
        'text with is_input=true; to stop it, send "C-c" with is_input=true.',
      "running",
    );
  }

  private flushPersonQueue(): void {
    if (this.personQueue.length === 0 || this.proc === null) return;
    const data = this.personQueue.join("");
    this.personQueue = [];
    this.personQueued = 0;
    this.personDirty = true;
    if (/[\r\n]/.test(data)) this.personEntered = true;
    this.proc.write(data);
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
    if (this.personBusy) return { state: "running", by: "person", cwd: this.currentCwd };
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
