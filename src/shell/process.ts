// The shell process behind a session: at most one TerminalProcess at a time, started, replaced and killed here. Its
// output goes to the session (raw listeners, then stream.ts); what the line editor shows (a prompt, bracketed paste on)
// is noted here for the parts that wait on it, with the waiting itself (conditions re-checked after every chunk).

import { SHELL } from "../limits.ts";
import type { ShellProbe, TerminalProcess, Unsubscribe } from "../runtime/types.ts";
import type { SessionCore } from "./core.ts";
import { NOT_RESTORED, parseExportP } from "./env.ts";
import { now } from "./util.ts";

export interface ProcessEvents {
  /** A chunk of the current shell's output. */
  data(chunk: string): void;
  /** A new shell is about to start: per-shell state (the stream's carry-over, sequence numbers) starts afresh. */
  starting(): void;
  /** The shell ended by itself (not killed by us); the stream has been flushed before. */
  exited(code: number): void;
  /** End of the current shell's stream: what the stream held back is due. */
  flush(): void;
}

/** A shell that replaced one that had ended: how that one ended and whether its state was carried over. */
export interface Replacement {
  exitCode: number | null;
  restored: boolean;
}

interface Condition {
  test: () => boolean;
  resolve: (ok: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ShellProcess {
  proc: TerminalProcess | null = null;
  phase: "none" | "starting" | "ready" | "dead" = "none";
  /** A prompt marker came and no command was typed since. */
  atPrompt = false;
  /** The line editor reads with bracketed paste on (it switches it off when it accepts a line). */
  pasteOn = false;
  /** The line editor has used bracketed paste: commands go in as one paste. */
  pasteCapable = false;
  /** Where the shell writes its state before each prompt (its `envfile` marker), for a respawn. */
  envFile: string | null = null;
  /**
   * The shell's state as the runtime gave it at the last verified prompt (runtimes with snapshotState: node), and the
   * token of that prompt: what a respawn restores, never a file the shell could have written since.
   */
  private saved: { exported: string; state: string } | null = null;
  savedToken: string | undefined = undefined;
  /** When the shell last printed anything. */
  lastDataAt = 0;
  private everStarted = false;
  private lastExit: number | null = null;
  private starting: Promise<void> | null = null;
  private unsubs: Unsubscribe[] = [];
  private readonly conditions = new Set<Condition>();

  constructor(
    private readonly core: SessionCore,
    private readonly events: ProcessEvents,
  ) {}

  get ready(): boolean {
    return this.phase === "ready";
  }

  write(data: string): void {
    this.proc?.write(data);
  }

  /** Starts a shell when there is none; says so when this one replaces a shell that had ended. */
  async ensure(): Promise<Replacement | null> {
    while (this.starting !== null) await this.starting.catch(() => undefined);
    if (this.phase === "ready") return null;
    const replacing = this.everStarted;
    const exitCode = this.lastExit;
    let restored = false;
    const p = (async () => {
      const env = replacing ? await this.readExported() : null;
      restored = env !== null;
      await this.spawn(replacing ? this.core.cwd : undefined, env ?? undefined);
    })();
    this.starting = p;
    try {
      await p;
    } finally {
      this.starting = null;
    }
    return replacing ? { exitCode, restored } : null;
  }

  /** Kills the shell and starts a fresh one in the same directory with its state carried over where possible. */
  async respawn(): Promise<{ restored: boolean }> {
    const cwd = this.core.cwd;
    const env = await this.readExported();
    await this.kill();
    const p = this.spawn(cwd, env ?? undefined);
    this.starting = p;
    try {
      await p;
    } finally {
      if (this.starting === p) this.starting = null;
    }
    return { restored: env !== null };
  }

  /** Forgets the shell's history: the next shell starts in the workspace with nothing carried over. */
  forget(): void {
    this.envFile = null;
    this.saved = null;
    this.savedToken = undefined;
    this.everStarted = false;
  }

  /** The shell waits at a verified prompt whose end carried `token`: take its state now (see `saved`). */
  saveState(token: string): void {
    const proc = this.proc;
    if (proc?.snapshotState === undefined || token === this.savedToken) return;
    const snap = proc.snapshotState();
    if (snap === null) return;
    this.saved = snap;
    this.savedToken = token;
  }

  private async spawn(cwd: string | undefined, env: Record<string, string> | undefined): Promise<void> {
    // Functions, aliases and plain variables: only from a state taken at a verified prompt (the runtime's own copy).
    const restoreState = env !== undefined ? this.saved?.state : undefined;
    this.phase = "starting";
    this.core.emitState();
    this.events.starting();
    this.pasteOn = false;
    this.atPrompt = false;
    this.envFile = null;
    const { cols, rows, startupTimeoutMs } = this.core.config;
    const proc = await this.core.runtime.spawnShell({ cols, rows, cwd, env, ...(restoreState !== undefined ? { restoreState } : {}) });
    if (this.core.closed) {
      proc.kill();
      throw new Error("The shell session was closed");
    }
    this.proc = proc;
    this.snapshots = proc.snapshotState !== undefined;
    this.core.stats.shellsStarted++;
    this.unsubs = [proc.onData((chunk) => this.onData(proc, chunk))];
    void proc.exited.then((code) => this.onExit(proc, code));
    const up = await this.waitFor(() => this.atPrompt || this.proc !== proc, startupTimeoutMs);
    if (!up || this.proc !== proc) {
      if (this.proc === proc) await this.kill();
      this.phase = "dead";
      throw new Error(up ? "the shell exited while starting" : `no prompt within ${startupTimeoutMs} ms`);
    }
    // The line editor switches bracketed paste on right after the prompt when it has it; wait a moment to learn.
    if (!this.pasteOn) await this.waitFor(() => this.pasteOn, SHELL.pasteProbeMs);
    this.phase = "ready";
    this.everStarted = true;
    this.lastExit = null;
    this.core.emitState();
  }

  async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    for (const off of this.unsubs) off();
    this.unsubs = [];
    if (this.phase !== "none") this.phase = "dead";
    if (proc === null) return;
    proc.kill();
    await Promise.race([proc.exited, new Promise((r) => setTimeout(r, SHELL.killWaitMs))]);
  }

  private onData(proc: TerminalProcess, chunk: string): void {
    if (proc !== this.proc) return;
    this.lastDataAt = now();
    this.events.data(chunk);
    this.checkConditions();
  }

  private onExit(proc: TerminalProcess, code: number): void {
    if (proc !== this.proc) return; // replaced on purpose
    this.events.flush();
    for (const off of this.unsubs) off();
    this.unsubs = [];
    this.proc = null;
    this.phase = "dead";
    this.lastExit = code;
    this.events.exited(code);
    this.checkConditions();
    this.core.emitState();
  }

  /**
   * The shell's exported variables as it last wrote them before a prompt (null when unknown): where the runtime gives
   * snapshots (node), as taken at the last verified prompt; else its `envfile` as it is now.
   */
  async readExported(): Promise<Record<string, string> | null> {
    if (this.saved !== null) return this.restorable(parseExportP(this.saved.exported));
    if (this.envFile === null || this.snapshots) return null;
    try {
      return this.restorable(parseExportP(new TextDecoder().decode(await this.core.runtime.fs.readFile(this.envFile))));
    } catch {
      return null;
    }
  }

  /** Whether this runtime's shells give snapshots of their state (then the envfile is never read). */
  private snapshots = false;

  private restorable(vars: Record<string, string>): Record<string, string> {
    for (const name of NOT_RESTORED) delete vars[name];
    return vars;
  }

  // ---------------------------------------------------------------------------------------------- waiting

  /**
   * Right before a command is typed, where the runtime can tell (node): waits until the shell owns its terminal and
   * waits in its line editor (`prompt`), at most SHELL.promptWaitMs (then it is typed anyway, as a person would), or
   * SHELL.terminalHeldMs while another process group holds the terminal (`held`: the caller replaces the shell). The
   * last look, or null where the runtime cannot tell.
   */
  async untilTypeable(): Promise<ShellProbe | null> {
    const t0 = now();
    let heldSince: number | null = null;
    for (let look = 0; ; look++) {
      const proc = this.proc;
      const p = proc?.probe?.() ?? null;
      if (p === null || p.state === "prompt" || !this.ready || this.proc !== proc) return p;
      const t = now();
      if (p.state === "held") heldSince ??= t;
      else heldSince = null;
      if (heldSince !== null && t - heldSince >= SHELL.terminalHeldMs) return p;
      if (t - t0 >= SHELL.promptWaitMs) return p;
      // The prompt is usually a moment away: the next turns of the event loop first, then a few milliseconds apart.
      await new Promise((resolve) => (look < 3 ? setImmediate(resolve) : setTimeout(resolve, Math.min(20, 1 + look))));
    }
  }

  /** Resolves once the shell has printed nothing for `ms`, or after `maxMs` at the latest. */
  async quiet(ms: number, maxMs: number): Promise<void> {
    const deadline = now() + maxMs;
    for (;;) {
      const left = Math.min(this.lastDataAt + ms, deadline) - now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, left));
    }
  }

  /** Resolves true once `test()` holds (checked after every chunk of output), false after `ms`. */
  waitFor(test: () => boolean, ms: number): Promise<boolean> {
    if (test()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const c: Condition = { test, resolve, timer: setTimeout(() => this.settle(c, false), ms) };
      this.conditions.add(c);
    });
  }

  /** Gives up every wait (the session closes). */
  cancelWaits(): void {
    for (const c of [...this.conditions]) this.settle(c, false);
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
}
