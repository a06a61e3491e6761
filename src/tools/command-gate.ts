// The gate a command passes before it runs: the guard's verdict (deny: not run, the blocked error object and a hint)
// and, when it asks, a person's approval (denied: not run, in words that say who denied it and why it was asked). The
// bash tool and the file tools (confine.ts writeGate) pass the same gate.

import { toBlockedError, type Verdict } from "../guard/index.ts";
import { approverWords, type ApprovalOutcome, type ApprovalRequest } from "./approvals.ts";
import type { CallInfo, ToolContext, ToolOutcome } from "./context.ts";
import { formatDuration } from "../lib/text.ts";

function blockedOutcome(v: Verdict, cwd: string, t0: number): ToolOutcome {
  const error = toBlockedError(v);
  const lines = [error.error, `Rule: ${v.rule} (layer ${v.layer})${v.part && v.part !== "" ? ` · part: ${v.part}` : ""}`];
  if (v.hint) lines.push(`Hint: ${v.hint}`);
  lines.push("The command was not run.");
  return {
    text: lines.join("\n"),
    isError: true,
    structured: { status: "blocked", error, verdict: v, cwd, durationMs: Math.round(performance.now() - t0) },
  };
}

function expiryText(ms: number): string {
  return formatDuration(ms).replace(/^1 min$/, "1 minute").replace(/ min$/, " minutes");
}

function deniedOutcome(host: ToolContext, v: Verdict, o: ApprovalOutcome, cwd: string, t0: number): ToolOutcome {
  const approval = { id: o.id, decision: o.decision, by: o.by, ...(o.note ? { note: o.note } : {}) };
  const base = { verdict: v, cwd, durationMs: Math.round(performance.now() - t0), approval };
  if (o.by === "cancel") {
    return {
      text: "The call was cancelled while the command waited for approval; the command was not run.",
      isError: true,
      structured: { status: "interrupted", ...base },
    };
  }
  const lines: string[] = [];
  if (o.by === "expiry") {
    lines.push(`No one answered the approval request within ${expiryText(host.approvals.expiryMs)}, so it was denied. The command was not run.`);
  } else if (o.by === "policy") {
    lines.push('This sandbox refuses every command that needs approval (approver "deny"). The command was not run.');
  } else if (o.by === "closed") {
    lines.push("The sandbox was closed before the command was approved. The command was not run.");
  } else {
    const who = o.by === "function" ? "This sandbox's approver" : o.by === "host" ? "The host page" : "A person";
    lines.push(`${who} denied this command${o.by === "host" ? " (asked through the host application)" : ""}. It was not run.`);
  }
  lines.push(`It needed approval because: ${v.reason}`);
  if (o.note) lines.push(`${o.by === "function" ? "Note from the approver" : o.by === "host" ? "Note from the host page" : "Note from the person"}: ${o.note}`);
  else if (o.by === "ui" || o.by === "host" || o.by === "function") lines.push("Do not retry the same command; ask the person or do it another way.");
  if (o.by === "policy" && v.hint) lines.push(`Hint: ${v.hint}`);
  return { text: lines.join("\n"), isError: true, structured: { status: "denied", ...base } };
}

export interface Gate {
  verdict: Verdict;
  approvalLine: string | null;
  approval: Record<string, unknown> | undefined;
}

/**
 * The guard's verdict on `command`, and a person's approval when it asks: a result to return, or leave to run. The file
 * tools ask it too, about the same write from bash (files.ts), with their tool's name and an exact suggested rule.
 */
export async function gate(
  host: ToolContext,
  call: CallInfo,
  command: string,
  cwd: string,
  background: boolean,
  t0: number,
  tool: ApprovalRequest["tool"] = "bash",
  exactRule?: string,
): Promise<Gate | { outcome: ToolOutcome }> {
  const verdict = host.guard().check(command, { cwd });
  call.record("verdict", { command, cwd, verdict });
  if (verdict.decision === "deny") return { outcome: blockedOutcome(verdict, cwd, t0) };

  let approvalLine: string | null = null;
  let approval: Record<string, unknown> | undefined;
  if (verdict.decision === "ask") {
    // About the part that asked, and never broader than a write it asks about (only when it asks: it parses again).
    const suggestedRule = exactRule ?? host.guard().suggestRule(command, { cwd });
    const outcome = await host.approvals.request(
      {
        tool,
        command,
        cwd,
        background,
        verdict,
        rule: verdict.rule,
        reason: verdict.reason,
        suggestedRule,
        ...(call.caller !== undefined ? { caller: call.caller } : {}),
        callId: call.id,
      },
      { signal: call.signal, host: call.host },
    );
    approval = { id: outcome.id, decision: outcome.decision, by: outcome.by, ...(outcome.note ? { note: outcome.note } : {}) };
    if (outcome.decision === "deny") return { outcome: deniedOutcome(host, verdict, outcome, cwd, t0) };
    const who = approverWords(outcome.by);
    if (outcome.decision === "always") {
      const rule = outcome.rule ?? suggestedRule;
      approval.rule = rule;
      await host.alwaysAllow(rule, {
        command,
        callId: call.id,
        tool,
        ...(call.caller !== undefined ? { caller: call.caller } : {}),
        ...(outcome.id ? { approvalId: outcome.id } : {}),
      });
      approvalLine = `Approved by ${who}, who also allowed \`${rule}\` for the rest of this session.`;
    } else {
      approvalLine = `Approved by ${who} for this one run.`;
    }
    if (outcome.note) approvalLine += ` Their note: ${outcome.note}`;
    if (call.signal?.aborted) {
      return { outcome: { text: "The call was cancelled before the command ran.", isError: true, structured: { status: "interrupted", cwd, verdict, approval } } };
    }
  }

  return { verdict, approvalLine, approval };
}
