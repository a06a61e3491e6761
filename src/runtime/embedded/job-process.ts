// A background job on the page's side: one command line in its own worker (shell-core.ts in job mode), sharing the
// file system with the shell; its output arrives statement by statement; kill() ends the worker at once.

import { SHELL } from "../../limits.ts";
import type { JobSpawnOptions, TerminalProcess, Unsubscribe } from "../types.ts";
import { EMBEDDED } from "./config.ts";
import { type ProcessHost, ProcessOutput } from "./process-host.ts";
import { type InitMessage, transferables } from "./protocol.ts";
import type { WorkerConnection } from "./worker-connection.ts";

export /** A background job: one command line in its own worker; its output arrives statement by statement. */
class JobProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private resolveExit!: (code: number) => void;
  private readonly out = new ProcessOutput();
  private conn: WorkerConnection | null = null;
  private ended = false;

  constructor(
    private readonly runtime: ProcessHost,
    private readonly command: string,
    private readonly options: JobSpawnOptions,
  ) {
    this.exited = new Promise<number>((resolve) => (this.resolveExit = resolve));
  }

  async start(): Promise<void> {
    const conn = await this.runtime.takeWorker();
    if (this.ended) {
      conn.terminate();
      return;
    }
    this.conn = conn;
    conn.listen(
      (m) => {
        if (m.t === "fs") this.runtime.fromWorker(conn, m.seen, m.ops);
        else if (m.t === "read") this.runtime.readForWorker(conn, m.id, m.path);
        else if (conn !== this.conn) return;
        else if (m.t === "data") this.out.emit(m.text);
        else if (m.t === "exit") this.finish(m.code);
        else if (m.t === "error") {
          this.out.emit(`sandshell: the job's worker failed: ${m.message.split("\n")[0] ?? ""}\r\n`);
          this.finish(1);
        }
      },
      (err) => {
        this.out.emit(`sandshell: the job's worker failed: ${err.message}\r\n`);
        this.finish(1);
      },
    );
    const init: InitMessage = {
      t: "init",
      mode: "job",
      nonce: this.runtime.markerNonce,
      workspace: this.runtime.workspace,
      ...this.runtime.attach(conn),
      cols: SHELL.agentCols,
      rows: SHELL.agentRows,
      cwd: this.options.cwd,
      env: this.options.env ?? {},
      command: this.command,
    };
    conn.post(init, transferables([{ op: "put", entries: init.fs }]));
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.out.add(listener);
  }

  write(_data: string): void {
    // a job reads no terminal: its stdin is empty
  }

  resize(_cols: number, _rows: number): void {}

  kill(): void {
    this.finish(EMBEDDED.killExitCode);
  }

  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) this.runtime.detach(conn);
    this.resolveExit(code);
  }
}
