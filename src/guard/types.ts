// The guard's public types (fixed in shared/ARCHITECTURE.md) and the rows its rules are made of.

export type Decision = "allow" | "ask" | "deny";
export type Layer = 0 | 1 | 2 | 3;
export type Policy = "strict" | "balanced" | "permissive";

export interface Verdict {
  decision: Decision;
  /** 0 argument shape/syntax, 1 dangerous operation, 2 workspace, 3 allowlist/policy */
  layer: Layer;
  /** Stable id, e.g. "literal-argument", "recursive-delete-root". */
  rule: string;
  /** One sentence for a person. */
  reason: string;
  /** What the agent should do instead. */
  hint?: string;
  /** The sub-command that decided it. */
  part?: string;
}

/** Claude Code's grammar: `npm run test:*` (prefix at a word boundary), `git push:*`, exact commands, `*` globs. */
export interface UserRules {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

export interface GuardOptions {
  policy?: Policy;
  rules?: UserRules;
  /** The agent's workspace (default /home/project): writable, with /tmp. */
  workspace?: string;
  /** What `~` and `$HOME` mean in the sandbox (default: the workspace). */
  home?: string;
  /**
   * The writable scratch folder, with the workspace (default /tmp). Where the sandbox's /tmp is read-only (the node
   * runtime on macOS), its private $TMPDIR: then a write to /tmp is judged as a write outside, as it would fail.
   */
  scratch?: string;
}

export interface CheckContext {
  /** The shell's working directory when the command runs (default: the workspace). */
  cwd?: string;
}

export interface Guard {
  readonly policy: Policy;
  readonly workspace: string;
  check(command: string, context?: CheckContext): Verdict;
  /**
   * The rule "Always allow" would add for `command` when it asks: about the part that asked; the exact part where
   * a prefix could write elsewhere (a config file, shell state, a variable), else its program's prefix.
   */
  suggestRule(command: string, context?: CheckContext): string;
}
