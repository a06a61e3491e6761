// just-bash, set up for the embedded shell: its file system is the worker's MirroredFs, its limits are EMBEDDED.limits,
// the helper commands the command-line rewrite calls (transform.ts COMMANDS) are defined, and the rewrite itself runs
// as a transform plugin on the command line it is armed for (not on `bash -c` or xargs inside it).

import { Bash, defineCommand, getCommandNames } from "just-bash/browser";
import { COMMANDS, EMBEDDED } from "./config.ts";
import type { MirroredFs } from "./mirrored-fs.ts";
import { syntaxCheck } from "./syntax-check.ts";
import { rewriteScript, type RewriteOptions, type ScriptNode } from "./transform.ts";

/** The slice of just-bash's private interpreter state that carries over (just-bash 3.4.2, Bash.state). */
export interface BashState {
  env: Map<string, string>;
  cwd: string;
  previousDir: string;
  functions: Map<string, unknown>;
  options: Record<string, boolean>;
  shoptOptions: Record<string, boolean>;
  exportedVars: Set<string>;
  readonlyVars: Set<string>;
  lastExitCode: number;
}

/** What the helper commands report to the shell. */
export interface InterpreterHooks {
  /** `__sandshell_fn ID`: the function definition ID has just run. */
  functionRan(id: number): void;
  /** `__sandshell_prompt TEXT`: show TEXT now (a `read -p` prompt). */
  prompt(text: string): void;
  /** The trailer `__sandshell_state "$?" …` ran with these arguments and this environment; returns the exit code. */
  stateReported(args: string[], env: Map<string, string>): number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  env?: Record<string, string>;
}

export class Interpreter {
  readonly bash: Bash;
  /** The rewrite for the next command line; used once. */
  private armed: RewriteOptions | null = null;

  /** The programs just-bash has (posted once the worker is loaded). */
  static programs(): string[] {
    return [...getCommandNames()];
  }

  constructor(fs: MirroredFs, cwd: string, env: Record<string, string>, hooks: InterpreterHooks) {
    this.bash = new Bash({
      fs,
      cwd,
      env,
      executionLimits: EMBEDDED.limits,
      customCommands: [
        defineCommand(COMMANDS.fn, async (args) => {
          hooks.functionRan(Number(args[0]));
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.syntax, async (args, ctx) => syntaxCheck(args, ctx, (text) => this.parse(text))),
        defineCommand(COMMANDS.noStdin, async (_args, ctx) => ({ stdout: "", stderr: "", exitCode: String(ctx.stdin) === "" ? 0 : 1 })),
        defineCommand(COMMANDS.prompt, async (args) => {
          hooks.prompt(args.join(" "));
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.state, async (args, ctx) => ({ stdout: "", stderr: "", exitCode: hooks.stateReported(args, ctx.env) })),
      ],
    });
    this.bash.registerTransformPlugin({
      name: "sandshell",
      transform: ({ ast }) => {
        const options = this.armed;
        if (options === null) return { ast };
        this.armed = null; // only the command line itself, not `bash -c` or xargs inside it
        return { ast: rewriteScript(ast as unknown as ScriptNode, options) as unknown as typeof ast };
      },
    });
  }

  /** The interpreter's live state (what the next exec() starts from). */
  get state(): BashState {
    return (this.bash as unknown as { state: BashState }).state;
  }

  /** Parses like just-bash; throws its syntax errors. */
  parse(text: string): ScriptNode {
    return this.bash.transform(text).ast as unknown as ScriptNode;
  }

  /** Runs one command line, rewritten with `rewrite`. */
  async exec(text: string, rewrite: RewriteOptions, options: { signal: AbortSignal; env?: Record<string, string> }): Promise<ExecResult> {
    this.armed = rewrite;
    try {
      return await this.bash.exec(text, options);
    } finally {
      this.armed = null;
    }
  }
}
