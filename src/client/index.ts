// The host-page SDK (`sandshell/client`): connect to a Sandshell iframe and use its tools.
//
//   import { connectSandbox } from "sandshell/client";
//   const sandbox = await connectSandbox(iframe, { origin: "https://sandbox.example" });
//   const tools = await sandbox.listTools();
//   const result = await sandbox.callTool("bash", { command: "ls" }, { onOutput: (s) => term.write(s) });
//   await sandbox.callTool("bash", '{"command": "ls -la",}');   // a model's raw JSON text, repaired
//
// Underneath is the MCP SDK's Client over a SandboxTransport. Any other MCP client (the AI SDK's, your own) gets
// the same transport from openSandboxTransport(iframe), the handshake helper:
//
//   const client = new Client({ name: "my-app", version: "1.0.0" });
//   await client.connect(await openSandboxTransport(iframe));
//   await client.callTool({ name: "bash", arguments: { command: "ls" } }, undefined, { timeout: CALL_TIMEOUT_MS });

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitResult,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { API } from "../limits.ts";
import { APPROVAL_META_KEY } from "../api/protocol.ts";
import { type PortLike } from "../api/transport.ts";
import { handshake, rawArguments, SandboxTransport, type FrameLike, type HostWindow } from "./handshake.ts";

export { MessagePortTransport, type PortLike } from "../api/transport.ts";
export { READY, isReady } from "../api/handshake.ts";
export {
  CALL_TIMEOUT_MS,
  handshake,
  openSandboxTransport,
  rawArguments,
  REJECTED_CODE,
  SandboxTransport,
  SandshellRejectedError,
  SandshellTimeoutError,
  type FrameLike,
  type Handshake,
  type HandshakeOptions,
  type HostWindow,
} from "./handshake.ts";
export type { CallToolResult, ListToolsResult } from "@modelcontextprotocol/sdk/types.js";

/** An approval the sandbox asks this page for (its approver is "host"). */
export interface HostApproval {
  id: string;
  tool: string;
  /** The command exactly as it would run. */
  command: string;
  cwd: string;
  background: boolean;
  /** The guard rule that asked, and why, for a person. */
  rule: string;
  reason: string;
  layer: number;
  /** The rule "always" adds unless you send another. */
  suggestedRule: string;
  /** Epoch milliseconds; unanswered, the approval is denied then. */
  expiresAt: number;
  /** The whole question as text, ready to show. */
  message: string;
}

/** true = allow once, false = deny; or a decision with the rule for "always" and a note for the agent. */
export type ApprovalReply = boolean | { decision: "allow-once" | "always" | "deny"; rule?: string; note?: string };

export interface ConnectOptions {
  /** The sandbox's origin; default: the iframe's src origin. Messages from any other origin are ignored. */
  origin?: string;
  /** Give up after this long (waiting for the sandbox and initializing). Default API.connectTimeoutMs. */
  timeoutMs?: number;
  /** How this client introduces itself in MCP initialize (shown in the sandbox's activity log). */
  clientInfo?: { name: string; version: string };
  /**
   * Answers approvals when the sandbox runs with approver=host. Without it the client does not declare the
   * elicitation capability, and the sandbox's own UI asks the person instead. Throwing hands it to the UI too.
   */
  onApproval?: (approval: HostApproval, signal: AbortSignal) => ApprovalReply | Promise<ApprovalReply>;
  /** The window to listen on (default: this page's). */
  window?: HostWindow;
}

/** A host page's options for one tools/call over the connection. */
export interface ClientCallOptions {
  /** Output as the command produces it (MCP progress notifications). */
  onOutput?: (chunk: string) => void;
  /** Aborting cancels the call (MCP notifications/cancelled), which interrupts the command with C-c. */
  signal?: AbortSignal;
  /** Client-side limit for this call; default API.callTimeoutMs (the longest command plus an approval wait). */
  timeoutMs?: number;
}

/** @deprecated The old name of ClientCallOptions. */
export type CallOptions = ClientCallOptions;

export interface SandboxConnection {
  /** The sandbox's origin. */
  readonly origin: string;
  /** The MCP SDK Client, for anything beyond the shortcuts. */
  readonly client: Client;
  readonly transport: SandboxTransport;
  listTools(): Promise<ListToolsResult["tools"]>;
  /** `args` is an object or a raw JSON string (as a model produced it; broken JSON is repaired). */
  callTool(name: string, args?: Record<string, unknown> | string, options?: ClientCallOptions): Promise<CallToolResult>;
  close(): Promise<void>;
}

