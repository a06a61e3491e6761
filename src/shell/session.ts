// The session engine: one persistent shell for an agent, on any runtime. This file is the public interface and the
// orchestration; the parts live beside it: process.ts (the shell process: start, replace, kill, waiting on it),
// stream.ts (its output: markers bound to the running command), lifecycle.ts (the waiting call, timeouts, the end),
// command.ts (one running command and its output), person.ts (the person's keys), env.ts (state carried over a
// respawn), spill.ts (spill files), prompt.ts (prompt-like lines), wire.ts (the exact bytes a command becomes) and
// notices.ts (the facts a result states). Everything is event-driven; timers exist only for the soft and hard
// timeouts, the quiet before a prompt-like last line, and the grace after a C-c.

import { SHELL } from "../limits.ts";
import type { Runtime, ShellProbe, Unsubscribe } from "../runtime/types.ts";
import type { RunningCommand } from "./command.ts";
import { resolveConfig, SessionCore } from "./core.ts";
import { JobError, JobManager, type JobInfo, type JobOutput } from "./jobs.ts";
import { isShellName, shellName } from "../lib/shells.ts";
import { keyToBytes } from "./keys.ts";
import { Lifecycle } from "./lifecycle.ts";
import * as words from "./notices.ts";
import { ShellProcess } from "./process.ts";
import { SpillFiles } from "./spill.ts";
import { Stream } from "./stream.ts";
import type { InputOptions, RunOptions, SessionStats, ShellResult, ShellSession, ShellSessionOptions, ShellState } from "./types.ts";
import { now, safely, shellQuote } from "./util.ts";
import { commandText } from "./wire.ts";

export type * from "./types.ts";
export { looksLikePrompt, stripEcho } from "./prompt.ts";
export { parseExportP } from "./env.ts";

class Session implements ShellSession {
  private readonly core: SessionCore;
  private readonly shell: ShellProcess;
  private readonly stream: Stream;
  private readonly life: Lifecycle;
  private readonly spills: SpillFiles;
  private readonly jobs: JobManager;
  private readonly rawListeners = new Set<(chunk: string) => void>();
  private readonly stateListeners = new Set<(state: ShellState) => void>();
  private lastStateKey = "";

  constructor(
    readonly runtime: Runtime,
    options: ShellSessionOptions,
  ) {
    const core = new SessionCore(runtime, resolveConfig(options), () => this.emitState());
    this.core = core;
    const onBacklog = (chars: number): void => {
      if (chars > core.stats.peakSpillBacklogChars) core.stats.peakSpillBacklogChars = chars;
    };
    this.spills = new SpillFiles(runtime.fs, options.spillDir ?? runtime.spillDir ?? SHELL.spillDir, onBacklog, runtime.commandDir);
    this.jobs = new JobManager(runtime, {
      maxJobs: options.maxJobs ?? SHELL.maxJobs,
      maxOutputChars: core.config.maxOutputChars,
      openSpill: (prefix) => this.spills.open(prefix),
    });
    this.shell = new ShellProcess(core, {
      data: (chunk) => {
        for (const listener of this.rawListeners) safely(() => listener(chunk));
        this.stream.push(chunk);
      },
      starting: () => {
        this.stream.reset();
        core.person.reset();
      },
      flush: () => this.stream.flush(),
      exited: (code) => this.life.shellExited(code),
    });
    this.life = new Lifecycle(core, this.shell, this.spills, (a) => this.stream.ending(a));
    this.stream = new Stream(core, this.shell, {
      output: (a, text) => this.life.output(a, text),
      complete: (a, facts) => this.life.complete(a, facts),
      lost: (a, how) => void this.life.lost(a, how),
    });
  }

  get cwd(): string {
    return this.core.cwd;
  }

  get stats(): SessionStats {
    return this.core.stats;
  }

  get busy(): boolean {
    return this.core.active !== null || this.core.person.busy;
  }

  foreground(): string | undefined {
    return this.shell.proc?.foreground?.();
  }

  readerShell(): string | undefined {
    const proc = this.shell.proc;
    const seen = proc?.readerShell?.() ?? null;
    if (seen !== null) return seen === "" ? undefined : seen;
    // Where the runtime cannot look beyond the foreground program, its name is all there is to go by.
    const program = proc?.foreground?.();
    return program !== undefined && isShellName(program) ? shellName(program) : undefined;
  }

  async start(): Promise<void> {
    await this.shell.ensure();
  }

