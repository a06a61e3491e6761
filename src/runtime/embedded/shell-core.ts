// The embedded shell's core, transport-agnostic: it runs inside a worker (worker.ts in the browser, node-entry.ts in
// Node) and talks to the page only through `post` and `handle`. On `init` it builds the worker's file system from the
// page's snapshot and the interpreter over it, then serves as one of two things:
// - the agent's interactive shell (interactive-shell.ts: prompt, line editor, markers, state carried from line to
//   line by carry-over.ts), or
// - a background job: one command line, its output as it comes, its exit code.

import { CarryOver } from "./carry-over.ts";
import { EMBEDDED } from "./config.ts";
import { InteractiveShell } from "./interactive-shell.ts";
import { Interpreter } from "./interpreter.ts";
import { MirroredFs } from "./mirrored-fs.ts";
import type { HostToWorker, InitMessage, Post } from "./protocol.ts";
import { toTerminal, WorkerOutput } from "./worker-output.ts";

export type { Post } from "./protocol.ts";

export class ShellCore {
  private fs: MirroredFs | null = null;
  private shell: InteractiveShell | null = null;
  private appliedSeq = 0;
  private readonly out: WorkerOutput;

  constructor(private readonly post: Post) {
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
    }
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.out.flush();
    this.post({ t: "error", message });
  }

  private async start(init: InitMessage): Promise<void> {
    this.appliedSeq = init.seq;
    const fs = new MirroredFs({ maxTotalBytes: EMBEDDED.limits.maxFileSystemBytes });
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
      stateReported: (args, vars) => carry?.report(args, vars) ?? Number(args[0] ?? "0"),
      statementEnded: (status, shellopts) => this.shell?.statementEnded(status, shellopts),
    });
    interp.state.shoptOptions.expand_aliases = true; // an interactive shell expands aliases

    fs.attach((ops) => this.post({ t: "fs", seen: this.appliedSeq, ops }), {
      output: (text) => {
        this.out.emit(toTerminal(text));
        this.shell?.onOutput(text);
      },
      readTty: (kind) => this.shell?.readTty(kind) ?? Promise.resolve(""),
    });

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
      const r = await interp.exec(command, { stream: true, tty: false }, { signal: new AbortController().signal });
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
