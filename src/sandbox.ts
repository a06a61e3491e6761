// The sandbox: runtime + one persistent shell + guard + approvals + tools, as one object. The UI and the API are two
// peers on top of it; neither sits on the other's path.
//
// - Several callers share the one shell. Their bash calls queue (one at a time: check, approval, run), so a second
//   caller waits instead of being refused; only a call that arrives while a command still runs after returning
//   `running` (soft timeout) gets the session's "still running" refusal, as designed.
// - Every call, verdict, approval, added rule and result goes to an audit log (in memory, bounded, JSONL export), and
//   to onActivity listeners as it happens.

import { createGuard, type Decision, type Guard, type Policy, type UserRules } from "./guard/index.ts";
import { AUDIT } from "./limits.ts";
import type { SelectRuntimeOptions } from "./runtime/select.ts";
import type { Capabilities, Runtime, RuntimeKind, Unsubscribe } from "./runtime/types.ts";
import { createShellSession, type ShellSession, type ShellSessionOptions } from "./shell/session.ts";
import { Approvals, type ApprovalEvent, type Approver, type HostApprover } from "./tools/approvals.ts";
import type { CallInfo, CallToolResult, ToolHost } from "./tools/context.ts";
import { runTool } from "./tools/index.ts";
import { listTools, type ToolInfo } from "./tools/specs.ts";

export type RuntimeChoice = "auto" | "webcontainer" | "embedded" | "node" | Runtime;

export interface SandboxOptions {
  /**
   * Where the shell runs. Default "auto": in a browser WebContainer when it can boot, else embedded (runtimeInfo.note
   * says why); in Node the node runtime. A Runtime instance is used as is and not disposed by close().
   */
  runtime?: RuntimeChoice;
  policy?: Policy;
  /** User rules (Claude Code's grammar). "Always allow" adds to these for the session. */
  rules?: UserRules;
  /** Who answers approvals: "ui" (default), "host", "deny", or a function. */
  approver?: Approver;
  /** The workspace of a runtime the sandbox creates (ignored for a Runtime instance). */
  workspace?: string;
  /** How long a pending approval waits before it is denied (default APPROVALS.expiryMs). */
  approvalExpiryMs?: number;
  /** Options of the shell session (timeouts, output limits). */
  shell?: ShellSessionOptions;
  /** Passed to selectRuntime (progress callback, per-runtime options) when the sandbox creates the runtime. */
  runtimeOptions?: SelectRuntimeOptions;
}

export interface CallOptions {
  /** Aborting interrupts the command with C-c (and cancels a queued call or a pending approval). */
  signal?: AbortSignal;
  /** Cleaned output as it arrives, while a bash command runs. */
  onOutput?: (chunk: string) => void;
  /** Who calls (the API layer's connection id); recorded in the audit log and on approval requests. */
  caller?: string;
  /** For approver "host": asks this call's client (MCP elicitation/create). Without one, the UI is asked. */
  hostApprover?: HostApprover;
}

export interface RuntimeInfo {
  kind: RuntimeKind;
  /** Why this runtime serves, when the runtime says (e.g. a fallback). */
  note?: string;
  capabilities: Capabilities;
  workspace: string;
}

export type AuditType = "call" | "verdict" | "approval" | "rule" | "result" | "event";

/** One line of the audit log. Further fields by type: see README ("Audit log"). */
export interface AuditEntry {
  seq: number;
  /** ISO 8601. */
  time: string;
  type: AuditType;
  callId?: string;
  caller?: string;
  tool?: string;
  [key: string]: unknown;
}

export interface Sandbox {
  /** tools/list: the seven tools with JSON Schema. */
  listTools(): ToolInfo[];
  /** tools/call. `args` is an object or the raw JSON string a model produced. Never throws for bad input. */
  callTool(name: string, args?: unknown, options?: CallOptions): Promise<CallToolResult>;
  /** Denies pending approvals, closes the shell (and every job), and disposes a runtime the sandbox created. */
  close(): Promise<void>;
  readonly closed: boolean;
  /** The persistent shell: raw terminal output (onRawOutput), a person's keystrokes (writeFromPerson), state. */
  readonly session: ShellSession;
  readonly runtime: Runtime;
  readonly runtimeInfo: RuntimeInfo;
  readonly approvals: Approvals;
  readonly policy: Policy;
  /** The guard as it is now. */
  guard(): Guard;
  /** The user rules as they are now: the given ones plus those added in this session. */
  rules(): UserRules;
  /** Adds a user rule for the rest of the session (e.g. from a settings panel). */
  addRule(rule: string, decision?: Decision): Promise<void>;
  /** Every audit entry as it is recorded. */
  onActivity(listener: (entry: AuditEntry) => void): Unsubscribe;
  /** The audit log (the last AUDIT.maxEntries entries), oldest first. */
  auditLog(): AuditEntry[];
  /** The audit log as JSONL: one JSON object a line. */
  exportAuditLog(): string;
  /** Records an entry of the caller's own (the API layer: protocol errors, connections). */
  audit(type: AuditType, data: Record<string, unknown>): AuditEntry;
}

