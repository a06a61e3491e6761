// The Node entry: createSandbox for the node runtime (real bash on node-pty) and the embedded runtime (just-bash in
// worker threads), the guard, and the types. Node programs and tests use exactly what the browser uses.

import { createNodeRuntime, type NodeRuntimeOptions } from "./runtime/node.ts";
import type { SandboxMode } from "./runtime/node/sandbox.ts";
import type { Approver } from "./tools/approvals.ts";
import { createSandbox as createCoreSandbox, openSandbox, type RuntimeChoice, type Sandbox, type SandboxOptions } from "./sandbox.ts";

export interface NodeSandboxOptions extends SandboxOptions {
  /**
   * Who answers approvals. Default here "deny" (refused at once); "ui" keeps requests in sandbox.approvals.pending()
   * for your own interface to answer; or a function `(request) => boolean | { decision, rule?, note? }`.
   */
  approver?: Approver; // not SandboxOptions["approver"]: that includes undefined, which exactOptionalPropertyTypes refuses here
  /**
   * "node" (default; also what "auto" means here): real bash in a pseudo-terminal, in `workspace` or a fresh temporary
   * folder. "embedded": just-bash in worker threads. A Runtime instance is used as is.
   */
  runtime?: RuntimeChoice;
  /**
   * The node runtime's OS sandbox (docs/sandbox.md): "auto" (default) sandboxes where the OS allows and otherwise says
   * "unsandboxed" in runtimeInfo.isolation; "required" makes that an error; "off" runs the shell as the host user.
   */
  sandbox?: SandboxMode;
  /** Domains the node runtime's shell may reach (`registry.npmjs.org`, `*.github.com`). Default: no network. */
  network?: { allow: string[] };
}

/** Creates a sandbox in Node. Without a workspace, the node runtime works in a fresh temporary folder (removed on close). */
export async function createSandbox(given: NodeSandboxOptions = {}): Promise<Sandbox> {
  // No playground answers approvals in Node unless the caller builds one: without an approver, a command that needs
  // approval is refused at once (and says so) instead of waiting APPROVALS.expiryMs for nobody.
  const options: NodeSandboxOptions = { ...given, approver: given.approver ?? "deny" };
  const choice = options.runtime ?? "node";
  if (choice === "node" || choice === "auto") {
    const runtimeOptions: NodeRuntimeOptions = { ...(options.runtimeOptions?.node ?? {}) };
    if (options.workspace !== undefined) runtimeOptions.workspace = options.workspace;
    if (options.sandbox !== undefined) runtimeOptions.mode = options.sandbox;
    if (options.network !== undefined) runtimeOptions.network = options.network;
    const runtime = await createNodeRuntime(runtimeOptions);
    // Spill files go to the sandbox's private temp directory (removed on close), not a /tmp shared with other sandboxes.
    return openSandbox(runtime, true, { ...options, shell: { spillDir: runtime.tempDir, ...options.shell } });
  }
  if (choice === "webcontainer") {
    throw new Error('The "webcontainer" runtime runs only in a browser page; in Node use "node" or "embedded".');
  }
  return createCoreSandbox(options);
}

export { createNodeRuntime, type NodeRuntime, type NodeRuntimeOptions } from "./runtime/node.ts";
export type { Isolation, SandboxMode } from "./runtime/node/sandbox.ts";
export { createEmbeddedRuntime, type EmbeddedRuntimeOptions } from "./runtime/embedded/index.ts";
export type { AuditEntry, AuditType, CallOptions, RuntimeChoice, RuntimeInfo, Sandbox, SandboxCallOptions, SandboxOptions } from "./sandbox.ts";
export {
  Approvals,
  listTools,
  parseToolArguments,
  TOOL_NAMES,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalEvent,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Approver,
  type ApproverFunction,
  type CallToolResult,
  type HostApprover,
  type ToolInfo,
  type ToolName,
  type ToolStatus,
} from "./tools/index.ts";
export {
  createGuard,
  looksLikePythonLiteralArgument,
  suggestRuleFor,
  toBlockedError,
  POLICIES,
  type Decision,
  type Guard,
  type GuardOptions,
  type Layer,
  type Policy,
  type UserRules,
  type Verdict,
} from "./guard/index.ts";
export type { Capabilities, Runtime, RuntimeKind, RuntimeFs } from "./runtime/types.ts";
export type { ShellResult, ShellSession, ShellSessionOptions, ShellState } from "./shell/session.ts";
export * as limits from "./limits.ts";
