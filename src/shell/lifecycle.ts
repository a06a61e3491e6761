// The running command's lifecycle after it was typed: the call waiting on it (returning `running` at a quiet spell or a
// prompt-like last line), the hard timeout (C-c, then a kill and a fresh shell when C-c is ignored), the end, and
// handing a result to whoever waits for it (the attached call, interrupt() callers, or the next call).

import { type CommandEnd, RunningCommand, type Segment, type Waiter } from "./command.ts";
import type { SessionCore } from "./core.ts";
import * as words from "./notices.ts";
import { OutputCollector } from "./output-collector.ts";
import type { ShellProcess } from "./process.ts";
import { looksLikePrompt } from "./prompt.ts";
import type { SpillFiles } from "./spill.ts";
import type { RunOptions, ShellResult, ShellStatus } from "./types.ts";
import { now } from "./util.ts";

export class Lifecycle {
  constructor(
    private readonly core: SessionCore,
    private readonly shell: ShellProcess,
    private readonly spills: SpillFiles,
    /** Whether keys sent to the command now would reach the shell's prompt (its end is in): then none are sent. */
    private readonly ending: (a: RunningCommand) => boolean,
  ) {}

  /** Keys for the running program; none once its end is in (they would be typed at the prompt as a command). */
  send(a: RunningCommand, bytes: string): void {
    if (bytes !== "" && !this.ending(a)) this.shell.write(bytes);
  }

  newCommand(command: string): RunningCommand {
    const stats = this.core.stats;
    return new RunningCommand(command, {
      newSegment: () => this.newSegment(),
      retained: (chars) => {
        if (chars > stats.peakRetainedChars) stats.peakRetainedChars = chars;
      },
      cwd: () => this.core.cwd,
      notices: this.core.jobNotices,
    });
  }

  private newSegment(): Segment {
    const segment: Segment = { collector: undefined as unknown as OutputCollector, spill: null };
    segment.collector = new OutputCollector({
      maxChars: this.core.config.maxOutputChars,
      onSpill: (text) => {
        segment.spill ??= this.spills.open("out");
        segment.spill.write(text);
      },
    });
    return segment;
  }

