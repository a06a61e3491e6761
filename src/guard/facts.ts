import type { Effective } from "./wrappers.ts";

// What the parser hands the rules: every simple command anywhere in a script, with its words
// already unquoted and unescaped. Rules never see tree-sitter nodes.

/** Stands for text the guard cannot know before the command runs ($VAR, $(…), `…`). */
export const DYN = "\u0000";

export interface Word {
  /** Source text, as written. */
  raw: string;
  /** Quotes and escapes removed, known variables substituted, unknown parts replaced by DYN. */
  value: string;
  /** value holds at least one DYN. */
  dynamic: boolean;
  /** Unquoted glob characters (* ? [) present. */
  glob: boolean;
  /**
   * Stands for any number of words the guard cannot see, none included (the input xargs appends). An unquoted
   * expansion is read from `raw` instead (getopt.ts mayBeSeveral).
   */
  several?: true;
}

export interface Redirect {
  /** ">", ">>", "&>", "&>>", ">|", "<", "<>", ">&", "<&", "<<", "<<-", "<<<" */
  op: string;
  fd: number | null;
  /** The file (or fd number for >& / <&); null for heredocs and herestrings. */
  target: Word | null;
  /** Heredoc body or herestring text, when there is one. */
  body?: { text: string; dynamic: boolean };
}

export interface Command {
  id: number;
  /** The part as written, for verdicts. */
  text: string;
  /** Program and arguments as written (wrappers not removed). Empty for a bare redirect or assignment. */
  argv: Word[];
  assignments: Array<{ name: string; value: Word }>;
  redirects: Redirect[];
  /** Working directory when it runs; null when a `cd` to somewhere unknown came before. */
  cwd: string | null;
  /** Position in a pipeline of two or more commands. */
  pipeline: { id: number; index: number; size: number; /** Its errors go into the pipe too (`|&`). */ stderr?: boolean } | null;
  /** The command whose argument or redirect holds the $(…), `…` or <(…) this one runs in. */
  owner: Command | null;
  /** How the guard reached it when it is not plain text of the script: "bash -c", "eval", "find -exec", … */
  via: string | null;
  /** Name of the function whose body holds it. */
  fn: string | null;
  /** Followed by `&`. */
  background: boolean;
  /** Inside a loop without end (`while true`, `for ((;;))`) whose body never pauses (no sleep, wait or read). */
  endlessLoop?: true;
  /** 0 for the checked script, +1 for each `bash -c` / `eval` string unpacked. */
  depth: number;
  /** The command with wrappers peeled off, once the parser has worked it out. */
  effective?: Effective;
  /**
   * Variables the shell itself sets or unsets here without an assignment word: arithmetic (`let PATH=1`,
   * `(( x++ ))`), a loop variable (`for PATH in …`), `${PATH:=…}`, `read`/`printf -v`/`wait -p`, `unset`.
   * They are not exported, but bash reads some of them (PATH, IFS, …): the same positive list applies.
   */
  shellAssigns?: string[];
  /**
   * Variables the command exports without assigning them (`export NAME`, `declare -x NAME`; `export -f f` as
   * `BASH_FUNC_f%%`): every later program gets them, so they are judged like `export NAME=…`.
   */
  exports?: string[];
  /**
   * Text this command evaluates as code (arithmetic, a subscript, a prompt string) whose content the
   * guard cannot see: what and where, for the verdict. Commands the guard can see in such text are
   * facts of their own.
   */
  evaluatesUnknown?: string;
}

export interface FunctionDef {
  name: string;
  text: string;
  /** Calls of the function to itself inside its own body. */
  selfCalls: number;
  /** One of those calls is piped or sent to the background: the shape of a fork bomb. */
  selfForks: boolean;
  /** Its body carries a redirect (`f() { …; } > file`): every call writes there. */
  redirect: boolean;
}

export interface SyntaxProblem {
  line: number;
  column: number;
  /** The likely cause, for a person and a model. */
  cause: string;
  /** Where in nested code, e.g. "in the string given to bash -c". */
  where?: string;
}

export interface Script {
  commands: Command[];
  functions: FunctionDef[];
  problem: SyntaxProblem | null;
  /** Too deep or too large to check completely: the guard fails closed. */
  incomplete: string | null;
}

/**
 * The variable a name sets: `PATH[0]` sets PATH (element 0 of a scalar is the scalar, and bash runs every element
 * of a PROMPT_COMMAND array), so an element is judged by its array's name. Null when it is not a name at all (a
 * value computed at run time).
 */
export function variableOf(name: string): string | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^]*\])?$/.exec(name);
  return m ? m[1]! : null;
}
