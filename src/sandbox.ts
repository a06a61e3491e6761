// The sandbox: runtime + one persistent shell + guard + approvals + tools, as one object. The UI and the API are two
// peers on top of it; neither sits on the other's path.
//
// - Several callers share the one shell. Their bash calls queue (one at a time: check, approval, run), so a second
//   caller waits instead of being refused; only a call that arrives while a command still runs after returning
//   `running` (soft timeout) gets the session's "still running" refusal, as designed.
// - Every call, verdict, approval, added rule and result goes to the audit log (src/audit/log.ts: bounded rooms that
//   a flood cannot empty, JSONL export), and to onActivity listeners as it happens.
// - What belongs to one caller (rules a client added for itself, job ownership) lives in src/sandbox/callers.ts.

import { type Decision, type Guard, type Policy, type UserRules } from "./guard/index.ts";
import { AuditLog, type AuditEntry, type AuditLimits, type AuditType } from "./audit/log.ts";
import type { SelectRuntimeOptions } from "./runtime/select.ts";
import type { Capabilities, Isolation, Runtime, RuntimeKind, Unsubscribe } from "./runtime/types.ts";
import { createShellSession, type ShellSession, type ShellSessionOptions } from "./shell/session.ts";
import { CallQueue } from "./sandbox/queue.ts";
import { createLastingCheck } from "./sandbox/lasting.ts";
import { SandboxRules } from "./sandbox/rules.ts";
import { Approvals, listTools, parseToolArguments, runTool, toolSpec, type Approver, type CallInfo, type CallToolResult, type HostApprover, type ToolContext, type ToolInfo } from "./tools/index.ts";
import { formatShellResult } from "./tools/bash-result.ts";
import { dropHeld } from "./tools/held-commands.ts";
import type { ShellResult } from "./shell/session.ts";
import { MESSAGES, SHELL } from "./limits.ts";
import { clip } from "./lib/text.ts";
import { normalizePath } from "./lib/paths.ts";

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
  /** Bounds of the audit log (default AUDIT in src/limits.ts). */
  audit?: Partial<AuditLimits>;
  /** Passed to selectRuntime (progress callback, per-runtime options) when the sandbox creates the runtime. */
  runtimeOptions?: SelectRuntimeOptions;
}

export interface SandboxCallOptions {
  /** Aborting interrupts the command with C-c (and cancels a queued call or a pending approval). */
  signal?: AbortSignal;
  /** Cleaned output as it arrives, while a bash command runs. */
  onOutput?: (chunk: string) => void;
  /** Who calls (the API layer's connection id); recorded in the audit log and on approval requests. */
  caller?: string;
  /** For approver "host": asks this call's client (MCP elicitation/create). Without one, the UI is asked. */
  hostApprover?: HostApprover;
}

/** @deprecated The old name of SandboxCallOptions (kept for sandshell/node users). */
export type CallOptions = SandboxCallOptions;

export interface RuntimeInfo {
  kind: RuntimeKind;
  /** Why this runtime serves, when the runtime says (e.g. a fallback). */
  note?: string;
  capabilities: Capabilities;
  workspace: string;
  /** The node runtime's OS sandbox: "sandboxed", or "unsandboxed" with the reason, or "off" (docs/sandbox.md). */
  isolation?: Isolation;
}

export type { AuditEntry, AuditType } from "./audit/log.ts";
// The sandbox's public surface for the layers above it (ui, api, the playground): they import these from here, never
// from tools/, shell/ or runtime/ (test/layering.test.ts holds them to it).
export type { ApprovalAnswer, ApprovalEvent, ApprovalRequest, Approvals, CallToolResult, HostApprover } from "./tools/index.ts";
export type { ShellSession, ShellState } from "./shell/session.ts";
export type { DirEntry, RuntimeFs } from "./runtime/types.ts";