  async run(command: string, options: RunOptions = {}): Promise<ShellResult> {
    const t0 = now();
    const { core, life, shell } = this;
    if (core.closed) return life.refusal(t0, words.REFUSED.closed, "closed");
    if (core.active !== null) {
      if (command.trim() === "") return this.input("", options);
      return life.busyRefusal(t0, core.active);
    }
    if (command.trim() === "") {
      if (core.finished !== null) return life.takeFinished(t0, undefined);
      return life.refusal(t0, words.REFUSED.noCommand, "idle");
    }
    // The exact text the shell receives; the bash tool checked this same text (wire.ts). Nothing changes it below.
    const wire = commandText(command);
    if (!wire.ok) return life.refusal(t0, wire.error, "control");
    command = wire.text;
    const notices: string[] = [];
    const a = life.newCommand(command);
    core.active = a; // claim the shell at once: a parallel call is refused from here on
    if (core.finished !== null) notices.push(await life.describeFinished());
    if (command.length > core.config.largeCommandChars) {
      try {
        const path = await this.spills.saveCommand(command);
        a.command = `. ${shellQuote(path)}`;
        notices.push(words.savedCommand(command.length, path));
      } catch {
        // typed as it is then: slower, but the same
      }
    }
    try {
      const replaced = await shell.ensure();
      if (replaced !== null) notices.push(words.replacedShell(replaced, core.cwd, this.runtime.kind));
    } catch (err) {
      core.active = null;
      return life.refusal(t0, words.shellNotStarted((err as Error).message), "shell");
    }
    if (!(await this.clearPersonLine())) {
      core.active = null;
      return life.refusal(t0, words.REFUSED.person, "person");
    }
    let probe = await this.awaitPrompt(a);
    if (probe?.state === "held" && core.active === a && shell.ready) {
      // A process of the shell's session took the terminal while the shell waits at its prompt: what is typed now
      // would go to it. Replace the shell (and its session) before typing.
      const holder = probe.holder?.name ?? "?";
      let outcome: Parameters<typeof words.terminalTaken>[1];
      try {
        const { restored } = await shell.respawn();
        outcome = { restored, cwd: core.cwd, kind: this.runtime.kind };
      } catch (err) {
        outcome = { error: (err as Error).message };
      }
      notices.push(words.terminalTaken(`${holder}, while the shell waited at its prompt`, outcome));
      probe = await this.awaitPrompt(a);
    }
    if (core.active !== a) return life.refusal(t0, words.REFUSED.restarted, "closed");
    if (!shell.ready) {
      core.active = null;
      return life.refusal(t0, words.REFUSED.shellEnded, "shell");
    }
    if (probe?.state === "held") {
      core.active = null;
      return life.refusal(t0, words.lost(`another process (${probe.holder?.name ?? "?"}) holds the shell's terminal`), "lost");
    }
    core.stats.commands++;
    a.startedAt = now();
    const result = life.attach(a, options, t0, notices);
    // Typed at once after the look: nothing in between can hand the terminal to someone else unseen but the kernel.
    this.type(a, probe?.token);
    this.emitState();
    return result;
  }

  /**
   * Waits for the prompt (not there after SHELL.promptWaitMs: type anyway, as a person would), then, with a line editor
   * that uses bracketed paste, for the switch that says it reads in raw mode (typed before, the tty is cooked); then,
   * where the runtime can tell (node), until the shell owns its terminal and waits in its line editor. Returns that
   * last look (null where the runtime cannot tell).
   */
  private async awaitPrompt(a: RunningCommand): Promise<ShellProbe | null> {
    const shell = this.shell;
    await shell.waitFor(() => shell.atPrompt || !shell.ready, SHELL.promptWaitMs);
    if (shell.ready && shell.atPrompt && !shell.pasteOn) {
      // Without paste a tab would be completion: give a line editor that just took paste up again a moment.
      const wait = shell.pasteCapable ? SHELL.pasteReturnMs : a.command.includes("\t") ? SHELL.pasteTabWaitMs : 0;
      const on = wait > 0 && (await shell.waitFor(() => shell.pasteOn || !shell.ready, wait));
      if (!on && shell.ready) shell.pasteCapable = false; // it stopped (bind …, set +o emacs): type plainly
    }
    return shell.ready ? shell.untilTypeable() : null;
  }

  /**
   * What the person typed is settled before the agent's command: a line they entered has brought its prompt (or their
   * command runs: then false, the agent's is not run); a line they typed but did not enter is cleared.
   */
  private async clearPersonLine(): Promise<boolean> {
    const { person } = this.core;
    const shell = this.shell;
    if (person.busy) return false;
    if (person.entered) {
      // The line runs (their command starts: refused), brings a fresh prompt, or opens a continuation (PS2, below).
      // Nothing is sent before that is known: a C-c now would stop their command, or cut readline short.
      await shell.waitFor(() => !person.entered || person.busy || !shell.ready, 5 * SHELL.personSettleMs);
      if (person.busy) return false;
    }
    if (person.dirty && !person.entered && this.runtime.kind === "node") {
      // Only typed, never entered: readline's C-e C-u clears the line with no signal, so no new prompt and no
      // flushed input (a C-c makes the tty discard what is queued, and readline set itself up again).
      shell.write("\x05\x15");
      person.dirty = false;
    }
    if (person.dirty) {
      // A half-typed line (or an open continuation): C-c discards it and brings a fresh prompt. Its exit marker comes
      // after that prompt: wait until the shell has settled, or it would be taken for the end of the agent's command.
      shell.atPrompt = false;
      shell.write("\x03");
      person.dirty = false;
      await shell.waitFor(() => shell.atPrompt || !shell.ready, SHELL.promptWaitMs);
      await shell.quiet(SHELL.personSettleMs, 5 * SHELL.personSettleMs);
      if (person.busy) return false;
    }
    return true;
  }

