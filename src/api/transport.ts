// An MCP transport over a MessagePort: JSON-RPC 2.0 messages go as objects (structured clone), never as
// strings. Both ends use it: the sandbox's MCP server (src/api/server.ts) and the host page's MCP client
// (src/client), and any other MCP client can too (the MCP SDK's Client, the AI SDK's MCP client).
//
// Besides JSON-RPC, two control messages travel on a port:
//   { type: "sandshell:rejected", reason }  the sandbox refused the page's origin (instead of any MCP), and
//                                           closes the port; reported as a SandshellRejectedError, then closed;
//   { type: "sandshell:closed" }            sent by close() just before the port closes, so the other end
//                                           closes too (browsers do not reliably tell a port that its
//                                           partner closed; Node fires "close", which is handled as well).
//
// The transport itself checks nothing else: what arrives is handed to onmessage as it came. The server
// puts a gate in front of it (src/api/gate.ts) that answers malformed input with JSON-RPC errors.

import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

import { CLOSED_TYPE, REJECTED_TYPE } from "./protocol.ts";

export { CLOSED_TYPE, REJECTED_TYPE };

/** The sandbox refused this page's origin (or had no room for another connection). */
export class SandshellRejectedError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`Sandshell refused the connection: ${reason}`);
    this.name = "SandshellRejectedError";
    this.reason = reason;
  }
}

/** A message arrived that could not be deserialized (the port's `messageerror` event). */
export class MessageDataError extends Error {
  constructor() {
    super("A message on the port could not be deserialized (messageerror).");
    this.name = "MessageDataError";
  }
}

/** What a MessagePort looks like to the transport: the DOM's, and Node's global one, both fit. */
export interface PortLike {
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
  addEventListener(type: "message" | "messageerror" | "close", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message" | "messageerror" | "close", listener: (event: MessageEvent) => void): void;
}

export function isRejection(data: unknown): data is { type: typeof REJECTED_TYPE; reason: string } {
  return typeof data === "object" && data !== null && (data as { type?: unknown }).type === REJECTED_TYPE;
}

function isGoodbye(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as { type?: unknown }).type === CLOSED_TYPE && !("jsonrpc" in data);
}

export class MessagePortTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;

  /** Set when the sandbox refused the connection. */
  rejection: SandshellRejectedError | null = null;

  private started = false;
  private closed = false;
  /** The other end said goodbye (or its port closed): no goodbye back. */
  private peerClosed = false;
  private readonly port: PortLike;

  private readonly onPortMessage = (event: MessageEvent): void => {
    if (this.closed) return;
    const data: unknown = event.data;
    if (isGoodbye(data)) {
      this.peerClosed = true;
      void this.close();
      return;
    }
    if (isRejection(data)) {
      this.rejection = new SandshellRejectedError(typeof data.reason === "string" ? data.reason : "no reason given");
      this.onerror?.(this.rejection);
      void this.close();
      return;
    }
    try {
      this.onmessage?.(data as JSONRPCMessage);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  };

  private readonly onPortMessageError = (): void => {
    if (!this.closed) this.onerror?.(new MessageDataError());
  };

  /** The other end closed, where the platform tells (Node does; browsers may not, hence the goodbye message). */
  private readonly onPortClose = (): void => {
    this.peerClosed = true;
    void this.close();
  };

  constructor(port: PortLike, options: { sessionId?: string } = {}) {
    this.port = port;
    if (options.sessionId !== undefined) this.sessionId = options.sessionId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("MessagePortTransport already started");
    if (this.closed) throw new Error("MessagePortTransport is closed");
    this.started = true;
    this.port.addEventListener("message", this.onPortMessage);
    this.port.addEventListener("messageerror", this.onPortMessageError);
    this.port.addEventListener("close", this.onPortClose);
    this.port.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error("MessagePortTransport is closed: the message was not sent");
    this.port.postMessage(message);
  }

  /** Sends a message that is not JSON-RPC (the handshake's rejection). */
  sendControl(message: { type: string; [key: string]: unknown }): void {
    if (!this.closed) this.port.postMessage(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.port.removeEventListener("message", this.onPortMessage);
    this.port.removeEventListener("messageerror", this.onPortMessageError);
    this.port.removeEventListener("close", this.onPortClose);
    if (this.started && !this.peerClosed && this.rejection === null) {
      try {
        this.port.postMessage({ type: CLOSED_TYPE });
      } catch {
        // a port whose partner is gone already
      }
    }
    this.port.close();
    this.onclose?.();
  }
}
