// The MCP server side of the postMessage API: one MCP Server (@modelcontextprotocol/sdk, low level) per
// connection, all serving the one sandbox (which queues their shell use).
//
//   port ─ MessagePortTransport ─ gate (src/api/gate.ts: JSON-RPC errors for bad input) ─ MCP Server
//        ─ tools/list, tools/call → the sandbox's listTools() / callTool()
//
// tools/call:
//   - `arguments` may be an object or a raw JSON string (the gate moves a string past the SDK's schema);
//   - an unknown tool is a protocol error, -32602, as the MCP spec names it;
//   - streamed output becomes notifications/progress (message = the new output, progress = characters so
//     far) when the caller gave _meta.progressToken;
//   - notifications/cancelled aborts the handler's signal, which the sandbox turns into C-c;
//   - approvals: when the client declared the elicitation capability, the call carries a host approver that
//     asks this client with elicitation/create; the sandbox uses it when its approver is "host", and the
//     UI otherwise (or when the client cannot be asked).

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { API, MESSAGES } from "../limits.ts";
import { clip } from "../lib/text.ts";
import { callListener } from "../lib/listeners.ts";
import type { ApprovalAnswer, ApprovalRequest, HostApprover } from "../sandbox.ts";
import { inspect, type GateLimits } from "./gate.ts";
import { APPROVAL_META_KEY, RAW_ARGUMENTS_KEY } from "./protocol.ts";
import { MessageDataError, MessagePortTransport, type PortLike } from "./transport.ts";

export const SERVER_INFO = { name: "sandshell", version: "0.1.0" } as const;

export interface CallOptions {
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  /** Asks the calling client (MCP elicitation) when the sandbox's approver is "host". */
  hostApprover?: HostApprover;
  /** The connection's id, for the audit log. */
  caller?: string;
}

/** What the API needs of the sandbox (src/sandbox.ts's Sandbox fits). */
export interface ToolHost {
  listTools(): ReadonlyArray<{ name: string; description?: string; inputSchema: { type: "object"; [key: string]: unknown } }>;
  callTool(name: string, args: Record<string, unknown> | string, options?: CallOptions): Promise<CallToolResult | { content: unknown[]; [key: string]: unknown }>;
  /** The sandbox's audit log: protocol events are recorded as type "event" with event "api.<type>". */
  audit?(type: "event", data: Record<string, unknown>): unknown;
  /** A connection ended: whatever the sandbox kept for it (rules its client added for itself) goes. */
  release?(caller: string): void;
}

export type ApiEventType =
  | "ready" // announced sandshell:ready to the parent
  | "warning" // origins=* and other things a person should see
  | "connected" // an allowed origin opened a connection
  | "initialized" // its MCP client finished initialize
  | "rejected" // a refused origin (or no room for another connection)
  | "disconnected" // a connection closed
  | "reclaimed" // a connection that did not answer a ping in time was closed
  | "error-reply" // bad input answered with a JSON-RPC error
  | "ignored" // bad input the spec says not to answer (notifications, responses), or messages outside a connection
  | "error"; // something failed inside (a send, a handler)

export interface ApiEvent {
  type: ApiEventType;
  /** Epoch milliseconds. */
  at: number;
  detail: string;
  connection?: string;
  origin?: string;
  method?: string;
  id?: RequestId | null;
  code?: number;
}

export interface SessionOptions {
  /** A short id for this connection (events, audit log, approvals' caller). */
  id: string;
  origin: string;
  onEvent?: (event: ApiEvent) => void;
  limits?: GateLimits;
  /** How often the connection is pinged, and how long an answer may take before it is closed (default API.ping*). */
  heartbeat?: { intervalMs: number; timeoutMs: number };
}

export interface Session {
  readonly id: string;
  readonly origin: string;
  readonly server: Server;
  /** Resolves when the session has closed (either end). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

function emitter(options: { onEvent?: (event: ApiEvent) => void }): (event: Omit<ApiEvent, "at">) => void {
  return (event) => {
    callListener("API event", () => options.onEvent?.({ ...event, at: Date.now() }));
  };
}

/** The gate between the port and the SDK: only well-formed messages reach the Server; the rest are answered or dropped here. */
class GatedTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sessionId: string;

  constructor(
    private readonly inner: MessagePortTransport,
    private readonly limits: GateLimits | undefined,
    private readonly emit: (event: Omit<ApiEvent, "at">) => void,
  ) {
    this.sessionId = inner.sessionId ?? "";
  }

  async start(): Promise<void> {
    this.inner.onmessage = (data: unknown) => this.receive(data);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error: Error) => {
      if (error instanceof MessageDataError) {
        this.reply(null, ErrorCode.ParseError, "Parse error: the message could not be deserialized", undefined);
        return;
      }
      this.onerror?.(error);
    };
    await this.inner.start();
  }

  private receive(data: unknown): void {
    const verdict = inspect(data, this.limits);
    switch (verdict.kind) {
      case "forward":
        this.onmessage?.(verdict.message);
        return;
      case "reply":
        this.reply(verdict.id, verdict.error.code, verdict.error.message, verdict.method);
        return;
      case "ignore":
        this.emit({ type: "ignored", connection: this.sessionId, detail: verdict.reason, ...(verdict.method !== undefined ? { method: verdict.method } : {}) });
        return;
    }
  }

  private reply(id: RequestId | null, code: number, message: string, method: string | undefined): void {
    this.emit({ type: "error-reply", connection: this.sessionId, id, code, detail: message, ...(method !== undefined ? { method } : {}) });
    // JSON-RPC answers what cannot be identified with id null; the SDK's types want an id, so this is sent as is.
    this.inner.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage).catch(() => {});
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}


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