  /** Types the command: one bracketed paste where the line editor has it, else line by line in a brace group. */
  private type(a: RunningCommand, token: string | undefined): void {
    const text = a.command; // commandText(): no control characters but newline and tab, no trailing newline
    this.stream.typed(a, token);
    a.phase = "echo";
    a.pre = "";
    a.lastOutputAt = now();
    this.shell.atPrompt = false;
    if (this.shell.pasteCapable && this.shell.pasteOn) {
      // One paste: readline takes every byte literally (tabs too) and runs the lines as one unit.
      a.pasted = true;
      this.shell.write(`\x1b[200~${text}\x1b[201~\r`);
    } else {
      // Several lines go in a brace group, so the shell reads them all before it runs any and prints one exit marker
      // (each line of its own would end the command at the first line's marker).
      a.pasted = false;
      const typed = text.includes("\n") ? `{\n${text}\n}` : text;
      this.shell.write(`${typed.replace(/\n/g, "\r")}\r`);
    }
  }

  async input(textOrKey: string, options: InputOptions = {}): Promise<ShellResult> {
    const t0 = now();
    const { core, life } = this;
    if (core.closed) return life.refusal(t0, words.REFUSED.closed, "closed");
    const a = core.active;
    if (a === null) {
      if (core.finished !== null) return life.takeFinished(t0, textOrKey === "" ? undefined : words.NOTICE.inputTooLate);
      return life.refusal(t0, words.REFUSED.noInputTarget, "idle");
    }
    if (a.waiter !== null || a.phase === "preparing") return life.refusal(t0, words.REFUSED.inputTaken, "busy", "running");
    const key = keyToBytes(textOrKey);
    const enter = options.enter !== false;
    const bytes = key ?? (textOrKey === "" ? "" : !enter || /\n$/.test(textOrKey) ? textOrKey : `${textOrKey}\r`);
    if (bytes.includes("\x03")) a.interrupted = true;
    const result = life.attach(a, options, t0, []);
    life.send(a, bytes);
    return result;
  }

  async interrupt(): Promise<ShellResult> {
    const t0 = now();
    const { core, life } = this;
    const a = core.active;
    if (core.closed || a === null || a.phase === "preparing") {
      if (a === null && core.finished !== null) return life.takeFinished(t0, words.NOTICE.alreadyFinished);
      return life.refusal(t0, words.REFUSED.nothingToInterrupt, "idle");
    }
    a.interrupted = true;
    const ended = new Promise<ShellResult>((resolve) => a.endListeners.push(resolve));
    // Without a call waiting, this one waits for the end (no early `running`: the grace decides).
    const own = a.waiter === null ? life.attach(a, {}, t0, [], false) : null;
    life.send(a, "\x03");
    life.armGrace(a);
    return own ?? ended;
  }

  async restart(): Promise<{ cwd: string; notice: string }> {
    const core = this.core;
    if (core.closed) throw new Error("The shell session is closed");
    const a = core.active;
    core.active = null;
    await this.jobs.killAll();
    await this.shell.kill();
    const notice = words.NOTICE.restarted;
    if (a !== null) this.life.endActive(a, { status: a.interrupted ? "interrupted" : "completed", exitCode: null, notice });
    core.finished = null;
    core.cwd = this.runtime.workspace;
    this.shell.forget();
    await this.shell.ensure();
    return { cwd: core.cwd, notice };
  }

  async close(): Promise<void> {
    const core = this.core;
    if (core.closed) return;
    core.closed = true;
    const a = core.active;
    core.active = null;
    if (a !== null) this.life.endActive(a, { status: "interrupted", exitCode: null, notice: words.NOTICE.closed });
    await this.jobs.close();
    await this.shell.kill();
    await this.spills.removeAll();
    this.shell.cancelWaits();
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
    const { core, shell } = this;
    if (core.closed || data === "") return;
    if (core.active !== null) {
      if (data === "\x03") shell.write(data); // a person may always stop what runs
      else core.person.hold(data);
      return;
    }
    if (shell.proc === null || !shell.ready) return;
    core.person.typed(data);
    shell.write(data);
  }

  resize(cols: number, rows: number): void {
    this.shell.proc?.resize(cols, rows);
  }

  async startJob(command: string): Promise<JobInfo> {
    if (this.core.closed) throw new JobError("The shell session is closed; no job can start.", "closed");
    const env = (await this.shell.readExported()) ?? undefined;
    return this.jobs.start(command, { cwd: this.core.cwd, env });
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

  private state(): ShellState {
    const { core, shell } = this;
    if (core.closed) return { state: "closed", cwd: core.cwd };
    if (shell.phase === "starting" || shell.phase === "none") return { state: "starting", cwd: core.cwd };
    if (core.active !== null && core.active.phase !== "preparing") {
      return { state: "running", by: "agent", command: core.active.command, cwd: core.cwd };
    }
    if (core.person.busy) return { state: "running", by: "person", cwd: core.cwd };
    return { state: "idle", cwd: core.cwd };
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
