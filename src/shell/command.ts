// One running command: its phase in the stream (echo → output → ended), its output (cleaned, collected, streamed,
// spilled) and the call that waits on it, with that call's timers. The session drives it; it writes nothing to the shell.

import { SHELL } from "../limits.ts";
import type { SpillTarget } from "./jobs.ts";
import { type JobNotices, newNoticeState } from "./job-notices.ts";
import { OutputCollector } from "./output-collector.ts";
import { stripEcho } from "./prompt.ts";
import { cleanTerminalOutput, TerminalTextCleaner } from "./terminal-text.ts";
import type { RunOptions, ShellResult, ShellStatus } from "./types.ts";
import { clampTimeout, now, safely } from "./util.ts";

export type Phase = "preparing" | "echo" | "output" | "ended";

export interface Waiter {
  startedAt: number;
  softMs: number;
  quietMs: number;
  hardSec: number;
  /** The agent asked for this timeout: wait for the end or the timeout, no quiet return. */
  explicitTimeout: boolean;
  onOutput: ((chunk: string) => void) | undefined;
  resolve: (result: ShellResult) => void;
  quietTimer: ReturnType<typeof setTimeout> | null;
  /** The quiet timer sleeps until the soft timeout: new output must bring the next prompt check forward. */
  longSleep: boolean;
  hardTimer: ReturnType<typeof setTimeout> | null;
  /** Notices collected for this call (fresh shell, …). */
  notices: string[];
}

export interface Segment {
  collector: OutputCollector;
  spill: SpillTarget | null;
}

export interface CommandEnd {
  status: ShellStatus;
  exitCode: number | null;
  notice?: string;
  waiting?: ShellResult["waiting"];
  /** The command never ran (its input went elsewhere): the result is a refusal with this error. */
  error?: string;
  refused?: ShellResult["refused"];
}

const MAX_PRE_CHARS = 1 << 20;

/** An end marker with the command's own number, not yet verified (see stream.ts): its facts, and what came after it. */
export interface EndCandidate {
  seq: number | null;
  /** The end's token, where the runtime gives each end one (node): the shell publishes it only after the real end. */
  token: string | undefined;
  code: number;
  /** Typed-ahead characters the shell reported dropped before this end. */
  discarded: number;
  /** The directory its `cwd` marker named. */
  claimedCwd: string | undefined;
  /** Its prompt marker came: the shell should be waiting at its prompt now. */
  prompted: boolean;
  /** Text after the marker (up to the next one): the prompt's when the end is real (dropped then), the command's when not. */
  held: string;
}

/** Unverified ends kept at once; past this the oldest is taken for what it must be (printed by the command). */
const MAX_CANDIDATES = 1_024;

export interface CommandDeps {
  newSegment(): Segment;
  /** Reports how many characters a collector holds (for the session's stats). */
  retained(chars: number): void;
  cwd(): string;
  /** bash's job notices: those of jobs other commands started are dropped from this one's output. */
  notices: JobNotices;
}

export class RunningCommand {
  startedAt = now();
  phase: Phase = "preparing";
  /** Raw text of the echo phase (bounded), for runtimes that mark neither its end nor the start. */
  pre = "";
  /** The command went in as a bracketed paste: `ESC[?2004l` ends the echo. */
  pasted = false;
  exitCode: number | null = null;
  /** The shell's last command number when this one was typed: an end marker must be newer (tags `NONCE.SEQ`). */
  afterSeq = -1;
  /** The number its start marker gave it, where the runtime sends one. */
  startSeq: number | null = null;
  /** Its start marker came: the shell read the command line and runs it. */
  started = false;
  /** The shell's token (ShellProbe.token) when the command was typed: its own end carries a newer one. */
  tokenBefore: string | undefined = undefined;
  /** The shell has printed anything since the command was typed. */
  heardSinceTyped = false;
  /** We sent C-c (interrupt, input C-c, hard timeout). */
  interrupted = false;
  timedOut: number | null = null;
  cleaner = new TerminalTextCleaner();
  segment: Segment;
  waiter: Waiter | null = null;
  lastOutputAt = now();
  graceTimer: ReturnType<typeof setTimeout> | null = null;
  /** interrupt() calls waiting for the end. */
  endListeners: Array<(result: ShellResult) => void> = [];
  /**
   * End markers with the command's number, not yet verified, in the order they came: text after the first is held back
   * until the shell is seen at its prompt with the token of one of them (stream.ts).
   */
  candidates: EndCandidate[] = [];
  /** Characters of final clean output so far, and of output streamed to onOutput (final, then provisional lines). */
  finalChars = 0;
  streamedChars = 0;
  private readonly noticeState = newNoticeState();

  constructor(
    /** What is typed into the shell. */
    public command: string,
    private readonly deps: CommandDeps,
  ) {
    this.segment = deps.newSegment();
  }

  /** Output of the command (or of its echo, before that is known to be over). */
  push(text: string): void {
    const c = this.candidates.at(-1);
    if (c !== undefined) {
      c.held = c.held.length + text.length > MAX_PRE_CHARS ? (c.held + text).slice(-MAX_PRE_CHARS) : c.held + text;
      return;
    }
    this.take(text);
  }

  private take(text: string): void {
    this.lastOutputAt = now();
    if (this.phase === "echo") {
      this.pre = this.pre.length + text.length > MAX_PRE_CHARS ? (this.pre + text).slice(-MAX_PRE_CHARS) : this.pre + text;
    } else if (this.phase === "output") {
      this.collect(this.cleaner.push(text), false);
    }
  }

  /** A new unverified end; past MAX_CANDIDATES the oldest is released (it cannot be the real one's first copy). */
  addCandidate(c: EndCandidate): void {
    if (this.candidates.length >= MAX_CANDIDATES) this.releaseCandidates(1);
    this.candidates.push(c);
  }

