// Bad input on a live connection to the real sandbox: each kind gets the JSON-RPC error the spec names on
// the wire, or no answer where the spec says so, and a line in the audit log; the sandbox keeps serving.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection, serveSandbox } from "../../src/api/index.ts";
import { connectSandbox } from "../../src/client/index.ts";
import { API } from "../../src/limits.ts";
import type { Sandbox } from "../../src/node.ts";
import { FakePort, FakeWindow, frame } from "./fakes.ts";
import { connect, isObject, rawPeer, serve, servedPeer, sleep, textOf, type RawPeer, type Served } from "./helpers.ts";

let sandbox: Sandbox;
let served: Served;
let peer: RawPeer;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, served, peer, close } = await servedPeer());
});
afterAll(() => close());

function errorOf(response: Record<string, unknown>): { code: number; message: string } {
  expect(response.jsonrpc).toBe("2.0");
  expect(response.result).toBeUndefined();
  return response.error as { code: number; message: string };
}

async function stillServes(): Promise<void> {
  const r = await peer.request({ jsonrpc: "2.0", id: `check-${Math.random()}`, method: "tools/call", params: { name: "bash", arguments: { command: "echo alive" } } });
  expect(JSON.stringify(r.result)).toContain("alive");
}

describe("answered with the error the spec names", () => {
  it.each([
    ["a number", 42],
    ["null", null],
    ["a boolean", false],
    ["an empty object", {}],
    ["an array (batch)", [{ jsonrpc: "2.0", id: 1, method: "ping" }]],
    ["an empty array", []],
  ])("-32600 for %s, with id null", async (_, message) => {
    const r = await peer.nullIdError(message);
    expect(errorOf(r).code).toBe(-32600);
  });

  it("-32700 for text that is not JSON", async () => {
    expect(errorOf(await peer.nullIdError("{oops")).code).toBe(-32700);
  });

  it("-32700 for values JSON cannot hold (a Map, a Date, a typed array, NaN), with the request's id", async () => {
    for (const [i, value] of [new Map([[1, 2]]), new Date(), new Uint8Array(4), Number.NaN].entries()) {
      const r = await peer.request({ jsonrpc: "2.0", id: `nj${i}`, method: "tools/call", params: { name: "bash", arguments: { command: value } } });
      expect(errorOf(r).code).toBe(-32700);
    }
  });

  it("-32600 for wrong shapes, with the id when it can be read", async () => {
    expect(errorOf(await peer.request({ jsonrpc: "1.0", id: "v", method: "ping" })).code).toBe(-32600);
    expect(errorOf(await peer.request({ jsonrpc: "2.0", id: "m", method: 12 })).code).toBe(-32600);
    expect(errorOf(await peer.request({ jsonrpc: "2.0", id: "p", method: "tools/list", params: "all" })).code).toBe(-32600);
    expect(errorOf(await peer.nullIdError({ jsonrpc: "2.0", id: { x: 1 }, method: "ping" })).code).toBe(-32600);
    expect(errorOf(await peer.nullIdError({ jsonrpc: "2.0", id: null, method: "ping" })).code).toBe(-32600);
    expect(errorOf(await peer.nullIdError({ jsonrpc: "2.0", id: 1.25, method: "ping" })).code).toBe(-32600);
  });

  it("-32601 for unknown methods", async () => {
    for (const method of ["resources/list", "prompts/list", "tools/delete", "logging/setLevel", "__proto__"]) {
      const r = await peer.request({ jsonrpc: "2.0", id: `u-${method}`, method });
      expect(errorOf(r).code, method).toBe(-32601);
    }
  });

  it("-32602 for wrong params and unknown tools", async () => {
    const cases: Array<[string, unknown]> = [
      ["no name", { arguments: {} }],
      ["arguments a number", { name: "bash", arguments: 3 }],
      ["arguments an array", { name: "bash", arguments: ["ls"] }],
      ["an unknown tool", { name: "format_disk", arguments: {} }],
      ["a tool name with odd characters", { name: "bash\u0000", arguments: {} }],
    ];
    for (const [what, params] of cases) {
      const r = await peer.request({ jsonrpc: "2.0", id: `ip-${what}`, method: "tools/call", params });
      expect(errorOf(r).code, what).toBe(-32602);
    }
    expect(errorOf(await peer.request({ jsonrpc: "2.0", id: "ip-list", method: "tools/list", params: [] })).code).toBe(-32602);
  });

  it(`-32600 for a message over API.maxMessageBytes (${API.maxMessageBytes.toLocaleString("en-US")}), and the next call works`, async () => {
    const huge = "x".repeat(API.maxMessageBytes + 1);
    const r = await peer.request({ jsonrpc: "2.0", id: "big", method: "tools/call", params: { name: "write_file", arguments: { path: "big.txt", content: huge } } }, 20_000);
    expect(errorOf(r).code).toBe(-32600);
    expect(errorOf(r).message).toMatch(/larger than/);
    await stillServes();
  });

  it("a message just under the limit is served", async () => {
    const content = "y".repeat(1024 * 1024);
    const r = await peer.request({ jsonrpc: "2.0", id: "under", method: "tools/call", params: { name: "write_file", arguments: { path: "under.txt", content } } }, 20_000);
    expect(r.error).toBeUndefined();
  });

  it("-32600 for nesting deeper than API.maxMessageDepth", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < API.maxMessageDepth + 1; i++) deep = { a: deep };
    const r = await peer.request({ jsonrpc: "2.0", id: "deep", method: "tools/call", params: { name: "bash", arguments: { command: deep } } });
    expect(errorOf(r).code).toBe(-32600);
  });

  it("each error is counted in the audit log: an entry, or its origin's flood summary", async () => {
    await sleep(50); // the last flood window closes
    const lines = sandbox.auditLog().filter((e) => e.event === "api.error-reply");
    const summaries = sandbox.auditLog().filter((e) => e.event === "api.flood");
    const codes = new Set([...lines.map((e) => e.code), ...summaries.flatMap((e) => Object.keys((e.codes ?? {}) as object).map(Number))]);
    for (const code of [-32700, -32600, -32601, -32602]) expect(codes.has(code), String(code)).toBe(true);
    expect(lines.every((e) => typeof e.detail === "string" && typeof e.caller === "string")).toBe(true);
  });
});

