// The handshake: origin decisions as pure functions, then the wiring on fake windows that post to each
// other with origins the way browsers do (ready, hello, connect with a port, rejection), and the client
// SDK's connectSandbox over them against a real sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anyOriginWarning,
  classify,
  decideOrigin,
  isReady,
  listenForConnections,
  normalizeOrigin,
  parseOrigins,
  READY,
  serveSandbox,
  type ApiEvent,
  type HandshakeEvent,
} from "../../src/api/index.ts";
import { connectSandbox, SandshellRejectedError } from "../../src/client/index.ts";
import { createSandbox, type Sandbox } from "../../src/node.ts";
import { FakePort, FakeWindow, frame } from "./fakes.ts";
import { sleep, textOf } from "./helpers.ts";

/** Long enough for the fakes' timer-delivered messages on a loaded machine (5 ms was not). */
const DELIVERY_MS = 50;

const SANDBOX = "http://sandbox.test:4173";
const HOST = "http://host.test:4174";
const policy = (over: Partial<{ origins: string[]; allowAny: boolean }> = {}) => ({ self: SANDBOX, origins: [], allowAny: false, ...over });

describe("origins, as pure functions", () => {
  it("normalizeOrigin accepts exact origins only", () => {
    expect(normalizeOrigin("https://Example.COM")).toBe("https://example.com");
    expect(normalizeOrigin("https://example.com/")).toBe("https://example.com");
    expect(normalizeOrigin("https://example.com:443")).toBe("https://example.com");
    expect(normalizeOrigin("http://localhost:4174")).toBe("http://localhost:4174");
    for (const bad of ["", "*", "null", "example.com", "https://example.com/app", "https://example.com?x=1", "https://u:p@example.com", "file:///tmp/x.html", "data:text/html,hi", "javascript:alert(1)"]) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it("parseOrigins reads the URL parameter: a comma list, * only when written", () => {
    expect(parseOrigins(null)).toEqual({ origins: [], allowAny: false, invalid: [] });
    expect(parseOrigins("")).toEqual({ origins: [], allowAny: false, invalid: [] });
    expect(parseOrigins(" https://a.test , http://b.test:8080/,https://a.test")).toEqual({ origins: ["https://a.test", "http://b.test:8080"], allowAny: false, invalid: [] });
    expect(parseOrigins("*")).toEqual({ origins: [], allowAny: true, invalid: [] });
    expect(parseOrigins("https://a.test,*")).toMatchObject({ allowAny: true, origins: ["https://a.test"] });
    expect(parseOrigins("a.test,https://ok.test,https://x.test/path")).toEqual({ origins: ["https://ok.test"], allowAny: false, invalid: ["a.test", "https://x.test/path"] });
    // Wildcards inside an origin are not patterns: refused as not an origin.
    expect(parseOrigins("https://*.example.com").origins).toEqual([]);
  });

  it("decideOrigin: own origin, listed origins, * when asked, nothing else", () => {
    expect(decideOrigin(SANDBOX, policy())).toEqual({ allowed: true, why: "own origin" });
    expect(decideOrigin(HOST, policy({ origins: [HOST] }))).toEqual({ allowed: true, why: "listed" });
    expect(decideOrigin("http://evil.test", policy({ allowAny: true }))).toEqual({ allowed: true, why: "any origin (origins=*)" });
    const refused = decideOrigin("http://evil.test", policy({ origins: [HOST] }));
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) {
      expect(refused.reason).toContain("http://evil.test");
      expect(refused.reason).toContain("?origins=http%3A%2F%2Fevil.test");
      expect(refused.reason).not.toContain(HOST); // the allowlist is not told to strangers
    }
    // Near misses are different origins.
    for (const near of ["http://sandbox.test", "https://sandbox.test:4173", "http://sandbox.test:41730", "http://host.test:4174.evil.test", "HTTP://SANDBOX.TEST:4173"]) {
      expect(decideOrigin(near, policy({ origins: [HOST] })).allowed, near).toBe(false);
    }
  });

  it('the opaque origin "null" never matches an own "null" origin or a list, only *', () => {
    expect(decideOrigin("null", { self: "null", origins: [], allowAny: false }).allowed).toBe(false);
    expect(decideOrigin("null", { self: "null", origins: ["null"], allowAny: false }).allowed).toBe(false);
    const r = decideOrigin("null", policy());
    expect(r.allowed === false && r.reason).toMatch(/origins=\*/);
    expect(decideOrigin("null", policy({ allowAny: true })).allowed).toBe(true);
  });

  it("classify and isReady tell handshake messages from the rest", () => {
    expect(classify({ type: "sandshell:hello" })).toBe("hello");
    expect(classify({ type: "sandshell:connect" })).toBe("connect");
    expect(classify(READY)).toBe("ready");
    expect(classify({ type: "sandshell:rejected", reason: "x" })).toBe("rejected");
    expect(classify({ type: "sandshell:nope" })).toBe("sandshell-other");
    expect(classify({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBe("json-rpc");
    for (const other of [null, 1, "sandshell:hello", { type: 5 }, { source: "react-devtools" }, []]) expect(classify(other)).toBe("other");
    expect(isReady(READY)).toBe(true);
    expect(isReady({ type: "sandshell:ready", protocol: "mcp", version: 2 })).toBe(false);
    expect(isReady({ type: "sandshell:ready", protocol: "other", version: 1 })).toBe(false);
    expect(anyOriginWarning()).toMatch(/any web page/);
  });
});

describe("the window wiring (fake windows with browser-like origins)", () => {
  function setup(options: { origins?: string[]; allowAny?: boolean; framed?: boolean } = {}) {
    const host = new FakeWindow(HOST);
    const inner = new FakeWindow(SANDBOX);
    const iframe = frame(host, inner, `${SANDBOX}/?embed=1`);
    if (options.framed === false) inner.parent = inner;
    const atHost: Array<{ data: unknown; origin: string; source: unknown }> = [];
    host.addEventListener("message", (e) => atHost.push({ data: e.data, origin: e.origin, source: e.source }));
    const events: HandshakeEvent[] = [];
    const accepted: Array<{ port: unknown; origin: string }> = [];
    const stop = listenForConnections(inner, {
      policy: policy({ origins: options.origins ?? [], allowAny: options.allowAny ?? false }),
      onConnect: (port, origin) => {
        accepted.push({ port, origin });
        return null;
      },
      onEvent: (e) => events.push(e),
    });
    return { host, inner, iframe, atHost, events, accepted, stop };
  }

  it("announces ready to the parent when framed (target *), and not when it is the top window", async () => {
    const s = setup();
    await sleep(DELIVERY_MS);
    expect(s.atHost).toEqual([{ data: READY, origin: SANDBOX, source: s.iframe.contentWindow }]);
    expect(s.events.map((e) => e.type)).toEqual(["ready"]);
    const top = setup({ framed: false });
    await sleep(DELIVERY_MS);
    expect(top.atHost).toEqual([]);
    expect(top.events).toEqual([]);
  });

  it("answers hello from anyone with ready (it carries nothing secret)", async () => {
    const s = setup();
    await sleep(DELIVERY_MS);
    s.atHost.length = 0;
    s.iframe.contentWindow.postMessage({ type: "sandshell:hello" }, "*");
    await sleep(DELIVERY_MS);
    expect(s.atHost).toEqual([{ data: READY, origin: SANDBOX, source: s.iframe.contentWindow }]);
  });

  it("accepts a connect from a listed origin and hands over the port", async () => {
    const s = setup({ origins: [HOST] });
    const port = new FakePort();
    s.iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX, [port]);
    await sleep(DELIVERY_MS);
    expect(s.accepted).toEqual([{ port, origin: HOST }]);
    expect(port.posted).toEqual([]);
    expect(port.closed).toBe(false);
  });

  it("refuses a connect from an origin not on the list: sandshell:rejected on the port, which closes", async () => {
    const s = setup();
    const port = new FakePort();
    s.iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX, [port]);
    await sleep(DELIVERY_MS);
    expect(s.accepted).toEqual([]);
    expect(port.posted).toHaveLength(1);
    expect(port.posted[0]).toMatchObject({ type: "sandshell:rejected" });
    expect((port.posted[0] as { reason: string }).reason).toContain(HOST);
    expect(port.closed).toBe(true);
    expect(s.events.at(-1)).toMatchObject({ type: "rejected", origin: HOST });
  });

  it("origins=* accepts anyone, with a warning event", async () => {
    const s = setup({ allowAny: true });
    expect(s.events[0]).toMatchObject({ type: "warning" });
    const port = new FakePort();
    s.iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX, [port]);
    await sleep(DELIVERY_MS);
    expect(s.accepted).toHaveLength(1);
  });

  it("a connect without a port, and JSON-RPC on the window before connecting, are ignored and logged", async () => {
    const s = setup({ origins: [HOST] });
    s.iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX);
    s.iframe.contentWindow.postMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bash", arguments: { command: "id" } } }, SANDBOX);
    s.iframe.contentWindow.postMessage({ type: "sandshell:bogus" }, SANDBOX);
    s.iframe.contentWindow.postMessage({ unrelated: "extension traffic" }, SANDBOX);
    await sleep(DELIVERY_MS);
    expect(s.accepted).toEqual([]);
    const ignored = s.events.filter((e) => e.type === "ignored");
    expect(ignored.map((e) => e.detail)).toEqual([
      expect.stringMatching(/without a MessagePort/),
      expect.stringMatching(/before any connection/),
      expect.stringMatching(/unknown handshake message/),
    ]);
  });

  it("a refusal from onConnect (no room) is sent as a rejection too", async () => {
    const host = new FakeWindow(HOST);
    const inner = new FakeWindow(SANDBOX);
    const iframe = frame(host, inner, SANDBOX);
    listenForConnections(inner, { policy: policy({ origins: [HOST] }), onConnect: () => "The sandbox already serves 32 connections; close one first." });
    const port = new FakePort();
    iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX, [port]);
    await sleep(DELIVERY_MS);
    expect(port.posted).toEqual([{ type: "sandshell:rejected", reason: "The sandbox already serves 32 connections; close one first." }]);
    expect(port.closed).toBe(true);
  });

  it("the stop function removes the listener", () => {
    const s = setup();
    expect(s.inner.listenerCount).toBe(1);
    s.stop();
    expect(s.inner.listenerCount).toBe(0);
  });
});

