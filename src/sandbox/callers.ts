// What belongs to one caller (an API connection, or the sandbox's owner: the UI or the Node code that made it).
//
// - Rules a client added by answering its own approval ("always" under approver "host") hold for that connection
//   only: its guard is the sandbox's rules plus its own; other connections and the owner never see them.
// - Background jobs have an owner: the caller that started them. Only that caller, or the sandbox's owner (a call
//   without a caller: the UI, a Node caller), may read or stop a job. A job whose owner is not recorded yet (the
//   moment between its start and its result) belongs to the owner only.
// - The same holds for a command that still runs in the shell after its call returned `running`: only its caller
//   (or the owner) may send it input with is_input or wait for its output.

import { createGuard, type Guard, type Policy, type UserRules } from "../guard/index.ts";

export class Callers {
  private readonly rules = new Map<string, { allow: string[]; guard: Guard }>();
  private readonly jobOwners = new Map<string, string | undefined>();
  /** The caller whose command was left running (undefined: the owner's), or null when none is known to run. */
  private foreground: { caller: string | undefined } | null = null;

  constructor(private readonly options: { policy: Policy; workspace: string; scratch?: string; base: () => Required<UserRules> }) {}

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

  /** A connection ended: its rules go; its jobs stay (the owner may still read and stop them). */
  forget(caller: string): void {
    this.rules.delete(caller);
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

  private build(allow: string[]): Promise<Guard> {
    const base = this.options.base();
    const { policy, workspace, scratch } = this.options;
    return createGuard({ policy, rules: { ...base, allow: [...base.allow, ...allow] }, workspace, ...(scratch !== undefined ? { scratch } : {}) });
  }
}
