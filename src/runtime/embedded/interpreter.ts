// just-bash, set up for the embedded shell: its file system is the worker's (worker-fs.ts), its limits are EMBEDDED.limits,
// the helper commands the command-line rewrite calls (config.ts COMMANDS) are defined, and the rewrite itself runs
// as a transform plugin: on the command line it is armed for, and, while that line reads the terminal, on the
// scripts its commands run (`bash -c`, `sh FILE`, `./FILE`) and the files it sources, so that their `read`, `cat`
// and `head` read the terminal where bash's would.

import { Bash, defineCommand, getCommandNames } from "just-bash/browser";
import { baseName, joinPath, normalizePath } from "../../lib/paths.ts";
import { COMMANDS, EMBEDDED } from "./config.ts";
import type { WorkerFs } from "./worker-fs.ts";
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
  functionRan(id: string): void;
  /** `__sandshell_prompt TEXT`: show TEXT now (a `read -p` prompt). */
  prompt(text: string): void;
  /** `__sandshell_nounset`: a statement ended with `status`; SHELLOPTS as the shell has them now. */
  statementEnded(status: number, shellopts: string): void;
  /** The trailer `__sandshell_state "$?" …` ran with these arguments and this environment; returns the exit code. */
  stateReported(args: string[], env: Map<string, string>): number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  env?: Record<string, string>;
}

/** A helper command's exit code from its `"$?"` argument. */
function exitCodeOf(arg: string | undefined): number {
  const code = Number(arg ?? "0");
  return Number.isInteger(code) ? code : 0;
}

export class Interpreter {
  readonly bash: Bash;
  /** The rewrite for the next command line; used once. */
  private armed: RewriteOptions | null = null;
  /** While a line that reads the terminal runs: the rewrite of the scripts its commands run and source. */
  private scripts: RewriteOptions | null = null;
  /** Commands running a script (`__sandshell_script` … `__sandshell_script_end`) now. */
  private scriptDepth = 0;
  /** Our own parses (completeness, carried functions, `bash -n`) are not rewritten. */
  private parsing = 0;

  /** The programs just-bash has (posted once the worker is loaded). */
  static programs(): string[] {
    return [...getCommandNames()];
  }

  constructor(
    private readonly fs: WorkerFs,
    cwd: string,
    env: Record<string, string>,
    hooks: InterpreterHooks,
  ) {
    this.bash = new Bash({
      fs,
      cwd,
      env,
      executionLimits: EMBEDDED.limits,
      customCommands: [
        defineCommand(COMMANDS.fn, async (args) => {
          hooks.functionRan(args[0] ?? "");
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.syntax, async (args, ctx) => syntaxCheck(args, ctx, (text) => this.parse(text))),
        defineCommand(COMMANDS.noStdin, async (_args, ctx) => ({ stdout: "", stderr: "", exitCode: String(ctx.stdin) === "" ? 0 : 1 })),
        defineCommand(COMMANDS.prompt, async (args) => {
          hooks.prompt(args.join(" "));
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.state, async (args, ctx) => ({ stdout: "", stderr: "", exitCode: hooks.stateReported(args, ctx.env) })),
        defineCommand(COMMANDS.nounset, async (args, ctx) => {
          hooks.statementEnded(exitCodeOf(args[0]), ctx.env.get("SHELLOPTS") ?? "");
          return { stdout: "", stderr: "", exitCode: exitCodeOf(args[0]) };
        }),
        defineCommand(COMMANDS.release, async (args) => {
          fs.releaseLargeFiles();
          return { stdout: "", stderr: "", exitCode: exitCodeOf(args[0]) };
        }),
        defineCommand(COMMANDS.script, async () => {
          this.scriptDepth++;
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.scriptFile, async (args, ctx) => {
          const file = args[0] ?? "";
          // `source NAME` looks NAME up on PATH too; a path is taken from the working directory
          const direct = normalizePath(file.startsWith("/") ? file : joinPath(ctx.cwd, file));
          const matches = (path: string): boolean => path === direct || (!file.includes("/") && baseName(path) === file);
          fs.rewriteNextRead(matches, (text) => this.rewriteScriptText(text));
          return { stdout: "", stderr: "", exitCode: 0 };
        }),
        defineCommand(COMMANDS.scriptEnd, async (args) => {
          this.scriptDepth = Math.max(0, this.scriptDepth - 1);
          return { stdout: "", stderr: "", exitCode: exitCodeOf(args[0]) };
        }),
        defineCommand(COMMANDS.scriptFileEnd, async (args) => {
          fs.rewriteNextRead(null, null);
          return { stdout: "", stderr: "", exitCode: exitCodeOf(args[0]) };
        }),
      ],
    });
    this.bash.registerTransformPlugin({
      name: "sandshell",
      transform: ({ ast }) => {
        if (this.parsing > 0) return { ast };
        let options = this.armed;
        this.armed = null; // the command line itself; what its commands run is a script
        if (options === null && this.scriptDepth > 0) options = this.scripts;
        if (options === null) return { ast };
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
    this.parsing++;
    try {
      return this.bash.transform(text).ast as unknown as ScriptNode;
    } finally {
      this.parsing--;
    }
  }

  /** A script file's text (sourced, or run by its path), rewritten as a script of the running line (unchanged when it does not parse). */
  private rewriteScriptText(text: string): string {
    if (this.scripts === null) return text;
    this.armed = this.scripts;
    try {
      return this.bash.transform(text).script;
    } catch {
      return text; // just-bash reports the syntax error itself
    } finally {
      this.armed = null;
    }
  }

  /** Runs one command line, rewritten with `rewrite`. */
  async exec(text: string, rewrite: RewriteOptions, options: { signal: AbortSignal; env?: Record<string, string> }): Promise<ExecResult> {
    this.armed = rewrite;
    this.scripts = rewrite.tty ? { stream: false, tty: true, script: true } : null;
    this.scriptDepth = 0;
    try {
      return await this.bash.exec(text, options);
    } finally {
      this.armed = null;
      this.scripts = null;
      this.scriptDepth = 0;
      this.fs.rewriteNextRead(null, null);
    }
  }
}