describe("connectSandbox over the handshake, against a real sandbox", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ runtime: "node" });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  function windows() {
    const host = new FakeWindow(HOST);
    const inner = new FakeWindow(SANDBOX);
    const iframe = frame(host, inner, `${SANDBOX}/?embed=1&origins=${encodeURIComponent(HOST)}`);
    return { host, inner, iframe };
  }

  it("connects when the sandbox announced ready before the host listened (hello catches up), lists tools, runs bash", async () => {
    const { host, inner, iframe } = windows();
    const events: ApiEvent[] = [];
    const api = serveSandbox(sandbox, { window: inner, origins: HOST, onEvent: (e) => events.push(e) });
    await sleep(20); // the ready announcement is long gone
    const conn = await connectSandbox(iframe as unknown as HTMLIFrameElement, { origin: SANDBOX, window: host as never, timeoutMs: 3_000 });
    expect((await conn.listTools()).map((t) => t.name)).toContain("bash");
    const r = await conn.callTool("bash", { command: "echo over-the-handshake" });
    expect(textOf(r)).toContain("over-the-handshake");
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["ready", "connected", "initialized"]));
    expect(host.listenerCount).toBe(0); // the ready listener is gone
    await conn.close();
    expect(host.countOf("pagehide")).toBe(0);
    await api.close();
  });

  it("leaving the host page (pagehide) says goodbye: the sandbox ends the session at once", async () => {
    const { host, inner, iframe } = windows();
    const events: ApiEvent[] = [];
    const api = serveSandbox(sandbox, { window: inner, origins: HOST, onEvent: (e) => events.push(e) });
    const conn = await connectSandbox(iframe as unknown as HTMLIFrameElement, { window: host as never, timeoutMs: 3_000 });
    expect(api.sessions()).toHaveLength(1);
    host.fire("pagehide");
    await sleep(30);
    expect(api.sessions()).toHaveLength(0);
    expect(events.some((e) => e.type === "disconnected")).toBe(true);
    await expect(conn.callTool("bash", { command: "echo x" })).rejects.toThrow();
    await api.close();
  });

  it("connects when the host starts before the sandbox serves (hello until ready), origin taken from the iframe's src", async () => {
    const { host, inner, iframe } = windows();
    const pending = connectSandbox(iframe as unknown as HTMLIFrameElement, { window: host as never, timeoutMs: 3_000 });
    await sleep(250); // a few hellos go unanswered
    const api = serveSandbox(sandbox, { window: inner, origins: [HOST] });
    const conn = await pending;
    expect(conn.origin).toBe(SANDBOX);
    expect(textOf(await conn.callTool("bash", '{"command": "echo late"}'))).toContain("late");
    await conn.close();
    await api.close();
  });

  it("a page whose origin is not allowed gets a SandshellRejectedError naming both origins", async () => {
    const { host, inner, iframe } = windows();
    const events: ApiEvent[] = [];
    const api = serveSandbox(sandbox, { window: inner, origins: "https://someone-else.test", onEvent: (e) => events.push(e) });
    const err = await connectSandbox(iframe as unknown as HTMLIFrameElement, { origin: SANDBOX, window: host as never, timeoutMs: 3_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandshellRejectedError);
    expect((err as Error).message).toContain(`Sandshell at ${SANDBOX} refused this page (${HOST})`);
    expect((err as Error).message).toContain(`?origins=${encodeURIComponent(HOST)}`);
    expect(events.some((e) => e.type === "rejected" && e.origin === HOST)).toBe(true);
    expect(sandbox.auditLog().some((e) => e.event === "api.rejected" && e.origin === HOST)).toBe(true);
    expect(api.sessions()).toHaveLength(0);
    await api.close();
  });

  it("nothing answering gives a timeout error naming the origin it waited for", async () => {
    const { host, iframe } = windows();
    const t0 = Date.now();
    const err = await connectSandbox(iframe as unknown as HTMLIFrameElement, { origin: SANDBOX, window: host as never, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect((err as Error).message).toMatch(new RegExp(`No Sandshell answered from ${SANDBOX.replace(/[.:/]/g, "\\$&")} within 300 ms`));
  });

  it("a ready from another origin than the one expected is not trusted, and the error says where it came from", async () => {
    const { host, inner, iframe } = windows();
    const api = serveSandbox(sandbox, { window: inner, origins: [HOST] });
    const err = await connectSandbox(iframe as unknown as HTMLIFrameElement, { origin: "http://expected.test", window: host as never, timeoutMs: 400 }).catch((e: unknown) => e);
    expect((err as Error).message).toContain("No Sandshell answered from http://expected.test");
    expect((err as Error).message).toContain(`answered from ${SANDBOX} instead`);
    // The connect (with the port) was never sent to the wrong origin.
    expect(inner.dropped).toEqual([]);
    await api.close();
  });

  it("the port goes only to the sandbox's origin: a frame that navigated elsewhere never receives it", async () => {
    const host = new FakeWindow(HOST);
    const elsewhere = new FakeWindow("http://elsewhere.test");
    const iframe = frame(host, elsewhere, `${SANDBOX}/`);
    // The frame (now elsewhere) pretends to be ready, from its own origin: the client ignores it.
    const fake = { ...iframe };
    const err = await connectSandbox(fake as unknown as HTMLIFrameElement, { origin: SANDBOX, window: host as never, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const seen: unknown[] = [];
    elsewhere.addEventListener("message", (e) => seen.push(e.data));
    await sleep(10);
    expect(seen.some((d) => (d as { type?: string }).type === "sandshell:connect")).toBe(false);
  });

  it("serveSandbox warns about origins=* and about entries that are not origins", () => {
    const { inner } = windows();
    const events: ApiEvent[] = [];
    const api = serveSandbox(sandbox, { window: inner, origins: "*,not-an-origin", onEvent: (e) => events.push(e) });
    expect(api.policy.allowAny).toBe(true);
    const warnings = events.filter((e) => e.type === "warning").map((e) => e.detail);
    expect(warnings).toEqual([expect.stringMatching(/not-an-origin/), expect.stringMatching(/any web page/)]);
    void api.close();
  });
});
