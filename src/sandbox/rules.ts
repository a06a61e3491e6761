// The sandbox's rules and guard, and what approvals do to them.
//
// - The user rules (given, plus those added in this session) and the guard built from them.
// - "Always allow" from an approval adds a rule: for the whole sandbox when a person (the UI) or the sandbox's own
//   approver function answered; for the calling connection only when its own client answered (approver "host"),
//   since a client approving itself must not reach other callers (src/sandbox/callers.ts keeps those rules).
// - Every approval event becomes an audit entry, and every added rule one more.

import { createGuard, type Decision, type Guard, type Policy, type UserRules } from "../guard/index.ts";
import type { AuditType } from "../audit/log.ts";
import type { ApprovalEvent, ApprovalOutcome, Approvals } from "../tools/approvals.ts";
import { Callers } from "./callers.ts";

type Record_ = (type: AuditType, data: Record<string, unknown>) => unknown;

export class SandboxRules {
  readonly callers: Callers;
  private readonly user: Required<UserRules>;
  /** "Always" answers waiting for bash to add their rule: who gave them decides the rule's scope. */
  private readonly always = new Map<string, ApprovalOutcome>();

  private constructor(
    private readonly policy: Policy,
    private readonly workspace: string,
    rules: UserRules | undefined,
    private current: Guard,
    private readonly record: Record_,
    /** The writable scratch folder when it is not /tmp (GuardOptions.scratch). */
    private readonly scratch: string | undefined,
    spillDir: string | undefined,
  ) {
    this.user = { allow: [...(rules?.allow ?? [])], ask: [...(rules?.ask ?? [])], deny: [...(rules?.deny ?? [])] };
    this.callers = new Callers({
      policy,
      workspace,
      base: () => this.user,
      ...(scratch !== undefined ? { scratch } : {}),
      ...(spillDir !== undefined ? { spillDir } : {}),
    });
  }

  /**
   * `where.scratch`: the writable scratch folder when it is not /tmp (GuardOptions.scratch); `where.spillDir`: the real
   * path of the shell's spill folder, whose files belong to the caller that wrote them.
   */
  static async create(
    policy: Policy,
    workspace: string,
    rules: UserRules | undefined,
    record: Record_,
    where: { scratch?: string | undefined; spillDir?: string | undefined } = {},
  ): Promise<SandboxRules> {
    const copy = { allow: [...(rules?.allow ?? [])], ask: [...(rules?.ask ?? [])], deny: [...(rules?.deny ?? [])] };
    const { scratch, spillDir } = where;
    const guard = await createGuard({ policy, rules: copy, workspace, ...(scratch !== undefined ? { scratch } : {}) });
    return new SandboxRules(policy, workspace, copy, guard, record, scratch, spillDir);
  }

  guard(): Guard {
    return this.current;
  }

  /** The guard a caller's calls are checked by: the sandbox's, plus rules its own client added. */
  guardFor(caller: string | undefined): Guard {
    return this.callers.guardFor(caller, this.current);
  }

  list(): UserRules {
    return { allow: [...this.user.allow], ask: [...this.user.ask], deny: [...this.user.deny] };
  }

  /** Adds a rule for the whole sandbox. */
  async add(rule: string, decision: Decision = "allow", from?: Record<string, unknown>): Promise<void> {
    const text = typeof rule === "string" ? rule.trim() : "";
    if (text === "") throw new TypeError("a rule is a non-empty string, e.g. `npm run build:*`");
    if (decision !== "allow" && decision !== "ask" && decision !== "deny") throw new TypeError(`decision must be allow, ask or deny, not ${JSON.stringify(decision)}`);
    if (!this.user[decision].includes(text)) {
      this.user[decision].push(text);
      this.current = await createGuard({ policy: this.policy, rules: this.user, workspace: this.workspace, ...(this.scratch !== undefined ? { scratch: this.scratch } : {}) });
      await this.callers.rebuild();
    }
    this.record("rule", { decision, rule: text, ...(from ?? {}) });
  }

  /** "Always allow" from an approval: a rule for the sandbox, or for one connection when its own client answered. */
  async alwaysAllow(rule: string, from: { caller?: string; approvalId?: string } & Record<string, unknown>): Promise<void> {
    const outcome = from.approvalId !== undefined ? this.always.get(from.approvalId) : undefined;
    if (from.approvalId !== undefined) this.always.delete(from.approvalId);
    if (outcome?.by === "host" && from.caller !== undefined) {
      await this.callers.allowFor(from.caller, rule.trim());
      this.record("rule", { decision: "allow", rule: rule.trim(), source: "approval", scope: "connection", by: "host", ...from });
      return;
    }
    await this.add(rule, "allow", { source: "approval", scope: "sandbox", ...from });
  }

  /** Records approval events and remembers who answered "always". */
  watch(approvals: Approvals): () => void {
    return approvals.on((event: ApprovalEvent) => {
      const r = event.request;
      const base = { callId: r.callId, caller: r.caller, tool: r.tool, approvalId: r.id, command: r.command, rule: r.rule, route: r.route };
      if (event.type === "requested") {
        this.record("approval", { ...base, phase: "requested", suggestedRule: r.suggestedRule, expiresAt: new Date(r.expiresAt).toISOString() });
      } else if (event.type === "rerouted") {
        this.record("approval", { ...base, phase: "rerouted", reason: event.reason });
      } else {
        const o = event.outcome;
        if (o.decision === "always" && o.id !== undefined) this.always.set(o.id, o);
        const always = o.decision === "always";
        this.record("approval", {
          ...base,
          phase: "resolved",
          decision: o.decision,
          by: o.by,
          note: o.note,
          addedRule: always ? (o.rule ?? r.suggestedRule) : undefined,
          scope: always ? (o.by === "host" ? "connection" : "sandbox") : undefined,
        });
      }
    });
  }
}
