// The embedded shell's core, transport-agnostic: it runs inside a worker (worker.ts in the browser, node-entry.ts in
// Node) and talks to the page only through `post` and `handle`. On `init` it builds the worker's file system from the
// page's snapshot and the interpreter over it, then serves as one of two things:
// - the agent's interactive shell (interactive-shell.ts: prompt, line editor, markers, state carried from line to
//   line by carry-over.ts), or
// - a background job: one command line, its output as it comes, its exit code.

import { CarryOver } from "./carry-over.ts";
import { nameBytes } from "./fs-errors.ts";
import { InteractiveShell } from "./interactive-shell.ts";
import { Interpreter } from "./interpreter.ts";
import { WorkerFs } from "./worker-fs.ts";
import { type HostToWorker, type InitMessage, type Post, transferables, type WorkerMemory } from "./protocol.ts";
import { toTerminal, WorkerOutput } from "./worker-output.ts";

export type { Post } from "./protocol.ts";

export class ShellCore {
  private fs: WorkerFs | null = null;
  private shell: InteractiveShell | null = null;
  private appliedSeq = 0;
  private readonly out: WorkerOutput;
  /** Reads of stubs waiting for the page's bytes, by request id. */
  private readonly reads = new Map<number, (data: Uint8Array | null) => void>();
  private nextRead = 1;

  /** `measure`: the worker's memory where the platform tells it (node-entry.ts), for `memory` requests. */
  constructor(
    private readonly post: Post,
    private readonly measure: () => Promise<WorkerMemory | null> = async () => null,
  ) {
    this.out = new WorkerOutput(post);
  }

  /** Posted once the worker is loaded. */
  static programs(): string[] {
    return Interpreter.programs();
  }

  handle(message: HostToWorker): void {
    switch (message.t) {
      case "init":
        void this.start(message).catch((err: unknown) => this.fail(err));
        break;
      case "input":
        this.shell?.input(message.data);
        break;
      case "interrupt":
        this.shell?.interrupt();
        break;
      case "resize":
        break;
      case "fs":
        this.fs?.applyOps(message.ops);
        this.appliedSeq = message.seq;
        break;
      case "memory":
        void this.measure().then((usage) => this.post({ t: "memory", id: message.id, usage }));
        break;
      case "file": {
        const done = this.reads.get(message.id);
        this.reads.delete(message.id);
        done?.(message.data);
        break;
      }
    }
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.out.flush();
    this.post({ t: "error", message });
  }

  private async start(init: InitMessage): Promise<void> {
    this.appliedSeq = init.seq;
    const fs = new WorkerFs(init.bounds);
    // the page's files first; the interpreter adds its layout (/bin, /dev, /proc…), which is never mirrored
    fs.applyOps([{ op: "put", entries: init.fs }]);
    this.fs = fs;

    let cwd = init.state?.cwd ?? init.cwd;
    if (!(await fs.exists(cwd)) || !(await fs.stat(cwd)).isDirectory) cwd = init.workspace;
    const env: Record<string, string> = {
      HOME: init.workspace,
      PATH: "/usr/bin:/bin",
      USER: "user",
      LOGNAME: "user",
      SHELL: "/bin/bash",
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      ...init.env,
    };
    let carry: CarryOver | null = null;
    const interp = new Interpreter(fs, cwd, env, {
      functionRan: (id) => carry?.functionRan(id),
      prompt: (text) => {
        this.out.emit(toTerminal(text));
        this.out.flush();
      },
      stateReported: (args, vars) => carry?.report(args, vars) ?? 1,
      statementEnded: (status, shellopts) => this.shell?.statementEnded(status, shellopts),
    });
    interp.state.shoptOptions.expand_aliases = true; // an interactive shell expands aliases

    fs.attach((ops) => this.post({ t: "fs", seen: this.appliedSeq, ops }, transferables(ops)), {
      output: (text) => {
        this.out.emit(toTerminal(text));
        this.shell?.onOutput(text);
      },
      readTty: (kind) => this.shell?.readTty(kind) ?? Promise.resolve(""),
      fetch: (path) =>
        new Promise<Uint8Array | null>((resolve) => {
          const id = this.nextRead++;
          this.reads.set(id, resolve);
          this.post({ t: "read", id, path });
        }),
    }, init.fs.length, init.fs.reduce((n, e) => n + nameBytes(e.path, e.kind === "symlink" ? e.target : undefined), 0));

    if (init.mode === "job") {
      await this.runJob(interp, init.command ?? "");
      return;
    }
    carry = new CarryOver(interp, init.state, cwd);
    this.shell = new InteractiveShell({ init, interp, carry, fs, out: this.out, post: this.post });
    await this.shell.start();
  }

  /** A background job: its stdin is empty (it reads no terminal); its output streams statement by statement. */
  private async runJob(interp: Interpreter, command: string): Promise<void> {
    let code: number;
    try {
      const r = await interp.exec(command, { stream: true, tty: false, releaseAfterStatements: true }, { signal: new AbortController().signal });
      this.out.emit(toTerminal(r.stdout + r.stderr));
      code = r.exitCode;
    } catch (err) {
      this.out.emit(toTerminal(`bash: ${err instanceof Error ? err.message : String(err)}\n`));
      code = 1;
    }
    this.out.flush();
    this.post({ t: "exit", code });
  }
}
