// The agent's (or a person's) interactive shell on the page's side: one worker at a time runs it (shell-core.ts); when
// a C-c does not stop the command within EMBEDDED.interruptKillMs (a CPU-bound loop cannot be aborted), that worker
// is ended and a standby takes over from the mirror and the shell's last state (protocol.ts CarryState), printing the
// markers of an interrupted command. Keys typed meanwhile wait and go to the new worker.

import type { ShellSpawnOptions, TerminalProcess, Unsubscribe } from "../types.ts";
import { EMBEDDED } from "./config.ts";
import { type ProcessHost, ProcessOutput } from "./process-host.ts";
import { type CarryState, type InitMessage, transferables, type WorkerToHost } from "./protocol.ts";
import type { WorkerConnection } from "./worker-connection.ts";

export /** The agent's (or a person's) interactive shell: one worker at a time, replaced when C-c has to end one. */
class ShellProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private resolveExit!: (code: number) => void;
  private readonly out = new ProcessOutput();
  private conn: WorkerConnection | null = null;
  private busy = false;
  private ended = false;
  private state: CarryState | null = null;
  /** The shell's history, for a worker that takes over. */
  private readonly history: string[] = [];
  private killTimer: ReturnType<typeof setTimeout> | null = null;
  /** Keystrokes that arrive while a worker is being replaced. */
  private pending: string[] = [];
  private replacing = false;
  private cols: number;
  private rows: number;
  /** Where this shell keeps `export -p` (announced with an `envfile` marker). */
  private readonly envFile: string;

  constructor(
    private readonly runtime: ProcessHost,
    private readonly options: ShellSpawnOptions,
  ) {
    this.envFile = `/tmp/.sandshell-env-${runtime.nextShellId()}`;
    this.exited = new Promise<number>((resolve) => (this.resolveExit = resolve));
    this.cols = options.cols;
    this.rows = options.rows;
  }

  async start(): Promise<void> {
    await this.launch(false);
  }

  private async launch(interrupted: boolean): Promise<void> {
    const conn = await this.runtime.takeWorker();
    if (this.ended) {
      conn.terminate();
      return;
    }
    this.conn = conn;
    this.busy = false;
    conn.listen(
      (m) => this.onMessage(conn, m),
      (err) => this.onWorkerError(conn, err),
    );
    const init: InitMessage = {
      t: "init",
      mode: "shell",
      nonce: this.runtime.markerNonce,
      workspace: this.runtime.workspace,
      ...this.runtime.attach(conn),
      cols: this.cols,
      rows: this.rows,
      cwd: this.options.cwd ?? this.runtime.workspace,
      env: this.options.env ?? {},
      envFile: this.envFile,
      ...(this.state !== null ? { state: this.state, history: [...this.history] } : {}),
      ...(interrupted ? { interrupted: true } : {}),
    };
    conn.post(init, transferables([{ op: "put", entries: init.fs }]));
  }

  private onMessage(conn: WorkerConnection, m: WorkerToHost): void {
    if (m.t === "fs") {
      this.runtime.fromWorker(conn, m.seen, m.ops);
      return;
    }
    if (m.t === "read") {
      this.runtime.readForWorker(conn, m.id, m.path);
      return;
    }
    if (conn !== this.conn) return;
    switch (m.t) {
      case "data":
        if (m.state !== undefined) this.state = m.state;
        if (m.historyAdd !== undefined) {
          this.history.push(m.historyAdd);
          if (this.history.length > EMBEDDED.historySize) this.history.splice(0, this.history.length - EMBEDDED.historySize);
        }
        if (m.busy !== undefined) {
          this.busy = m.busy;
          if (!m.busy) this.clearKillTimer();
        }
        if (m.text !== "") this.out.emit(m.text);
        break;
      case "exit":
        this.finish(m.code);
        break;
      case "error":
        this.out.emit(`\r\nsandshell: the embedded shell failed: ${m.message.split("\n")[0] ?? ""}\r\n`);
        this.runtime.emit({ type: "error", message: `The embedded shell failed: ${m.message}` });
        this.finish(1);
        break;
      case "booted":
        break;
    }
  }

  private onWorkerError(conn: WorkerConnection, err: Error): void {
    if (conn !== this.conn) return;
    this.runtime.emit({ type: "error", message: `The embedded shell's worker failed: ${err.message}` });
    this.finish(1);
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.out.add(listener);
  }

  write(data: string): void {
    if (this.ended || data === "") return;
    if (this.replacing) {
      if (!data.includes("\x03")) this.pending.push(data);
      return;
    }
    const cc = data.indexOf("\x03");
    if (cc !== -1 && this.busy) {
      if (cc > 0) this.conn?.post({ t: "input", data: data.slice(0, cc) });
      this.interrupt();
      return; // what follows a C-c is dropped, as the shell drops typeahead on an interrupt
    }
    this.conn?.post({ t: "input", data });
  }

  private interrupt(): void {
    if (this.killTimer !== null) return;
    this.out.emit("^C");
    this.conn?.post({ t: "interrupt" });
    this.runtime.prepareStandby();
    this.killTimer = setTimeout(() => {
      this.killTimer = null;
      if (this.busy && !this.ended) void this.replace();
    }, EMBEDDED.interruptKillMs);
  }

  private clearKillTimer(): void {
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    this.killTimer = null;
  }

  /** The command did not stop: end its worker, start the shell afresh from the mirror and its last state. */
  private async replace(): Promise<void> {
    const old = this.conn;
    if (old === null) return;
    this.replacing = true;
    // one turn of the event loop first: changes the worker posted before it got stuck are handled, not dropped
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!this.busy || this.conn !== old || this.ended) {
      this.replacing = false; // it stopped after all
      this.flushPending();
      return;
    }
    this.conn = null;
    this.runtime.detach(old);
    this.runtime.emit({ type: "status", message: "A command did not stop on C-c; the embedded shell's worker was replaced (files kept)." });
    try {
      await this.launch(true);
    } catch (err) {
      this.runtime.emit({ type: "error", message: `The embedded shell could not be restarted: ${String(err)}` });
      this.finish(1);
      return;
    } finally {
      this.replacing = false;
    }
    this.flushPending();
  }

  private flushPending(): void {
    const pending = this.pending;
    this.pending = [];
    for (const data of pending) this.write(data);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.conn?.post({ t: "resize", cols, rows });
  }

  kill(): void {
    this.finish(EMBEDDED.killExitCode);
  }

  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.clearKillTimer();
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) this.runtime.detach(conn);
    this.resolveExit(code);
  }
}
