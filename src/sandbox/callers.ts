// What belongs to one caller (an API connection, or the sandbox's owner: the UI or the Node code that made it).
//
// - Rules a client added by answering its own approval ("always" under approver "host") hold for that connection
//   only: its guard is the sandbox's rules plus its own; other connections and the owner never see them.
// - Background jobs have an owner: the caller that started them. Only that caller, or the sandbox's owner (a call
//   without a caller: the UI, a Node caller), may read or stop a job. A job whose owner is not recorded yet (the
//   moment between its start and its result) belongs to the owner only.
// - The same holds for a command that still runs in the shell after its call returned `running`: only its caller
//   (or the owner) may send it input with is_input or wait for its output.
// - Spill files (the whole output of a long command or job, in the sandbox's spill folder) belong to the caller whose
//   command or job wrote them: the file tools refuse them to other connections, as job_output does. (bash in the same
//   shell can still read them: docs/THREAT_MODEL.md says so.)
// - A connection that ends leaves nothing behind (forget): its rules go, and the sandbox interrupts its running
//   command and kills its jobs (src/sandbox.ts).

import { createGuard, type Guard, type Policy, type UserRules } from "../guard/index.ts";
import { baseName, parentOf } from "../lib/paths.ts";

/** The names the shell gives spill files (src/shell/spill.ts): a job's output, a command's output, a long command. */
const SPILL_NAME = /^(?:(job-\d+)-output|out|cmd)-\d+\.(?:log|sh)$/;

export class Callers {
  private readonly rules = new Map<string, { allow: string[]; guard: Guard }>();
  private readonly jobOwners = new Map<string, string | undefined>();
  /** The caller whose command was left running (undefined: the owner's), or null when none is known to run. */
  private foreground: { caller: string | undefined } | null = null;

  /** Callers whose connection has ended. */
  private readonly released = new Set<string>();
  /** Spill files by real path: the caller whose command or job wrote them (undefined: the owner's). */
  private readonly spillOwners = new Map<string, string | undefined>();

  constructor(private readonly options: { policy: Policy; workspace: string; scratch?: string; base: () => Required<UserRules>; spillDir?: string }) {}

  /** The guard for a caller: its own guard when it added rules, else the sandbox's. */
  guardFor(caller: string | undefined, base: Guard): Guard {
    return caller === undefined ? base : (this.rules.get(caller)?.guard ?? base);
  }

  /** The rules only this caller's calls match. */
  rulesOf(caller: string): string[] {
    return [...(this.rules.get(caller)?.allow ?? [])];
  }

  /** Adds an allow rule for one connection's calls. */
  async allowFor(caller: string, rule: string): Promise<void> {
    const own = this.rules.get(caller)?.allow ?? [];
    if (own.includes(rule)) return;
    const allow = [...own, rule];
    this.rules.set(caller, { allow, guard: await this.build(allow) });
  }

  /** The sandbox's own rules changed: every caller's guard is rebuilt on them. */
  async rebuild(): Promise<void> {
    for (const [caller, entry] of [...this.rules]) this.rules.set(caller, { allow: entry.allow, guard: await this.build(entry.allow) });
  }

  /**
   * A connection ended: its rules go, and it no longer owns the shell. Says whether a command of its own still runs in
   * the shell (for the sandbox to interrupt) and which jobs it started (for the sandbox to kill; their output stays
   * readable by the owner).
   */
  forget(caller: string): { foreground: boolean; jobs: string[] } {
    this.rules.delete(caller);
    this.released.add(caller);
    // The shell stays this caller's (others are still refused) until the sandbox has interrupted its command.
    return this.leftBy(caller);
  }

  /** What a caller has in the shell: a command of its own left running, and the jobs it started. */
  leftBy(caller: string): { foreground: boolean; jobs: string[] } {
    const foreground = this.foreground !== null && this.foreground.caller === caller;
    const jobs = [...this.jobOwners].filter(([, owner]) => owner === caller).map(([id]) => id);
    return { foreground, jobs };
  }

  /** True once the caller's connection has ended. */
  isReleased(caller: string): boolean {
    return this.released.has(caller);
  }

  /** Whose command was left running (or ended unread) in the shell: a caller id, undefined for the owner, null for none. */
  foregroundOwner(): { caller: string | undefined } | null {
    return this.foreground;
  }

  /** Whose command still runs in the shell after its call returned `running` (is_input feeds it, and reads its output); null: none. */
  setForegroundOwner(caller: string | undefined | null): void {
    this.foreground = caller === null ? null : { caller };
  }

  /** While a command still runs: null when `caller` may send it input (or wait for it), else why not. */
  foregroundRefusal(caller: string | undefined): string | null {
    if (caller === undefined || this.foreground === null || caller === this.foreground.caller) return null;
    return (
      "A command is still running for another caller, so this command was NOT run, and neither input nor a wait " +
      "reaches that command: its input and output are that caller's. Try again when it has finished, or start your " +
      'work as a background job: bash {"command": "…", "run_in_background": true}.'
    );
  }

  setJobOwner(jobId: string, caller: string | undefined): void {
    this.jobOwners.set(jobId, caller);
  }

  /** Null when `caller` may act on the job, else why not. */
  jobRefusal(jobId: string, caller: string | undefined): string | null {
    if (caller === undefined) return null; // the sandbox's owner (UI, Node caller)
    if (this.jobOwners.has(jobId) && this.jobOwners.get(jobId) === caller) return null;
    return `${jobId} was started by another caller; only the caller that started a job (or the person at the sandbox) can read or stop it. Start your own with bash {"command": "…", "run_in_background": true}.`;
  }

  /** Records whose command or job wrote a spill file (its path as a result named it). */
  setSpillOwner(path: string, caller: string | undefined): void {
    if (!this.spillOwners.has(path)) this.spillOwners.set(path, caller);
  }

  /**
   * Null when `caller` may read the file at `realPath` with the file tools, else why not: a spill file of another
   * caller's command or job (a job's by its name, job-N-output-K.log; a command's once its result named it). A spill
   * file whose writer is not known (a command's output while it still runs, a long command saved to run) is the
   * owner's only.
   */
  spillRefusal(realPath: string, caller: string | undefined): string | null {
    const dir = this.options.spillDir;
    if (caller === undefined || dir === undefined || parentOf(realPath) !== dir) return null;
    const m = SPILL_NAME.exec(baseName(realPath));
    if (m === null) return null;
    const job = m[1];
    const known = this.spillOwners.has(realPath)
      ? { owner: this.spillOwners.get(realPath) }
      : job !== undefined && this.jobOwners.has(job)
        ? { owner: this.jobOwners.get(job) }
        : null;
    if (known !== null && known.owner === caller) return null;
    return (
      `${realPath} holds the output of ${job !== undefined ? `${job}` : "a command"}${known === null ? " that is not known to be yours" : " of another caller"}: ` +
      "only the caller that ran it (or the person at the sandbox) reads it with the file tools. Read your own jobs with " +
      'job_output {"id": "job-N"}, and the whole output of your own commands through the path their result names.'
    );
  }

  private build(allow: string[]): Promise<Guard> {
    const base = this.options.base();
    const { policy, workspace, scratch } = this.options;
    return createGuard({ policy, rules: { ...base, allow: [...base.allow, ...allow] }, workspace, ...(scratch !== undefined ? { scratch } : {}) });
  }
}
