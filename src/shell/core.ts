// What the parts of a session share: the resolved options, the running command, the working directory, the person at
// the terminal and the statistics. Data only; each part (process.ts, stream.ts, lifecycle.ts) acts on it.

import { SHELL } from "../limits.ts";
import type { Runtime } from "../runtime/types.ts";
import type { RunningCommand } from "./command.ts";
import { JobNotices } from "./job-notices.ts";
import { PersonInput } from "./person.ts";
import type { SessionStats, ShellResult, ShellSessionOptions } from "./types.ts";
import { clampTimeout } from "./util.ts";

export interface SessionConfig {
  cols: number;
  rows: number;
  softSec: number;
  hardSec: number;
  promptQuietMs: number;
  graceMs: number;
  maxOutputChars: number;
  startupTimeoutMs: number;
  largeCommandChars: number;
}

export function resolveConfig(options: ShellSessionOptions): SessionConfig {
  return {
    cols: options.cols ?? SHELL.agentCols,
    rows: options.rows ?? SHELL.agentRows,
    softSec: options.softTimeoutSec ?? SHELL.softTimeoutSec,
    hardSec: clampTimeout(options.timeoutSec, SHELL.defaultTimeoutSec),
    promptQuietMs: options.promptQuietMs ?? SHELL.promptQuietMs,
    graceMs: options.interruptGraceMs ?? SHELL.interruptGraceMs,
    maxOutputChars: options.maxOutputChars ?? SHELL.maxOutputChars,
    startupTimeoutMs: options.startupTimeoutMs ?? SHELL.startupTimeoutMs,
    largeCommandChars: options.largeCommandChars ?? SHELL.largeCommandChars,
  };
}

export class SessionCore {
  /** The agent's command from the moment run() claims the shell until its end is handed on. */
  active: RunningCommand | null = null;
  /** A command that ended while no call waited on it: handed to the next call. */
  finished: Promise<ShellResult> | null = null;
  closed = false;
  /** The shell's working directory as last verified (or reported, where the runtime cannot verify). */
  cwd: string;
  readonly person = new PersonInput();
  /** Which command started each of the shell's jobs (their notices belong to it). */
  readonly jobNotices = new JobNotices();
  readonly stats: SessionStats = { commands: 0, peakRetainedChars: 0, peakSpillBacklogChars: 0, shellsStarted: 0 };

  constructor(
    readonly runtime: Runtime,
    readonly config: SessionConfig,
    /** Tells state listeners when the session's state may have changed. */
    readonly emitState: () => void,
  ) {
    this.cwd = runtime.workspace;
  }
}
