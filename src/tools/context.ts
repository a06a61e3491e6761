// What a tool works with (given by the sandbox), what it returns, and small formatting helpers shared by the tools.

import type { Guard } from "../guard/index.ts";
import type { Runtime } from "../runtime/types.ts";
import type { ShellSession } from "../shell/session.ts";
import type { Approvals, HostApprover } from "./approvals.ts";

/** The MCP CallToolResult shape: text for a model, isError, and the facts in structuredContent. */
export interface CallToolResult {
  content: Array<{ type: "text"; text: string }>;
  isError?: boolean;
  structuredContent: Record<string, unknown>;
  [key: string]: unknown;
}

export type ToolStatus = "completed" | "running" | "timeout" | "interrupted" | "blocked" | "denied" | "error";

/** The sandbox's side of a tool call: the same for every call. */
export interface ToolContext {
  readonly runtime: Runtime;
  readonly session: ShellSession;
  /** The workspace's real path (symlinks resolved). */
  readonly workspace: string;
  /** The real path of the temp folder the file tools read and write: /tmp, or the node runtime's private one. */
  readonly tmp: string;
  /** What the shell calls that folder: "/tmp" (also on node inside the OS sandbox, which presents it there), or `tmp`. */
  readonly tmpName: string;
  readonly approvals: Approvals;
  /** The guard as it is now (it changes when "Always allow" adds a rule). */
  guard(): Guard;
  /** Adds an allow rule for the rest of the session (from an approval's "Always allow"). */
  /** Adds an allow rule from an approval's "Always allow": for the sandbox, or for the calling connection only when its own client answered. */
  alwaysAllow(rule: string, from: { command: string; callId: string; caller?: string; tool: string; approvalId?: string }): Promise<void>;
  /** Null when this call's caller may read or stop the job, else why not (jobs belong to the caller that started them). */
  jobRefusal(jobId: string): string | null;
  /**
   * Null when this call's caller may use the file at a resolved real path with the file tools, else why not (another
   * caller's spill file). Absent: every path inside the roots may be used.
   */
  pathRefusal?(realPath: string): string | null;
}

/** One call's side. */
export interface CallInfo {
  id: string;
  caller?: string;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  /** The caller's host approver (MCP elicitation), for approver "host". */
  host?: HostApprover;
  /** Adds an entry to the audit log, tagged with this call. */
  record(type: string, data: Record<string, unknown>): void;
}

/** What a tool returns; tools/index.ts turns it into a CallToolResult. */
export interface ToolOutcome {
  text: string;
  isError?: boolean;
  structured: Record<string, unknown> & { status: ToolStatus };
}

export function errorOutcome(text: string, extra: Record<string, unknown> = {}): ToolOutcome {
  return { text, isError: true, structured: { status: "error", ...extra } };
}