export interface Sandbox {
  /** tools/list: the seven tools with JSON Schema. */
  listTools(): ToolInfo[];
  /** tools/call. `args` is an object or the raw JSON string a model produced. Never throws for bad input. */
  callTool(name: string, args?: unknown, options?: SandboxCallOptions): Promise<CallToolResult>;
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
  /**
   * Records an entry of the caller's own (the API layer: protocol errors, connections). Ignored or refused messages
   * (event api.ignored, api.rejected, api.error-reply) are counted per origin: then null, and a summary follows.
   */
  audit(type: AuditType, data: Record<string, unknown>): AuditEntry | null;
  /**
   * A connection ended (the API layer calls it): it leaves nothing behind. Its rules go, its pending approvals are
   * cancelled, its held input dropped, a command of its still running in the shell is interrupted (C-c, then the
   * session's kill and fresh shell), and its background jobs are killed (their output stays readable by the owner).
   */
  release(caller: string): void;
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
  // The startup canary checks a booted WebContainer through a real shell session: the shell layer is ours to give.
  const select: SelectRuntimeOptions = { ...(options.runtimeOptions ?? {}) };
  select.canary ??= createShellSession;
  if (options.workspace !== undefined) {
    select.embedded = { ...select.embedded, workspace: options.workspace };
    select.node = { ...select.node, workspace: options.workspace };
  }
  return { runtime: await selectRuntime(choice, select), owned: true };
}

