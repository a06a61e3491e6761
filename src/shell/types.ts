// The session's public types: what a call gets back and what it may ask. Structured facts only; the bash tool writes
// the words for the agent (src/tools/bash.ts).

import type { Runtime, Unsubscribe } from "../runtime/types.ts";
import type { JobInfo, JobOutput } from "./jobs.ts";

export type ShellStatus = "completed" | "running" | "timeout" | "interrupted";

export interface ShellResult {
  /** The command's own output since the previous call returned: no prompt, no echo, no markers; cleaned, bounded. */
  output: string;
  /** Null while the command runs, or when no exit code could be known. */
  exitCode: number | null;
  /** The shell's working directory as last reported. */
  cwd: string;
  durationMs: number;
  status: ShellStatus;
  truncated: boolean;
  /** Where the whole output went when it was truncated. */
  fullOutputPath?: string;
  /** Facts the agent must know beyond the output: a fresh shell, a kill, a command that ended unobserved. */
  notice?: string;
  /** For a `running` result that returned before the command ended: why (the bash tool turns it into advice). */
  waiting?: { reason: "prompt" | "quiet"; lastLine: string; quietMs: number };
  /** Set when the call was refused or had nothing to act on; nothing was sent to the shell then. */
  error?: string;
  /**
   * Why it was refused, as data: `busy` (a command runs: wait, answer or stop it), `person`, `closed`, `idle`; `lost`:
   * the command was typed but never reached the shell (another process took the terminal and its input), so it did
   * not run.
   */
  refused?: "busy" | "person" | "closed" | "idle" | "shell" | "control" | "lost";
}

export interface RunOptions {
  /** Hard timeout of this call, in seconds (default SHELL.defaultTimeoutSec, at most SHELL.maxTimeoutSec). */
  timeoutSec?: number;
  /** Return `running` after this many seconds without new output (default SHELL.softTimeoutSec). */
  softTimeoutSec?: number;
  /** Cleaned output as it arrives (for streaming to a UI or as progress notifications). */
  onOutput?: (chunk: string) => void;
}

export interface InputOptions extends RunOptions {
  /** Add Enter after text (default true); false sends the keys alone, for programs that read single keys. */
  enter?: boolean;
}

export interface ShellState {
  state: "starting" | "idle" | "running" | "closed";
  /** Who runs the current command. */
  by?: "agent" | "person";
  /** The agent's command, while it runs. */
  command?: string;
  cwd: string;
}

export interface ShellSessionOptions {
  /** Terminal size of the agent's shell: wide, so programs do not wrap or truncate for the agent. */
  cols?: number;
  rows?: number;
  softTimeoutSec?: number;
  timeoutSec?: number;
  promptQuietMs?: number;
  interruptGraceMs?: number;
  maxOutputChars?: number;
  /** Where long output is spilled (default SHELL.spillDir, in the runtime's file system). */
  spillDir?: string;
  maxJobs?: number;
  /** How long a new shell may take to show its first prompt. */
  startupTimeoutMs?: number;
  /**
   * A command longer than this is saved to `${spillDir}/cmd-K.sh` and run with `. FILE`: a line editor takes typed
   * input a byte at a time (readline: about 200 KB/s), a file is read at once. Infinity turns this off.
   */
  largeCommandChars?: number;
}

export interface SessionStats {
  /** Commands run (run() calls that reached the shell). */
  commands: number;
  /** Largest number of output characters an OutputCollector held at once. */
  peakRetainedChars: number;
  /** Largest spill backlog (characters waiting for the file system). */
  peakSpillBacklogChars: number;
  /** Shells started, the first included. */
  shellsStarted: number;
}

export interface ShellSession {
  readonly runtime: Runtime;
  /** Runs a command in the persistent shell. Never throws for shell trouble: the result says what happened. */
  run(command: string, options?: RunOptions): Promise<ShellResult>;
  /**
   * Sends text (Enter is added unless it ends with a newline) or a named key (`C-c`, `Up`, … see keys.ts) to the
   * running command; "" only waits for more output.
   */
  input(textOrKey: string, options?: InputOptions): Promise<ShellResult>;
  /** Stops the running command: C-c, and when that does not end it within the grace, a fresh shell. */
  interrupt(): Promise<ShellResult>;
  /** Kills the shell and every background job; starts a fresh shell in the workspace. */
  restart(): Promise<{ cwd: string; notice: string }>;
  close(): Promise<void>;
  readonly cwd: string;
  readonly busy: boolean;
  /**
   * The program that reads the terminal now, where the runtime knows it (node: the foreground process's name): text
   * sent with input() goes to it. A shell here means the text would run as a command.
   */
  foreground(): string | undefined;
  /**
   * A shell that reads what input() sends as command lines, where one can be seen: the foreground program itself (a
   * nested `bash`), or (node) an interactive shell anywhere under it (python's pty.spawn, `script -qc bash`). Its name.
   */
  readerShell(): string | undefined;
  readonly stats: SessionStats;
  /** Raw terminal output, markers included (xterm ignores them), for a terminal view. */
  onRawOutput(listener: (chunk: string) => void): Unsubscribe;
  /** Keystrokes from a person: held back while an agent command runs (C-c excepted), forwarded otherwise. */
  writeFromPerson(data: string): void;
  onState(listener: (state: ShellState) => void): Unsubscribe;
  resize(cols: number, rows: number): void;
  startJob(command: string): Promise<JobInfo>;
  jobOutput(id: string, options?: { waitSec?: number }): Promise<JobOutput>;
  listJobs(): JobInfo[];
  killJob(id: string): Promise<JobInfo>;
}