  /** Attaches a waiting call to the running command. Unless `yieldable` is false it may return `running` early. */
  attach(a: RunningCommand, options: RunOptions, t0: number, notices: string[], yieldable = true): Promise<ShellResult> {
    const { softSec, hardSec, promptQuietMs } = this.core.config;
    return new Promise<ShellResult>((resolve) => {
      const w = a.newWaiter(options, t0, notices, { softSec, hardSec, quietMs: promptQuietMs });
      w.resolve = resolve;
      a.waiter = w;
      a.lastOutputAt = now();
      if (!yieldable) return;
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.min(w.softMs, w.quietMs));
      w.hardTimer = setTimeout(() => this.onHardTimeout(a, w), w.hardSec * 1000);
    });
  }

  /** Text of the running command from the stream. */
  output(a: RunningCommand, text: string): void {
    const w = a.waiter;
    if (w !== null && w.longSleep) {
      // Output after a quiet spell: check for a prompt-like last line once it has been quiet for quietMs again.
      w.longSleep = false;
      if (w.quietTimer !== null) clearTimeout(w.quietTimer);
      w.quietTimer = setTimeout(() => this.onQuietTimer(a, w), Math.min(w.quietMs, w.softMs));
    }
    a.push(text);
  }

  private onQuietTimer(a: RunningCommand, w: Waiter): void {
    w.quietTimer = null;
    if (a.waiter !== w) return;
    // After a C-c of ours (timeout, interrupt) the grace decides: the prompt comes back, or the shell is replaced.
    if (a.graceTimer !== null) return;
    const quiet = now() - a.lastOutputAt;
    if (quiet >= w.softMs - 1) {
      this.yieldRunning(a, w, "quiet");
      return;
    }
    // A paste the line editor has not accepted yet shows the shell's own prompt, not one of the command's.
    const unaccepted = a.pasted && a.phase === "echo";
    if (quiet >= w.quietMs - 1 && !unaccepted && looksLikePrompt(a.lastLine())) {
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
    a.endOutput(false); // the open lines are final for this call; the echo, if still unmarked, is cut now
    const waiting = { reason, lastLine, quietMs: reason === "prompt" ? w.quietMs : w.softMs };
    const segment = a.takeSegment();
    a.detach(w);
    void a.render(segment, w, { status: "running", exitCode: null, waiting }).then(w.resolve);
  }

  private onHardTimeout(a: RunningCommand, w: Waiter): void {
    w.hardTimer = null;
    if (a.waiter !== w || this.core.active !== a) return;
    a.timedOut = w.hardSec;
    a.interrupted = true;
    this.send(a, "\x03");
    this.armGrace(a);
  }

  /** After a C-c of ours: when the prompt does not come back within the grace, kill the shell and start afresh. */
  armGrace(a: RunningCommand): void {
    if (a.graceTimer !== null) return;
    a.graceTimer = setTimeout(() => {
      a.graceTimer = null;
      if (this.core.active === a) void this.forceRespawn(a);
    }, this.core.config.graceMs);
  }

  private async forceRespawn(a: RunningCommand): Promise<void> {
    a.releaseCandidates();
    a.endOutput();
    this.core.active = null;
    let outcome: Parameters<typeof words.killedAndRespawned>[2];
    try {
      const { restored } = await this.shell.respawn();
      outcome = { restored, cwd: this.core.cwd, kind: this.core.runtime.kind };
    } catch (err) {
      outcome = { error: (err as Error).message };
    }
    this.endActive(a, {
      status: a.timedOut !== null ? "timeout" : "interrupted",
      exitCode: null,
      notice: words.killedAndRespawned(a.timedOut, this.core.config.graceMs, outcome),
    });
    this.flushPersonQueue();
    this.core.emitState();
  }

  /**
   * Where the runtime tells the shell's state (node), a command the shell never started: no start marker and no end
   * came for it. (Elsewhere nothing marks a start for sure.)
   */
  private neverStarted(a: RunningCommand, ended = false): boolean {
    return a.tokenBefore !== undefined && !a.started && (ended || a.candidates.length === 0) && a.startSeq === null;
  }

  /**
   * The typed command never reached the shell (stream.ts): not run, never "completed". Whatever took it is a process
   * that can read the shell's terminal: the shell is replaced (with its whole session, and a fresh terminal, so a
   * reader outside the session that kept the old one open reads nothing more); what was typed dies with the old one.
   */
  async lost(a: RunningCommand, how: { kind: "held"; holder: { pgrp: number; name: string } } | { kind: "read" }): Promise<void> {
    if (this.core.active !== a) return;
    this.core.active = null;
    a.releaseCandidates();
    a.endOutput();
    let outcome: Parameters<typeof words.terminalTaken>[1];
    try {
      const { restored } = await this.shell.respawn();
      outcome = { restored, cwd: this.core.cwd, kind: this.core.runtime.kind };
    } catch (err) {
      outcome = { error: (err as Error).message };
    }
    const why =
      how.kind === "held"
        ? `another process (${how.holder.name}) had taken the shell's terminal, so what was typed went to it`
        : "another process read what was typed, or kept the line from being entered: the shell waited at its prompt and never ran it";
    const notice = words.terminalTaken(how.kind === "held" ? how.holder.name : null, outcome);
    this.endActive(a, { status: "completed", exitCode: null, error: words.lost(why), refused: "lost", notice });
    this.flushPersonQueue();
    this.core.emitState();
  }

  /** Exit marker and prompt seen: the command is over. */
  complete(a: RunningCommand, facts: { discarded: number }): void {
    this.core.active = null;
    if (a.interrupted && this.neverStarted(a, true)) {
      // Our C-c cleared a line the shell had not run (bash marks every line it runs with a start; one that fails to
      // parse ends at once, uninterrupted): part of what was typed went elsewhere, or the line was left unfinished.
      this.endActive(a, {
        status: a.timedOut !== null ? "timeout" : "interrupted",
        exitCode: null,
        error: words.lost("the shell never started it: it was still an unfinished line when C-c cleared it (part of what was typed may have been read by another process)"),
        refused: "lost",
      });
      this.flushPersonQueue();
      this.core.emitState();
      return;
    }
    const code = a.exitCode;
    const notices: string[] = [];
    if (a.timedOut !== null) notices.push(words.timedOut(a.timedOut, code));
    if (facts.discarded > 0) notices.push(words.discarded(facts.discarded));
    this.endActive(a, {
      status: a.timedOut !== null ? "timeout" : a.interrupted ? "interrupted" : "completed",
      exitCode: code,
      notice: notices.length > 0 ? notices.join(" ") : undefined,
    });
    this.flushPersonQueue();
    this.core.emitState();
  }

  /** The shell ended by itself: a running command ends with it. */
  shellExited(code: number): void {
    this.core.person.busy = false;
    const a = this.core.active;
    if (a === null || a.phase === "preparing") return; // (a command still being prepared is refused by run() itself)
    this.core.active = null;
    if (this.neverStarted(a)) {
      // The shell read end-of-file instead of the command (another process group had taken its terminal): not run.
      a.releaseCandidates();
      a.endOutput();
      this.endActive(a, {
        status: "completed",
        exitCode: null,
        error: words.lost(`the shell exited (exit code ${code}) before it read it`),
        refused: "lost",
        notice: words.shellExited(code, this.core.cwd),
      });
      return;
    }
    a.releaseCandidates();
    a.endOutput();
    this.endActive(a, {
      status: a.timedOut !== null ? "timeout" : a.interrupted ? "interrupted" : "completed",
      exitCode: a.exitCode ?? code,
      notice: words.shellExited(code, this.core.cwd),
    });
  }

  /** Hands the end of `a` to whoever waits: the attached call, interrupt() callers, or the next call. */
  endActive(a: RunningCommand, end: CommandEnd): void {
    this.core.runtime.afterCommand?.();
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
    } else if (!this.core.closed) {
      this.core.finished = p;
    }
  }

  /** The result of a command that ended while no call waited, for this call. */
  async takeFinished(t0: number, notice: string | undefined): Promise<ShellResult> {
    const r = await this.popFinished();
    const notices = [r.notice, notice].filter((s): s is string => !!s);
    const out: ShellResult = { ...r, durationMs: Math.round(now() - t0), cwd: this.core.cwd };
    if (notices.length > 0) out.notice = notices.join(" ");
    return out;
  }

  /** The same, told as a notice of the next command. */
  async describeFinished(): Promise<string> {
    return words.endedUnobserved(await this.popFinished());
  }

  private popFinished(): Promise<ShellResult> {
    const p = this.core.finished!;
    this.core.finished = null;
    return p;
  }

  refusal(t0: number, error: string, refused: ShellResult["refused"], status: ShellStatus = "completed"): ShellResult {
    return {
      output: "",
      exitCode: null,
      cwd: this.core.cwd,
      durationMs: Math.round(now() - t0),
      status,
      truncated: false,
      error,
      refused,
    };
  }

  /** A new command while one runs: not run; the output that arrived since the last read comes with the refusal. */
  async busyRefusal(t0: number, a: RunningCommand): Promise<ShellResult> {
    const error = words.busy(a.command, a.startedAt, now());
    if (a.waiter !== null || a.phase !== "output") return this.refusal(t0, error, "busy", "running");
    a.endOutput(false);
    a.phase = "output";
    const r = await a.render(a.takeSegment(), { startedAt: t0, notices: [] }, { status: "running", exitCode: null });
    return { ...r, error, refused: "busy" };
  }

  /** Keys the person typed while the agent's command ran are due now. */
  flushPersonQueue(): void {
    if (this.shell.proc === null) return;
    const data = this.core.person.release();
    if (data !== null) this.shell.write(data);
  }
}
