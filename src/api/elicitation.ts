// Approvals asked of the host (approver "host"): when the connection's client declared the elicitation capability
// (form mode), a call carries a host approver that asks it with elicitation/create. The request carries the text for a
// person, a form (decision, rule, note) and the approval's facts in _meta; the answer comes back as an ApprovalAnswer.

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { MESSAGES } from "../limits.ts";
import { clip } from "../lib/text.ts";
import type { ApprovalAnswer, ApprovalRequest, HostApprover } from "../sandbox.ts";
import { APPROVAL_META_KEY } from "./protocol.ts";

/** The text a person reads in the host's approval dialog. */
export function approvalMessage(request: ApprovalRequest): string {
  const lines = [
    `The agent wants to run a command that needs your approval${request.background ? " (as a background job)" : ""}:`,
    "",
    clip(request.command, MESSAGES.approvalCommandChars),
    "",
    `In: ${request.cwd}`,
    `Rule: ${request.rule}`,
    `Why: ${request.reason}`,
    "",
    `Choose allow-once, always (adds the rule "${request.suggestedRule}" for this session; you may edit it), or deny (the note goes back to the agent).`,
  ];
  return lines.join("\n");
}

/** The form of an approval elicitation: decision, rule (for "always"), note (for the agent). */
export function approvalSchema(request: ApprovalRequest) {
  return {
    type: "object" as const,
    properties: {
      decision: {
        type: "string" as const,
        title: "Decision",
        description: "Run the command once, run it and allow commands like it for this session, or refuse it.",
        oneOf: [
          { const: "allow-once", title: "Allow once" },
          { const: "always", title: "Always allow (adds the rule)" },
          { const: "deny", title: "Deny" },
        ],
      },
      rule: {
        type: "string" as const,
        title: "Rule for Always allow",
        description: "Commands matching this are allowed for the rest of the session; `*` matches any rest of a word.",
        default: request.suggestedRule,
      },
      note: {
        type: "string" as const,
        title: "Note to the agent",
        description: "Optional: why, or what to do instead; the agent reads it.",
      },
    },
    required: ["decision"],
  };
}

/** Turns an elicitation result into an approval answer. */
export function answerFromElicitation(result: { action: string; content?: Record<string, unknown> }): ApprovalAnswer {
  const content = result.content ?? {};
  const note = typeof content.note === "string" && content.note.trim() !== "" ? content.note.trim() : undefined;
  if (result.action === "accept") {
    const d = content.decision;
    const decision = d === "allow-once" || d === "allow" ? "allow" : d === "always" ? "always" : "deny";
    const answer: ApprovalAnswer = { decision };
    if (decision === "always" && typeof content.rule === "string" && content.rule.trim() !== "") answer.rule = content.rule.trim();
    if (note !== undefined) answer.note = note;
    return answer;
  }
  return {
    decision: "deny",
    note: note ?? (result.action === "decline" ? "The host declined the command." : "The host dismissed the approval without choosing."),
  };
}

/** A host approver that asks the client of `server` (within the tools/call `requestId`), or undefined when it cannot be asked. */
export function elicitingApprover(server: Server, requestId: RequestId): HostApprover | undefined {
  const caps = server.getClientCapabilities();
  const canAsk = caps?.elicitation !== undefined && (caps.elicitation as { form?: unknown }).form !== undefined;
  if (!canAsk) return undefined;
  return async (approval, signal) => {
    const timeout = Math.max(1_000, approval.expiresAt - Date.now());
    const result = await server.elicitInput(
      {
        mode: "form",
        message: approvalMessage(approval),
        requestedSchema: approvalSchema(approval),
        _meta: {
          [APPROVAL_META_KEY]: {
            id: approval.id,
            tool: approval.tool,
            command: approval.command,
            cwd: approval.cwd,
            background: approval.background,
            rule: approval.rule,
            reason: approval.reason,
            layer: approval.verdict.layer,
            suggestedRule: approval.suggestedRule,
            expiresAt: approval.expiresAt,
          },
        },
      },
      { signal, timeout, relatedRequestId: requestId },
    );
    return answerFromElicitation(result as { action: string; content?: Record<string, unknown> });
  };
}