const DEFAULT_CLIENT_INFO = { name: "sandshell-client", version: "0.1.0" };

function toChoice(reply: ApprovalReply): ElicitResult {
  if (reply === true) return { action: "accept", content: { decision: "allow-once" } };
  if (reply === false) return { action: "accept", content: { decision: "deny" } };
  const content: Record<string, string> = { decision: reply.decision };
  if (reply.rule !== undefined) content.rule = reply.rule;
  if (reply.note !== undefined) content.note = reply.note;
  return { action: "accept", content };
}

/** Wires an MCP client to a port whose other end is a Sandshell session (after the handshake, or in tests). */
export async function connectOverPort(
  port: PortLike,
  options: Omit<ConnectOptions, "window"> & { origin: string; signal?: AbortSignal; here?: string },
): Promise<SandboxConnection> {
  const timeoutMs = options.timeoutMs ?? API.connectTimeoutMs;
  const transport = new SandboxTransport(port, options.origin, options.here);
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.onApproval !== undefined ? { elicitation: { form: {} } } : {},
  });
  if (options.onApproval !== undefined) {
    const onApproval = options.onApproval;
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as { message: string; _meta?: Record<string, unknown> };
      const facts = (params._meta?.[APPROVAL_META_KEY] ?? {}) as Partial<HostApproval>;
      const approval: HostApproval = {
        id: String(facts.id ?? ""),
        tool: String(facts.tool ?? "bash"),
        command: String(facts.command ?? ""),
        cwd: String(facts.cwd ?? ""),
        background: facts.background === true,
        rule: String(facts.rule ?? ""),
        reason: String(facts.reason ?? ""),
        layer: typeof facts.layer === "number" ? facts.layer : 3,
        suggestedRule: String(facts.suggestedRule ?? ""),
        expiresAt: typeof facts.expiresAt === "number" ? facts.expiresAt : Date.now() + 5 * 60_000,
        message: params.message,
      };
      return toChoice(await onApproval(approval, extra.signal));
    });
  }
  try {
    await client.connect(transport, { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (err) {
    await transport.close();
    if (transport.rejection !== null) throw transport.rejection;
    throw err;
  }
  return {
    origin: options.origin,
    client,
    transport,
    listTools: async () => {
      const tools: ListToolsResult["tools"] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor !== undefined ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    callTool: async (name, args = {}, opts = {}) => {
      const { onOutput, signal } = opts;
      try {
        const result = await client.callTool(
          // A string goes as raw JSON text (the sandbox's documented extension; it repairs broken JSON).
          typeof args === "string" ? { name, ...rawArguments(args) } : { name, arguments: args },
          CallToolResultSchema,
          {
            timeout: opts.timeoutMs ?? API.callTimeoutMs,
            resetTimeoutOnProgress: true,
            ...(signal !== undefined ? { signal } : {}),
            ...(onOutput !== undefined
              ? {
                  onprogress: (p: { message?: string }) => {
                    if (typeof p.message === "string") onOutput(p.message);
                  },
                }
              : {}),
          },
        );
        return result as CallToolResult;
      } catch (err) {
        if (signal?.aborted) throw signal.reason ?? err;
        throw err;
      }
    },
    close: () => client.close(),
  };
}

/**
 * Connects to the Sandshell playground in `iframe`: waits for its `sandshell:ready` (saying hello until it
 * answers), sends a MessagePort with `sandshell:connect` to the sandbox's origin only, and initializes MCP.
 * Rejects with a clear error when nothing answers in time or the sandbox refuses this page's origin.
 */
export async function connectSandbox(iframe: HTMLIFrameElement | FrameLike, options: ConnectOptions = {}): Promise<SandboxConnection> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? API.connectTimeoutMs;
  const { port, origin, here, win } = await handshake(iframe, options);

  // 3. MCP initialize on the port.
  const connection = await connectOverPort(port as unknown as PortLike, {
      ...options,
      origin,
      here,
    timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
  });
  // Leaving the page says goodbye, so the sandbox ends this session (and its running command) at once.
  const onPageHide = (): void => void connection.close();
  win.addEventListener("pagehide", onPageHide);
  const close = connection.close;
  return {
    ...connection,
    close: async () => {
      win.removeEventListener("pagehide", onPageHide);
      await close();
    },
  };
}
