// The host side of the handshake (steps 1–2 of the postMessage API), for any MCP client: wait for the sandbox's
// `sandshell:ready` (saying hello until it answers), send a MessagePort to the sandbox's origin only, and hand back
// a transport over it. A refusal answers the client's pending requests with an error that carries the sandbox's
// reason, so any MCP client (the SDK's, the AI SDK's) rejects with it instead of a bare "Connection closed".

import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CONNECT_TYPE, HELLO_TYPE, isReady } from "../api/handshake.ts";
import { MessagePortTransport, SandshellRejectedError, type PortLike } from "../api/transport.ts";
import { API } from "../limits.ts";

export { SandshellRejectedError };

/** Nothing answered from the sandbox's origin in time. */
export class SandshellTimeoutError extends Error {
  readonly origin: string;
  readonly timeoutMs: number;
  constructor(message: string, origin: string, timeoutMs: number) {
    super(message);
    this.name = "SandshellTimeoutError";
    this.origin = origin;
    this.timeoutMs = timeoutMs;
  }
}

/** The iframe (or anything with its two properties). */
export interface FrameLike {
  readonly src: string;
  readonly contentWindow: { postMessage(message: unknown, targetOrigin: string, transfer?: Transferable[]): void } | null;
}

/** The window the host listens on. */
export type HostWindow = Pick<Window, "addEventListener" | "removeEventListener"> & {
  origin?: string;
  location?: { origin: string; href?: string };
};

export interface HandshakeOptions {
  /** The sandbox's origin; default: the iframe's src origin. Messages from any other origin are ignored. */
  origin?: string;
  /** Give up after this long. Default API.connectTimeoutMs. */
  timeoutMs?: number;
  /** The window to listen on (default: this page's). */
  window?: HostWindow;
}

export interface Handshake {
  /** The host's end of the channel; the sandbox has the other. */
  port: MessagePort;
  /** The sandbox's origin. */
  origin: string;
  /** This page's origin, for messages. */
  here: string;
  win: HostWindow;
}

function toOrigin(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    throw new TypeError(`Sandshell: ${JSON.stringify(text)} is not an origin (like "https://sandbox.example")`);
  }
}

/** Steps 1–2: waits for ready from the sandbox's origin, then sends it a port. */
export async function handshake(iframe: FrameLike, options: HandshakeOptions = {}): Promise<Handshake> {
  const win = options.window ?? (globalThis as unknown as { window?: HostWindow }).window;
  if (win === undefined) {
    throw new Error("Sandshell's handshake needs a window (a browser page); elsewhere, wire connectOverPort(port, { origin }) to a port yourself");
  }
  const base = win.location?.href ?? win.location?.origin ?? "http://localhost/";
  const origin = toOrigin(options.origin ?? new URL(iframe.src, base).href);
  const timeoutMs = options.timeoutMs ?? API.connectTimeoutMs;
  const here = win.origin ?? win.location?.origin ?? "this page";

  await new Promise<void>((resolve, reject) => {
    let strayOrigin: string | null = null;
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== iframe.contentWindow || !isReady(event.data)) return;
      if (event.origin !== origin) {
        strayOrigin = event.origin;
        return;
      }
      done();
      resolve();
    };
    const hello = (): void => {
      // Hello carries nothing secret, so it may go before the frame has navigated to the sandbox's origin.
      try {
        iframe.contentWindow?.postMessage({ type: HELLO_TYPE }, "*");
      } catch {
        // a frame being torn down: try again next tick
      }
    };
    const timer = setTimeout(() => {
      done();
      const stray = strayOrigin !== null ? ` A Sandshell answered from ${strayOrigin} instead: pass that as options.origin if it is the one you mean.` : "";
      const message = `No Sandshell answered from ${origin} within ${timeoutMs} ms.${stray} Check that the iframe's src is the Sandshell page on that origin and that it has loaded.`;
      reject(new SandshellTimeoutError(message, origin, timeoutMs));
    }, timeoutMs);
    const interval = setInterval(hello, API.helloIntervalMs);
    const done = (): void => {
      clearTimeout(timer);
      clearInterval(interval);
      win.removeEventListener("message", onMessage as EventListener);
    };
    win.addEventListener("message", onMessage as EventListener);
    hello();
  });

  const target = iframe.contentWindow;
  if (target === null) throw new Error("Sandshell: the iframe has no window (was it removed from the page?)");
  const channel = new MessageChannel();
  target.postMessage({ type: CONNECT_TYPE }, origin, [channel.port2]);
  return { port: channel.port1, origin, here, win };
}

/** The JSON-RPC error code a refusal is reported with to pending requests. */
export const REJECTED_CODE = -32001;

/**
 * An MCP transport on the host's port: the MessagePortTransport, plus one thing any client needs: when the sandbox
 * refuses this page, every request sent (and any sent later) gets a JSON-RPC error with the sandbox's reason.
 */
export class SandboxTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly inner: MessagePortTransport;
  /** The sandbox's origin. */
  readonly origin: string;
  /** Set when the sandbox refused the connection. */
  rejection: SandshellRejectedError | null = null;
  private readonly pending = new Set<string | number>();

  constructor(port: PortLike, origin: string, here = "this page") {
    this.inner = new MessagePortTransport(port);
    this.origin = origin;
    this.inner.onmessage = (message) => {
      if ("id" in message && ("result" in message || "error" in message)) this.pending.delete(message.id as string | number);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => {
      if (error instanceof SandshellRejectedError) {
        const e = new SandshellRejectedError(error.reason);
        e.message = `Sandshell at ${origin} refused this page (${here}): ${error.reason}`;
        this.rejection = e;
        for (const id of [...this.pending]) this.refuse(id);
      }
      this.onerror?.(error);
    };
    this.inner.onclose = () => this.onclose?.();
  }

  private refuse(id: string | number): void {
    this.pending.delete(id);
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: REJECTED_CODE, message: this.rejection?.message ?? "Sandshell refused the connection" } });
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const request = "method" in message && "id" in message ? (message.id as string | number) : null;
    if (this.rejection !== null) {
      if (request !== null) queueMicrotask(() => this.refuse(request));
      return;
    }
    if (request !== null) this.pending.add(request);
    await this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The handshake helper for any MCP client: resolves with a transport (not yet started: the client's connect()
 * starts it) once the sandbox answered and has its port.
 *
 *   const transport = await openSandboxTransport(iframe);
 *   await new Client({ name: "my-app", version: "1.0.0" }).connect(transport);
 */
export async function openSandboxTransport(iframe: FrameLike, options: HandshakeOptions = {}): Promise<SandboxTransport> {
  const { port, origin, here } = await handshake(iframe, options);
  return new SandboxTransport(port as unknown as PortLike, origin, here);
}

/**
 * `arguments` as the raw JSON text a model produced, for a plain MCP client (its types want an object; on the wire
 * `arguments` is the string itself, the sandbox's documented extension):
 *   client.callTool({ name: "bash", ...rawArguments('{"command": "ls",}') }, undefined, { timeout: CALL_TIMEOUT_MS })
 */
export function rawArguments(text: string): { arguments: Record<string, unknown> } {
  return { arguments: text as unknown as Record<string, unknown> };
}

/** A tools/call may wait this long: the longest command plus a full approval wait (an MCP client's default is 60 s). */
export const CALL_TIMEOUT_MS: number = API.callTimeoutMs;