describe("not answered, as the spec says, but logged", () => {
  it.each([
    ["an unknown notification", { jsonrpc: "2.0", method: "notifications/made-up", params: {} }, true],
    ["a malformed cancel", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { x: 1 } } }, true],
    ["a response to nothing", { jsonrpc: "2.0", id: 987_654, result: {} }, true],
    ["an error response to nothing", { jsonrpc: "2.0", id: "zzz", error: { code: -1, message: "x" } }, true],
    ["a response with id null", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }, true],
    ["a progress notification for an unknown token", { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 999, progress: 1 } }, true],
    // MCP: a cancel for a request that is unknown (or already done) MAY be ignored; nothing to log.
    ["a cancel for a request that does not exist", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "nope" } }, false],
  ])("%s", async (_, message, logged) => {
    const before = sandbox.auditLog().length;
    peer.post(message);
    expect(await peer.quiet(80)).toEqual([]);
    const added = sandbox.auditLog().slice(before);
    expect(added.some((e) => e.event === "api.ignored")).toBe(logged);
    await stillServes();
  });
});

describe("outside a live connection", () => {
  it("before connect and from a refused origin: ignored or rejected, logged, and the sandbox serves the allowed page", async () => {
    const host = new FakeWindow("http://host.test");
    const evil = new FakeWindow("http://evil.test");
    const inner = new FakeWindow("http://sandbox.test");
    const iframe = frame(host, inner, "http://sandbox.test/");
    const evilFrame = frame(evil, inner, "http://sandbox.test/");
    const api = serveSandbox(sandbox, { window: inner, origins: "http://host.test" });
    const before = sandbox.auditLog().length;
    // MCP posted on the window, before (and instead of) a connect.
    iframe.contentWindow.postMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bash", arguments: { command: "echo hi" } } }, "*");
    // A connect from an origin not on the list.
    const refused = new MessageChannel();
    const got: unknown[] = [];
    refused.port1.addEventListener("message", (e) => got.push(e.data));
    refused.port1.start();
    evilFrame.contentWindow.postMessage({ type: "sandshell:connect" }, "http://sandbox.test", [refused.port2]);
    await sleep(50);
    expect(got).toEqual([{ type: "sandshell:rejected", reason: expect.stringContaining("http://evil.test") }]);
    // The refused page's MCP goes nowhere: the port is closed.
    refused.port1.postMessage({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await sleep(50);
    expect(got).toHaveLength(1);
    const log = sandbox.auditLog().slice(before);
    expect(log.some((e) => e.event === "api.ignored" && /before any connection/.test(String(e.detail)))).toBe(true);
    expect(log.some((e) => e.event === "api.rejected" && e.origin === "http://evil.test")).toBe(true);
    // The allowed page connects and works.
    const conn = await connectSandbox(iframe as unknown as HTMLIFrameElement, { window: host as never, timeoutMs: 3_000 });
    expect(textOf(await conn.callTool("bash", { command: "echo fine" }))).toContain("fine");
    await conn.close();
    await api.close();
  });

  it("after the port closed: the client's calls fail at once, the server forgets the session, others go on", async () => {
    const conn = await connect(served);
    const sessions = served.api.sessions().length;
    await conn.close();
    await expect(conn.callTool("bash", { command: "echo x" })).rejects.toThrow(/Not connected|closed/i);
    await sleep(50);
    expect(served.api.sessions().length).toBe(sessions - 1);
    expect(served.events.some((e) => e.type === "disconnected")).toBe(true);
    await stillServes();
  });

  it("after the server closed the session: what the peer still sends goes nowhere, without errors", async () => {
    const channel = new MessageChannel();
    const session = served.api.connect(channel.port1 as never, "http://host.test");
    const p = new (await import("./helpers.ts")).RawPeer(channel.port2);
    await p.initialize();
    await session.close();
    // The server says goodbye (so a browser client closes too), then the port is dead.
    await p.waitFor((m) => isObject(m) && m.type === "sandshell:closed");
    p.post({ jsonrpc: "2.0", id: "late", method: "tools/list" });
    expect(await p.quiet(80)).toEqual([]);
    await stillServes();
  });

  it("a message the port cannot deserialize (messageerror) gets -32700 with id null", async () => {
    const port = new FakePort();
    const session = openConnection(sandbox, port, { id: "fake", origin: "http://host.test" });
    await sleep(10);
    port.fire("messageerror");
    expect(port.posted).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/deserialized/) } }]);
    port.fire("message", { jsonrpc: "2.0", id: 1, method: "ping" });
    await sleep(10);
    expect(port.posted.at(-1)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await session.close();
  });

  it("a session whose handler throws answers -32603 and serves on", async () => {
    const broken = {
      listTools: () => [{ name: "boom", inputSchema: { type: "object" as const } }],
      callTool: async () => {
        throw new Error("the host broke");
      },
    };
    const s = serve(broken);
    const p = rawPeer(s);
    await p.initialize();
    const r = await p.request({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "boom", arguments: {} } });
    expect(r.error).toMatchObject({ code: -32603, message: "the host broke" });
    const again = await p.request({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(isObject(again.result)).toBe(true);
    p.port.close();
    await s.api.close();
  });
});
