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
//   - approvals (elicitation.ts): when the client declared the elicitation capability, the call carries a host approver that
//     asks this client with elicitation/create; the sandbox uses it when its approver is "host", and the
//     UI otherwise (or when the client cannot be asked).

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
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
import type { SandboxCallOptions } from "../sandbox.ts";
import { elicitingApprover } from "./elicitation.ts";
import { GatedTransport, type GateLimits } from "./gate.ts";
import { RAW_ARGUMENTS_KEY } from "./protocol.ts";
import { MessagePortTransport, type PortLike } from "./transport.ts";

export { answerFromElicitation, approvalMessage, approvalSchema } from "./elicitation.ts";

export const SERVER_INFO = { name: "sandshell", version: "0.1.0" } as const;

/** What the API passes with each call: the sandbox's call options (signal, streamed output, host approver, caller). */
export type ApiCallOptions = Pick<SandboxCallOptions, "signal" | "onOutput" | "hostApprover" | "caller">;

/** What the API needs of the sandbox (src/sandbox.ts's Sandbox fits; the playground passes one that follows a retry). */
export interface ServedSandbox {
  listTools(): ReadonlyArray<{ name: string; description?: string; inputSchema: { type: "object"; [key: string]: unknown } }>;
  callTool(name: string, args: Record<string, unknown> | string, options?: ApiCallOptions): Promise<CallToolResult | { content: unknown[]; [key: string]: unknown }>;
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

export interface ApiConnectionOptions {
  /** A short id for this connection (events, audit log, approvals' caller). */
  id: string;
  origin: string;
  onEvent?: (event: ApiEvent) => void;
  limits?: GateLimits;
  /** How often the connection is pinged, and how long an answer may take before it is closed (default API.ping*). */
  heartbeat?: { intervalMs: number; timeoutMs: number };
}

/** One connection: an MCP session (its own MCP Server) on one port, for one accepted origin. */
export interface ApiConnection {
  readonly id: string;
  readonly origin: string;
  readonly server: Server;
  /** Resolves when the connection has closed (either end). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

function emitter(options: { onEvent?: (event: ApiEvent) => void }): (event: Omit<ApiEvent, "at">) => void {
  return (event) => {
    callListener("API event", () => options.onEvent?.({ ...event, at: Date.now() }));
  };
}

/** Serves MCP on one port for an already-accepted origin. */
export function openConnection(host: ServedSandbox, port: PortLike, options: ApiConnectionOptions): ApiConnection {
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

    const hostApprover = elicitingApprover(server, extra.requestId);

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