function isRuntime(value: unknown): value is Runtime {
  return typeof value === "object" && value !== null && typeof (value as Runtime).spawnShell === "function";
}

/** Creates the runtime for a kind (through selectRuntime); a Runtime instance is returned as is (and not owned). */
async function resolveRuntime(options: SandboxOptions): Promise<{ runtime: Runtime; owned: boolean }> {
  const choice = options.runtime ?? "auto";
  if (isRuntime(choice)) return { runtime: choice, owned: false };
  if (choice !== "auto" && choice !== "webcontainer" && choice !== "embedded" && choice !== "node") {
    throw new TypeError(`runtime must be "auto", "webcontainer", "embedded", "node" or a Runtime, not ${JSON.stringify(choice)}`);
  }
  const { selectRuntime } = await import("./runtime/select.ts");
  const select: SelectRuntimeOptions = { ...(options.runtimeOptions ?? {}) };
  if (options.workspace !== undefined) {
    select.embedded = { ...select.embedded, workspace: options.workspace };
    select.node = { ...select.node, workspace: options.workspace };
  }
  return { runtime: await selectRuntime(choice, select), owned: true };
}

/** A copy safe to keep in the log: long strings cut, depth bounded. */
function auditValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return value.length > AUDIT.maxTextChars ? `${value.slice(0, AUDIT.maxTextChars)}… [${value.length} characters]` : value;
  }
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (depth >= 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => auditValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 100)) out[k] = auditValue(v, depth + 1);
  return out;
}