  /**
   * The first `count` candidates (all by default) do not end the command after all: what came after them is the
   * command's, in order.
   */
  releaseCandidates(count = this.candidates.length): void {
    const gone = this.candidates.splice(0, count);
    if (gone.length === 0) return;
    // Text after the last released one comes before the first kept candidate: it is output too.
    for (const c of gone) if (c.held !== "") this.take(c.held);
  }

  /** The candidate at `index` is the end: those before it were printed by the command; what follows it is the prompt's. */
  takeCandidate(index: number): EndCandidate {
    this.releaseCandidates(index);
    const c = this.candidates[0]!;
    this.candidates = [];
    return c;
  }

  beginOutput(): void {
    this.phase = "output";
    this.pre = "";
  }

  /**
   * Ends the output: an echo never marked as over is cut heuristically; the cleaner's open lines are final. A
   * full-screen program's screen is shown as it stands; with `always` false (a reply while it runs) only when it
   * changed since the last reply.
   */
  endOutput(always = true): void {
    if (this.phase === "echo") {
      const clean = stripEcho(cleanTerminalOutput(this.pre), this.command);
      this.pre = "";
      this.phase = "output";
      this.collect(clean, true);
    } else if (this.phase === "output") {
      this.collect(this.cleaner.end(always), true);
    }
  }

  lastLine(): string {
    const text = this.phase === "echo" ? cleanTerminalOutput(this.pre.slice(-2_000)) : this.cleaner.peek();
    return text.slice(text.lastIndexOf("\n") + 1);
  }

  /** The last screenful of output so far (for a timed-out reply). */
  takeSegment(): Segment {
    const s = this.segment;
    this.segment = this.deps.newSegment();
    return s;
  }

  /**
   * Final clean text goes to the collector. The stream (onOutput) runs ahead of it: the cleaner keeps the last lines
   * editable for cursor moves, so complete lines among them are streamed at once, provisionally. A line redrawn after
   * it was streamed is not sent again; the result's output is always the final text.
   */
  private collect(clean: string, ended: boolean): void {
    clean = this.deps.notices.filter(this.noticeState, this, clean, ended);
    if (clean !== "") {
      this.segment.collector.push(clean);
      this.deps.retained(this.segment.collector.retainedChars);
    }
    const before = this.finalChars;
    this.finalChars += clean.length;
    const onOutput = this.waiter?.onOutput;
    if (onOutput === undefined) {
      this.streamedChars = Math.max(this.streamedChars, this.finalChars);
      return;
    }
    let open = "";
    if (!ended && this.noticeState.carry === "" && !this.cleaner.onScreen) {
      const peek = this.cleaner.peek();
      open = peek.slice(0, peek.lastIndexOf("\n") + 1);
      if (open.includes("[")) open = open.split("\n").filter((line) => !this.deps.notices.drops(this, line)).join("\n");
    }
    const tail = clean + open;
    const skip = Math.max(0, this.streamedChars - before);
    if (skip >= tail.length) return;
    const chunk = tail.slice(skip);
    this.streamedChars = before + tail.length;
    safely(() => onOutput(chunk));
  }

  // ---------------------------------------------------------------------------------------------- the waiting call

  /** A waiter for a call; its timers are armed by the session (they act on the shell). */
  newWaiter(options: RunOptions, t0: number, notices: string[], defaults: { softSec: number; hardSec: number; quietMs: number }): Waiter {
    const softSec = options.softTimeoutSec !== undefined && options.softTimeoutSec > 0 ? options.softTimeoutSec : defaults.softSec;
    const explicit = typeof options.timeoutSec === "number" && Number.isFinite(options.timeoutSec) && options.timeoutSec > 0;
    const hardSec = clampTimeout(options.timeoutSec, defaults.hardSec);
    // A timeout the agent asked for replaces the quiet return: wait for the end (or a prompt-like pause) until then.
    const softMs = explicit && options.softTimeoutSec === undefined ? hardSec * 1000 + 1_000 : Math.min(softSec, SHELL.maxTimeoutSec) * 1000;
    return {
      startedAt: t0,
      softMs,
      quietMs: defaults.quietMs,
      hardSec,
      explicitTimeout: explicit && options.softTimeoutSec === undefined,
      onOutput: options.onOutput,
      resolve: () => undefined,
      quietTimer: null,
      longSleep: false,
      hardTimer: null,
      notices,
    };
  }

  detach(w: Waiter): void {
    if (w.quietTimer !== null) clearTimeout(w.quietTimer);
    if (w.hardTimer !== null) clearTimeout(w.hardTimer);
    w.quietTimer = null;
    w.hardTimer = null;
    if (this.waiter === w) this.waiter = null;
  }

  /** The result for `w` from `segment`: output (with its spill file), facts and notices. */
  async render(segment: Segment, w: Pick<Waiter, "startedAt" | "notices">, end: CommandEnd): Promise<ShellResult> {
    const path = segment.spill ? await segment.spill.flush() : undefined;
    const notices = [...w.notices];
    if (end.notice) notices.push(end.notice);
    const result: ShellResult = {
      output: segment.collector.render(path),
      exitCode: end.exitCode,
      cwd: this.deps.cwd(),
      durationMs: Math.round(now() - w.startedAt),
      status: end.status,
      truncated: segment.collector.truncated,
    };
    if (path !== undefined) result.fullOutputPath = path;
    if (notices.length > 0) result.notice = notices.join(" ");
    if (end.waiting) result.waiting = end.waiting;
    if (end.error !== undefined) {
      result.error = end.error;
      if (end.refused !== undefined) result.refused = end.refused;
    }
    return result;
  }
}
