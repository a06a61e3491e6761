// The MessagePort transport: JSON-RPC objects (structured clone, not strings) both ways, close on either
// end, the handshake's rejection, and messages that cannot be deserialized.
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { MessageDataError, MessagePortTransport, SandshellRejectedError, type PortLike } from "../../src/api/transport.ts";
import { MessagePortTransport as FromClient } from "../../src/client/index.ts";
import { FakePort } from "./fakes.ts";
import { sleep } from "./helpers.ts";

function pair(): [MessagePortTransport, MessagePortTransport, MessageChannel] {
  const channel = new MessageChannel();
  return [new MessagePortTransport(channel.port1 as unknown as PortLike), new MessagePortTransport(channel.port2 as unknown as PortLike), channel];
}

function inbox(t: MessagePortTransport): unknown[] {
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  return got;
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(5);
  }
}

describe("MessagePortTransport", () => {
  it("is the same class from src/client", () => {
    expect(FromClient).toBe(MessagePortTransport);
  });

  it("carries JSON-RPC objects both ways, as objects, in order", async () => {
    const [a, b] = pair();
    const atA = inbox(a);
    const atB = inbox(b);
    await a.start();
    await b.start();
    const request: JSONRPCMessage = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bash", arguments: { command: "echo ünïcödé 🐚" } } };
    await a.send(request);
    await a.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 3, message: "abc" } });
    await b.send({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "x\ny" }], structuredContent: { exitCode: 0 } } });
    await until(() => atB.length === 2 && atA.length === 1);
    expect(atB[0]).toEqual(request);
    expect(atB[0]).not.toBe(request); // a structured clone, not the same object
    expect(typeof atB[0]).toBe("object");
    expect((atB[1] as { method: string }).method).toBe("notifications/progress");
    expect(atA[0]).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "x\ny" }], structuredContent: { exitCode: 0 } } });
    await a.close();
    await b.close();
  });

  it("round-trips many messages without loss or reordering", async () => {
    const [a, b] = pair();
    const atB = inbox(b);
    await a.start();
    await b.start();
    for (let i = 0; i < 2_000; i++) await a.send({ jsonrpc: "2.0", id: i, method: "ping" });
    await until(() => atB.length === 2_000);
    expect(atB.map((m) => (m as { id: number }).id)).toEqual([...Array(2_000).keys()]);
    await a.close();
    await b.close();
  });

  it("close() calls onclose once, and the other end learns of it", async () => {
    const [a, b] = pair();
    let closedA = 0;
    let closedB = 0;
    a.onclose = () => closedA++;
    b.onclose = () => closedB++;
    await a.start();
    await b.start();
    await a.close();
    await a.close();
    expect(closedA).toBe(1);
    await until(() => closedB === 1); // by the goodbye message (and, in Node, the port's "close" event)
    expect(b.isClosed).toBe(true);
  });

  it("close() says goodbye on the port first; a goodbye closes the receiving end without an answer", async () => {
    const port = new FakePort();
    const t = new MessagePortTransport(port);
    await t.start();
    await t.close();
    expect(port.posted).toEqual([{ type: "sandshell:closed" }]);
    expect(port.closed).toBe(true);

    const other = new FakePort();
    const u = new MessagePortTransport(other);
    let closed = 0;
    u.onclose = () => closed++;
    const got = inbox(u);
    await u.start();
    other.fire("message", { type: "sandshell:closed" });
    expect(closed).toBe(1);
    expect(other.closed).toBe(true);
    expect(other.posted).toEqual([]); // no goodbye back
    expect(got).toEqual([]);
  });

  it("a JSON-RPC message that happens to carry type sandshell:closed is not a goodbye", async () => {
    const port = new FakePort();
    const t = new MessagePortTransport(port);
    const got = inbox(t);
    await t.start();
    port.fire("message", { jsonrpc: "2.0", method: "x", type: "sandshell:closed" });
    expect(got).toHaveLength(1);
    expect(t.isClosed).toBe(false);
  });

  it("send() after close rejects instead of posting into nothing", async () => {
    const [a, b] = pair();
    await a.start();
    await b.start();
    await a.close();
    await expect(a.send({ jsonrpc: "2.0", id: 1, method: "ping" })).rejects.toThrow(/closed/);
    await b.close();
  });

  it("start() twice is an error (the SDK starts it once)", async () => {
    const [a, b] = pair();
    await a.start();
    await expect(a.start()).rejects.toThrow(/already started/);
    await a.close();
    await b.close();
  });

  it("a sandshell:rejected message becomes a SandshellRejectedError and closes the transport", async () => {
    const port = new FakePort();
    const t = new MessagePortTransport(port);
    const errors: Error[] = [];
    let closed = false;
    t.onerror = (e) => errors.push(e);
    t.onclose = () => (closed = true);
    const got = inbox(t);
    await t.start();
    port.fire("message", { type: "sandshell:rejected", reason: "The origin http://evil.test is not allowed" });
    expect(errors[0]).toBeInstanceOf(SandshellRejectedError);
    expect((errors[0] as SandshellRejectedError).reason).toBe("The origin http://evil.test is not allowed");
    expect(t.rejection?.reason).toMatch(/evil/);
    expect(closed).toBe(true);
    expect(port.closed).toBe(true);
    expect(got).toEqual([]);
    port.fire("message", { jsonrpc: "2.0", id: 1, result: {} }); // after close: dropped
    expect(got).toEqual([]);
  });

  it("messageerror becomes a MessageDataError on onerror", async () => {
    const port = new FakePort();
    const t = new MessagePortTransport(port);
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    await t.start();
    port.fire("messageerror");
    expect(errors[0]).toBeInstanceOf(MessageDataError);
  });

  it("an onmessage handler that throws is reported, and the transport goes on", async () => {
    const port = new FakePort();
    const t = new MessagePortTransport(port);
    const errors: Error[] = [];
    const got: unknown[] = [];
    t.onerror = (e) => errors.push(e);
    t.onmessage = (m) => {
      if ((m as { id?: number }).id === 1) throw new Error("boom");
      got.push(m);
    };
    await t.start();
    port.fire("message", { jsonrpc: "2.0", id: 1, method: "ping" });
    port.fire("message", { jsonrpc: "2.0", id: 2, method: "ping" });
    expect(errors.map((e) => e.message)).toEqual(["boom"]);
    expect(got).toHaveLength(1);
  });

  it("carries no sessionId unless given one (the SDK Client would skip initialize)", () => {
    expect(new MessagePortTransport(new FakePort()).sessionId).toBeUndefined();
    expect(new MessagePortTransport(new FakePort(), { sessionId: "c1" }).sessionId).toBe("c1");
  });
});