/** A FIFO lock: bash calls run one at a time, in the order they came. */
class CallQueue {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  /** Resolves with a release function, or null when `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i !== -1) this.waiting.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  get length(): number {
    return this.waiting.length + (this.busy ? 1 : 0);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.busy = false;
    };
  }
}

/** Builds a sandbox on a runtime; `owned` runtimes are disposed by close(). */
export async function openSandbox(runtime: Runtime, owned: boolean, options: SandboxOptions = {}): Promise<Sandbox> {
  const policy: Policy = options.policy ?? "balanced";
  const userRules: Required<UserRules> = {
    allow: [...(options.rules?.allow ?? [])],
    ask: [...(options.rules?.ask ?? [])],
    deny: [...(options.rules?.deny ?? [])],
  };
  const approvals = new Approvals({ approver: options.approver, expiryMs: options.approvalExpiryMs });
  let guard: Guard;
  let session: ShellSession;
  try {
    guard = await createGuard({ policy, rules: userRules, workspace: runtime.workspace });
    session = await createShellSession(runtime, options.shell ?? {});
  } catch (err) {
    if (owned) await runtime.dispose().catch(() => undefined);
    throw err;
  }
  const workspace = await runtime.fs.realpath(runtime.workspace).catch(() => runtime.workspace);
  const tmp = await runtime.fs.realpath("/tmp").catch(() => "/tmp");

  const log: AuditEntry[] = [];
  const listeners = new Set<(entry: AuditEntry) => void>();
  let seq = 0;
  let calls = 0;
  let closed = false;
  const queue = new CallQueue();

  function record(type: AuditType, data: Record<string, unknown>): AuditEntry {
    const entry: AuditEntry = { seq: ++seq, time: new Date().toISOString(), type, ...(auditValue(data) as Record<string, unknown>) };
    log.push(entry);
    if (log.length > AUDIT.maxEntries) log.splice(0, log.length - AUDIT.maxEntries);
    for (const l of [...listeners]) {
      try {
        l(entry);
      } catch (err) {
        console.error("sandshell: an activity listener threw:", err);
      }
    }
    return entry;
  }

  approvals.on((event: ApprovalEvent) => {
    const r = event.request;
    const base = { callId: r.callId, caller: r.caller, tool: r.tool, approvalId: r.id, command: r.command, rule: r.rule, route: r.route };
    if (event.type === "requested") record("approval", { ...base, phase: "requested", suggestedRule: r.suggestedRule, expiresAt: new Date(r.expiresAt).toISOString() });
    else if (event.type === "rerouted") record("approval", { ...base, phase: "rerouted", reason: event.reason });
    else record("approval", { ...base, phase: "resolved", decision: event.outcome.decision, by: event.outcome.by, note: event.outcome.note, addedRule: event.outcome.decision === "always" ? (event.outcome.rule ?? r.suggestedRule) : undefined });
  });

  async function addRule(rule: string, decision: Decision = "allow", from?: Record<string, unknown>): Promise<void> {
    const text = typeof rule === "string" ? rule.trim() : "";
    if (text === "") throw new TypeError("a rule is a non-empty string, e.g. `npm run build:*`");
    if (decision !== "allow" && decision !== "ask" && decision !== "deny") throw new TypeError(`decision must be allow, ask or deny, not ${JSON.stringify(decision)}`);
    if (!userRules[decision].includes(text)) {
      userRules[decision].push(text);
      guard = await createGuard({ policy, rules: userRules, workspace: runtime.workspace });
    }
    record("rule", { decision, rule: text, ...(from ?? {}) });
  }

  const host: ToolHost = {
    runtime,
    session,
    workspace,
    tmp,
    approvals,
    guard: () => guard,
    alwaysAllow: (rule, from) => addRule(rule, "allow", { source: "approval", ...from }),
  };

  const runtimeInfo: RuntimeInfo = {
    kind: runtime.kind,
    ...(runtime.note !== undefined ? { note: runtime.note } : {}),
    capabilities: runtime.capabilities,
    workspace: runtime.workspace,
  };

  const sandbox: Sandbox = {
    listTools: () => listTools(runtime.workspace),

    async callTool(name: string, args?: unknown, opts: CallOptions = {}): Promise<CallToolResult> {
      const t0 = performance.now();
      const callId = `call-${++calls}`;
      const who = typeof opts.caller === "string" ? { caller: opts.caller } : {};
      const toolName = typeof name === "string" ? name : String(name);
      record("call", { callId, ...who, tool: toolName, args });
      const call: CallInfo = {
        id: callId,
        ...who,
        ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
        ...(typeof opts.onOutput === "function" ? { onOutput: opts.onOutput } : {}),
        ...(typeof opts.hostApprover === "function" ? { host: opts.hostApprover } : {}),
        record: (type, data) => void record(type as AuditType, { callId, ...who, tool: toolName, ...data }),
      };
      let result: CallToolResult;
      if (closed) {
        result = { content: [{ type: "text", text: "The sandbox is closed." }], isError: true, structuredContent: { status: "error" } };
      } else if (toolName === "bash") {
        const release = await queue.acquire(opts.signal);
        if (release === null) {
          result = {
            content: [{ type: "text", text: "The call was cancelled while it waited for another caller's command; it did not run." }],
            isError: true,
            structuredContent: { status: "interrupted", cwd: session.cwd },
          };
        } else {
          try {
            result = await runTool(host, toolName, args, call);
          } finally {
            release();
          }
        }
      } else {
        result = await runTool(host, toolName, args, call);
      }
      const sc = result.structuredContent;
      record("result", {
        callId,
        ...who,
        tool: toolName,
        status: sc.status,
        isError: result.isError === true,
        durationMs: Math.round(performance.now() - t0),
        ...(sc.exitCode !== undefined ? { exitCode: sc.exitCode } : {}),
        ...(sc.jobId !== undefined ? { jobId: sc.jobId } : {}),
        ...(sc.ignoredParameters !== undefined ? { ignoredParameters: sc.ignoredParameters } : {}),
        ...(sc.repairedArguments !== undefined ? { repairedArguments: sc.repairedArguments } : {}),
        text: result.content[0]?.text ?? "",
      });
      return result;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      approvals.close();
      await session.close().catch(() => undefined);
      if (owned) await runtime.dispose().catch(() => undefined);
      record("event", { event: "closed" });
    },

    get closed() {
      return closed;
    },
    session,
    runtime,
    runtimeInfo,
    approvals,
    policy,
    guard: () => guard,
    rules: () => ({ allow: [...userRules.allow], ask: [...userRules.ask], deny: [...userRules.deny] }),
    addRule: (rule, decision) => addRule(rule, decision, { source: "api" }),
    onActivity(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    auditLog: () => log.map((e) => ({ ...e })),
    exportAuditLog: () => log.map((e) => JSON.stringify(e)).join("\n") + (log.length > 0 ? "\n" : ""),
    audit: (type, data) => record(type, data),
  };
  record("event", { event: "opened", runtime: runtime.kind, ...(runtime.note !== undefined ? { note: runtime.note } : {}), workspace: runtime.workspace, policy, approver: approvals.mode });
  return sandbox;
}

/** Creates a sandbox: its runtime (unless given one), the shell, the guard and the approvals. */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { runtime, owned } = await resolveRuntime(options);
  return openSandbox(runtime, owned, options);
}