/** Builds a sandbox on a runtime; `owned` runtimes are disposed by close(). */
export async function openSandbox(runtime: Runtime, owned: boolean, options: SandboxOptions = {}): Promise<Sandbox> {
  const policy: Policy = options.policy ?? "balanced";
  const approvals = new Approvals({ approver: options.approver, expiryMs: options.approvalExpiryMs });
  const log = new AuditLog(options.audit);
  const record = (type: AuditType, data: Record<string, unknown>): AuditEntry | null => log.record(type, data);
  let rules: SandboxRules;
  let session: ShellSession;
  try {
    // The spill folder's files (long output) belong to the caller that wrote them (src/sandbox/callers.ts).
    const spillGiven = options.shell?.spillDir ?? runtime.spillDir ?? SHELL.spillDir;
    const spillDir = await runtime.fs.realpath(spillGiven).catch(() => normalizePath(spillGiven));
    // Where the shell's /tmp is read-only (node on macOS), the guard learns that its scratch folder is $TMPDIR.
    const scratch = runtime.isolation?.tmp === "read-only" ? runtime.tempDir : undefined;
    rules = await SandboxRules.create(policy, runtime.workspace, options.rules, record, { scratch, spillDir });
    session = await createShellSession(runtime, options.shell ?? {});
  } catch (err) {
    if (owned) await runtime.dispose().catch(() => undefined);
    throw err;
  }
  const workspace = await runtime.fs.realpath(runtime.workspace).catch(() => runtime.workspace);
  // A runtime with a private temp directory (node) offers that to the file tools instead of a /tmp shared by the host;
  // inside the OS sandbox (Linux) the shell sees it as /tmp, so the file tools read `/tmp/x` there too.
  const tmp = runtime.tempDir ?? (await runtime.fs.realpath("/tmp").catch(() => "/tmp"));
  const tmpName = runtime.tempDir === undefined || runtime.isolation?.tmp === "private" ? "/tmp" : runtime.tempDir;
  const callers = rules.callers;
  // Under approver "host", a client answers its own calls' approvals, but not for a command whose effect outlasts the
  // call and reaches every other caller (a function, an alias, a trap, an exported variable, a sourced script, a config
  // file): that approval goes to the sandbox's owner (src/sandbox/lasting.ts).
  const lasting = approvals.mode === "host" ? await createLastingCheck({ policy, workspace: runtime.workspace }).catch(() => null) : null;
  const ownerDecides = (ask: HostApprover): HostApprover => async (request, signal) => {
    const found = lasting === null ? { why: "the command could not be analysed", part: request.command } : lasting(request.command, request.cwd);
    if (found !== null) {
      throw new Error(
        `${found.why} (\`${clip(found.part, MESSAGES.commandChars)}\`): its effect outlasts this call and ` +
          "reaches every other connection of this shell, so the connected client cannot approve it; the person at the sandbox decides",
      );
    }
    return ask(request, signal);
  };
  let calls = 0;
  let closed = false;
  const queue = new CallQueue();
  rules.watch(approvals);
  /**
   * What a caller's command printed after its call returned `running`, taken off the shell when another caller's
   * call came first (the session would have shown it to that caller): kept for its own next call.
   */
  const leftovers = new Map<string, ShellResult>();
  const ownerKey = (caller: string | undefined): string => (caller === undefined ? "" : `c:${caller}`);

  /** Before a bash call: a command another caller left in the shell has ended; its rest is that caller's, not this one's. */
  async function takeOthersLeftover(caller: string | undefined): Promise<void> {
    const fg = callers.foregroundOwner();
    if (fg === null || fg.caller === caller || session.busy) return;
    const rest = await session.run(""); // the ended command's result, or "nothing runs" (nothing is sent either way)
    if (rest.refused === undefined && !(fg.caller !== undefined && callers.isReleased(fg.caller))) leftovers.set(ownerKey(fg.caller), rest);
    callers.setForegroundOwner(null);
  }

  /** A caller's own leftover, as its call's answer (a wait) or as a note before its new command's result. */
  function withLeftover(mine: ShellResult, args: unknown, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    const parsed = parseToolArguments(toolSpec("bash")!, args);
    const out = formatShellResult(mine);
    const earlier = `Your previous command ended after its call returned (${out.text.split("\n").at(-1) ?? ""}); another caller's command ran since. Its output since your last call:\n${mine.output === "" ? "(no new output)" : mine.output}`;
    if (parsed.ok && parsed.args.is_input === true) {
      const notSent = typeof parsed.args.command === "string" && parsed.args.command !== "" ? "\nThe input was not sent: that command had already ended." : "";
      return Promise.resolve({ content: [{ type: "text", text: earlier + notSent }], structuredContent: { ...out.structured, previous: true } });
    }
    return run().then((r) => ({ ...r, content: [{ type: "text", text: `${earlier}\n\n${r.content[0]?.text ?? ""}` }, ...r.content.slice(1)] }));
  }

  /** A gone caller's command and jobs: interrupted and killed, after any call in progress (the queue). */
  async function releaseShell(caller: string, left: { foreground: boolean; jobs: string[] }): Promise<void> {
    const unlock = (await queue.acquire())!; // no signal: never null
    const done: Record<string, unknown> = {};
    try {
      if (left.foreground && callers.foregroundOwner()?.caller === caller) {
        if (session.busy) {
          const r = await session.interrupt(); // C-c; the session kills the shell and starts a fresh one past the grace
          done.interrupted = { status: r.status, ...(r.notice !== undefined ? { notice: r.notice } : {}) };
        } else {
          await session.run(""); // ended unread: its output goes with its caller
        }
        callers.setForegroundOwner(null);
      }
      const killed: string[] = [];
      for (const id of left.jobs) {
        if (session.listJobs().find((j) => j.id === id)?.status !== "running") continue;
        await session.killJob(id).then(() => killed.push(id), () => undefined);
      }
      if (killed.length > 0) done.jobsKilled = killed;
    } finally {
      unlock();
    }
    if (Object.keys(done).length > 0) record("event", { event: "caller.released", caller, ...done });
  }

  const host: ToolContext = {
    runtime,
    session,
    workspace,
    tmp,
    tmpName,
    approvals,
    guard: () => rules.guard(),
    alwaysAllow: (rule, from) => rules.alwaysAllow(rule, from),
    jobRefusal: () => null,
  };

  const runtimeInfo: RuntimeInfo = {
    kind: runtime.kind,
    ...(runtime.note !== undefined ? { note: runtime.note } : {}),
    capabilities: runtime.capabilities,
    workspace: runtime.workspace,
    ...(runtime.isolation !== undefined ? { isolation: runtime.isolation } : {}),
  };

  const sandbox: Sandbox = {
    listTools: () => listTools(runtime.workspace),

    async callTool(name: string, args?: unknown, opts: SandboxCallOptions = {}): Promise<CallToolResult> {
      const t0 = performance.now();
      const callId = `call-${++calls}`;
      const who = typeof opts.caller === "string" ? { caller: opts.caller } : {};
      const toolName = typeof name === "string" ? name : String(name);
      record("call", { callId, ...who, tool: toolName, args });
      const callHost: ToolContext = {
        ...host,
        guard: () => rules.guardFor(opts.caller),
        jobRefusal: (jobId) => callers.jobRefusal(jobId, opts.caller),
        pathRefusal: (realPath) => callers.spillRefusal(realPath, opts.caller),
      };
      const call: CallInfo = {
        id: callId,
        ...who,
        ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
        ...(typeof opts.onOutput === "function" ? { onOutput: opts.onOutput } : {}),
        ...(typeof opts.hostApprover === "function" ? { host: ownerDecides(opts.hostApprover) } : {}),
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
            if (!session.busy) await takeOthersLeftover(opts.caller);
            const refusal = session.busy ? callers.foregroundRefusal(opts.caller) : null;
            const mine = refusal === null ? leftovers.get(ownerKey(opts.caller)) : undefined;
            if (mine !== undefined) leftovers.delete(ownerKey(opts.caller));
            const run = (): Promise<CallToolResult> => runTool(callHost, toolName, args, call);
            result =
              refusal !== null
                ? { content: [{ type: "text", text: refusal }], isError: true, structuredContent: { status: "error", cwd: session.cwd, reason: "not-owner" } }
                : mine !== undefined
                  ? await withLeftover(mine, args, run)
                  : await run();
            const { jobId, status } = result.structuredContent;
            if (typeof jobId === "string" && status === "running") callers.setJobOwner(jobId, opts.caller);
            else if (refusal === null) callers.setForegroundOwner(status === "running" ? opts.caller : null);
            // The connection ended while this call ran (its result came after the release): nothing may stay behind.
            if (opts.caller !== undefined && callers.isReleased(opts.caller) && status === "running") {
              const caller = opts.caller;
              void releaseShell(caller, callers.leftBy(caller)).catch((err: unknown) => record("event", { event: "caller.release-failed", caller, error: String(err) }));
            }
          } finally {
            release();
          }
        }
      } else {
        result = await runTool(callHost, toolName, args, call);
      }
      const sc = result.structuredContent;
      if (typeof sc.fullOutputPath === "string") callers.setSpillOwner(sc.fullOutputPath, opts.caller);
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
      log.close();
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
    guard: () => rules.guard(),
    rules: () => rules.list(),
    addRule: (rule, decision) => rules.add(rule, decision, { source: "api" }),
    onActivity: (listener) => log.on(listener),
    auditLog: () => log.entries(),
    exportAuditLog: () => log.exportJsonl(),
    audit: (type, data) => record(type, data),
    release: (caller) => {
      if (typeof caller !== "string") return;
      const left = callers.forget(caller);
      const approvalsCancelled = approvals.cancelFor(caller);
      const heldDropped = dropHeld(session, caller);
      leftovers.delete(ownerKey(caller));
      record("event", { event: "caller.released", caller, approvalsCancelled, heldDropped, runningCommand: left.foreground, jobs: left.jobs });
      if (!closed && (left.foreground || left.jobs.length > 0)) {
        void releaseShell(caller, left).catch((err: unknown) => record("event", { event: "caller.release-failed", caller, error: String(err) }));
      }
    },
  };
  record("event", { event: "opened", runtime: runtime.kind, ...(runtime.note !== undefined ? { note: runtime.note } : {}), workspace: runtime.workspace, policy, approver: approvals.mode });
  return sandbox;
}

/** Creates a sandbox: its runtime (unless given one), the shell, the guard and the approvals. */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { runtime, owned } = await resolveRuntime(options);
  return openSandbox(runtime, owned, options);
}