/** Serves MCP on one port for an already-accepted origin. */
export function openSession(host: ToolHost, port: PortLike, options: SessionOptions): Session {
  const emit = emitter(options);
  const base = { connection: options.id, origin: options.origin };
  const inner = new MessagePortTransport(port, { sessionId: options.id });
  const transport = new GatedTransport(inner, options.limits, (e) => emit({ ...base, ...e }));

  const server = new Server(
    { ...SERVER_INFO },
    {
      capabilities: { tools: {} },
      instructions:
        "Sandshell: a persistent bash-like shell and file tools in the browser. Every command is checked by a guard first; " +
        "some need a person's approval. tools/call also accepts `arguments` as a raw JSON string.",
    },
  );

  const toolNames = (): string[] => host.listTools().map((t) => t.name);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.listTools().map((t) => ({ ...t })) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const names = toolNames();
    if (!names.includes(name)) {
      const message = `Unknown tool: ${JSON.stringify(clip(name, MESSAGES.nameChars))}. The tools are: ${names.join(", ")}.`;
      emit({ ...base, type: "error-reply", id: extra.requestId, code: ErrorCode.InvalidParams, method: "tools/call", detail: message });
      // Not an McpError: its constructor prefixes "MCP error -32602: ", and the client's adds that again.
      throw Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
    }
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const raw = meta?.[RAW_ARGUMENTS_KEY];
    const args: Record<string, unknown> | string = typeof raw === "string" ? raw : (request.params.arguments ?? {});

    const token = meta?.progressToken;
    let onOutput: ((chunk: string) => void) | undefined;
    if (typeof token === "string" || typeof token === "number") {
      let progress = 0;
      onOutput = (chunk: string) => {
        if (chunk === "" || extra.signal.aborted) return;
        progress += chunk.length;
        extra
          .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message: chunk } })
          .catch((err: unknown) => emit({ ...base, type: "error", detail: `progress notification failed: ${String(err)}` }));
      };
    }

    const caps = server.getClientCapabilities();
    const canAsk = caps?.elicitation !== undefined && (caps.elicitation as { form?: unknown }).form !== undefined;
    const hostApprover: HostApprover | undefined = canAsk
      ? async (approval, signal) => {
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
            { signal, timeout, relatedRequestId: extra.requestId },
          );
          return answerFromElicitation(result as { action: string; content?: Record<string, unknown> });
        }
      : undefined;

    const result = await host.callTool(name, args, {
      signal: extra.signal,
      caller: options.id,
      ...(onOutput !== undefined ? { onOutput } : {}),
      ...(hostApprover !== undefined ? { hostApprover } : {}),
    });
    return result as CallToolResult;
  });

  server.oninitialized = () => {
    const client = server.getClientVersion();
    const caps = server.getClientCapabilities();
    emit({
      ...base,
      type: "initialized",
      detail: `MCP client ${client ? `${client.name} ${client.version}` : "(unnamed)"} initialized${caps?.elicitation ? ", can answer approvals (elicitation)" : ""}`,
    });
  };
  server.onerror = (error: Error) => {
    // Responses to nothing and notification handler failures land here: logged, never answered.
    const ignored = /unknown message ID|unknown token|notification handler/i.test(error.message);
    emit({ ...base, type: ignored ? "ignored" : "error", detail: clip(error.message, MESSAGES.errorChars) });
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  // A port that is gone (a closed tab, a dropped port) sends no goodbye: a ping it cannot answer frees its slot.
  // Closing aborts its calls (and so their pending approvals), and the sandbox forgets its rules.
  const beat = options.heartbeat ?? { intervalMs: API.pingIntervalMs, timeoutMs: API.pingTimeoutMs };
  let pinging = false;
  const heartbeat = setInterval(() => {
    if (pinging) return;
    pinging = true;
    server.request({ method: "ping" }, EmptyResultSchema, { timeout: beat.timeoutMs }).then(
      () => (pinging = false),
      (err: unknown) => {
        pinging = false;
        if (server.transport === undefined) return; // closed meanwhile (or not yet connected)
        emit({ ...base, type: "reclaimed", detail: `no answer to a ping within ${beat.timeoutMs} ms (${err instanceof Error ? err.message : String(err)}); the connection was closed` });
        void server.close();
      },
    );
  }, beat.intervalMs);
  (heartbeat as { unref?: () => void }).unref?.();

  server.onclose = () => {
    clearInterval(heartbeat);
    try {
      host.release?.(options.id);
    } catch (err) {
      console.error("sandshell: releasing a connection failed:", err);
    }
    emit({ ...base, type: "disconnected", detail: "the connection closed" });
    resolveClosed();
  };
  server.connect(transport).catch((err: unknown) => {
    emit({ ...base, type: "error", detail: `could not start the MCP server: ${String(err)}` });
    void inner.close();
  });

  return {
    id: options.id,
    origin: options.origin,
    server,
    closed,
    close: async () => {
      await server.close();
    },
  };
}
