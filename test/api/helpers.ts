// Helpers for the API tests: a server on a real MessageChannel, the real MCP SDK Client on the other end
// (through the client SDK), and a raw peer that sends whatever it is told and collects what comes back.

import { serveSandbox, type ApiEvent, type ApiServer, type ServeOptions, type ServedSandbox } from "../../src/api/index.ts";
import type { PortLike } from "../../src/api/transport.ts";
import { connectOverPort, type ConnectOptions, type SandboxConnection } from "../../src/client/index.ts";
import { createSandbox, type NodeSandboxOptions, type Sandbox } from "../../src/node.ts";

export const HOST_ORIGIN = "http://host.test";

export interface Served {
  api: ApiServer;
  events: ApiEvent[];
}

export function serve(host: ServedSandbox, options: ServeOptions = {}): Served {
  const events: ApiEvent[] = [];
  const api = serveSandbox(host, { selfOrigin: "http://sandbox.test", ...options, onEvent: (e) => events.push(e) });
  return { api, events };
}

export async function connect(served: Served, options: Omit<ConnectOptions, "window" | "origin"> = {}): Promise<SandboxConnection> {
  const channel = new MessageChannel();
  served.api.connect(channel.port1 as unknown as PortLike, HOST_ORIGIN);
  return connectOverPort(channel.port2 as unknown as PortLike, { origin: "http://sandbox.test", ...options });
}

/** A peer that speaks raw messages on a port. */
export class RawPeer {
  readonly received: unknown[] = [];
  private waiters: Array<{ match: (m: unknown) => boolean; resolve: (m: unknown) => void }> = [];
  readonly port: MessagePort;
  answerPings = true;

  constructor(port: MessagePort) {
    this.port = port;
    port.addEventListener("message", (event: MessageEvent) => {
      // A live client answers the server's heartbeat; a peer that should look gone sets answerPings = false.
      const m = event.data as Record<string, unknown> | null;
      if (this.answerPings && isObject(m) && m.method === "ping" && m.id !== undefined) {
        port.postMessage({ jsonrpc: "2.0", id: m.id, result: {} });
        return;
      }
      this.received.push(event.data);
      const i = this.waiters.findIndex((w) => w.match(event.data));
      if (i !== -1) this.waiters.splice(i, 1)[0]!.resolve(event.data);
    });
    port.start();
  }

  post(message: unknown): void {
    this.port.postMessage(message);
  }

  /** The next message (already received or still to come) that matches. */
  waitFor(match: (m: unknown) => boolean, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const seen = this.received.find(match);
    if (seen !== undefined) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen as Record<string, unknown>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; received: ${JSON.stringify(this.received).slice(0, 500)}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          this.received.splice(this.received.indexOf(m), 1);
          resolve(m as Record<string, unknown>);
        },
      });
    });
  }

  /** Sends a request and waits for the response with its id. */
  async request(message: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.post(message);
    return this.waitFor((m) => isObject(m) && m.id === message.id && ("result" in m || "error" in m), timeoutMs);
  }

  /** Sends a message and waits for an error response with id null. */
  async nullIdError(message: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.post(message);
    return this.waitFor((m) => isObject(m) && m.id === null && "error" in m, timeoutMs);
  }

  /** initialize + notifications/initialized. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const r = await this.request({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "raw", version: "1" } },
    });
    this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return r;
  }

  /** Nothing arrives for a while (for what must not be answered). */
  async quiet(ms = 100): Promise<unknown[]> {
    const before = this.received.length;
    await new Promise((r) => setTimeout(r, ms));
    return this.received.slice(before);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A raw peer connected to the server (the server's end is accepted as HOST_ORIGIN). */
export function rawPeer(served: Served): RawPeer {
  const channel = new MessageChannel();
  served.api.connect(channel.port1 as unknown as PortLike, HOST_ORIGIN);
  return new RawPeer(channel.port2);
}

/** A real sandbox (node runtime; `options` on top), served; close() ends the server, then the sandbox. */
export async function servedSandbox(
  options: NodeSandboxOptions = {},
  serveOptions: ServeOptions = {},
): Promise<{ sandbox: Sandbox; served: Served; close(): Promise<void> }> {
  const sandbox = await createSandbox({ runtime: "node", ...options });
  const served = serve(sandbox, serveOptions);
  return {
    sandbox,
    served,
    async close() {
      await served.api.close();
      await sandbox.close();
    },
  };
}

/** The real sandbox (node runtime, approvals denied), served, with an initialized raw peer; close() ends all three. */
export async function servedPeer(): Promise<{ sandbox: Sandbox; served: Served; peer: RawPeer; close(): Promise<void> }> {
  // A short flood window: each test's bad message starts its own window, so it is an entry of its own.
  const s = await servedSandbox({ approver: "deny", audit: { floodWindowMs: 10 } });
  const peer = rawPeer(s.served);
  await peer.initialize();
  return {
    ...s,
    peer,
    async close() {
      peer.port.close();
      await s.close();
    },
  };
}

export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((c) => c.text ?? "").join("");
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
