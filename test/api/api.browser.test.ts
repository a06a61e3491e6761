// The API in Chromium (Vitest browser mode): real windows, real postMessage with origins, real MessagePorts
// with structured clone, the client SDK's connectSandbox, and the real sandbox on the embedded runtime
// (just-bash in a module Worker). The sandbox "page" is a same-origin iframe that loads the API as a module
// in its own realm (a message's source is the realm whose code posts it, so the serving code must live in
// the frame, as it does in the playground); the sandbox object comes from this realm, where Vitest's module
// runner is. The cross-origin host page is e2e/api.spec.ts's job.
import { afterAll, expect, it } from "vitest";
import type { ApiEvent } from "../../src/api/index.ts";
import { connectSandbox, SandshellRejectedError } from "../../src/client/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox.ts";

const frames: HTMLIFrameElement[] = [];

interface FrameApi {
  events: ApiEvent[];
  error?: string;
  ready: boolean;
}

let shared: Sandbox | null = null;

/** One embedded sandbox for the whole file, created in this realm (Vitest's module runner lives here). */
async function theSandbox(): Promise<Sandbox> {
  shared ??= await createSandbox({ runtime: "embedded", approver: "deny" });
  return shared;
}

/** A frame that serves the sandbox with the given serveSandbox options, from its own realm. */
async function sandboxFrame(serveOptions: Record<string, unknown> = {}, serve = true): Promise<{ iframe: HTMLIFrameElement; state: () => FrameApi }> {
  const iframe = document.createElement("iframe");
  const script = serve
    ? `
      window.state = { events: [], ready: false };
      try {
        const { serveSandbox } = await import("/src/api/index.ts");
        const sandbox = await new Promise((resolve) => (window.provideSandbox = resolve));
        window.api = serveSandbox(sandbox, { ...${JSON.stringify(serveOptions)}, onEvent: (e) => window.state.events.push(e) });
        window.state.ready = true;
      } catch (err) {
        window.state.error = String(err && err.stack || err);
      }`
    : "window.state = { events: [], ready: true };";
  iframe.srcdoc = `<!doctype html><title>sandbox frame</title><script type="module">${script}<\/script>`;
  document.body.append(iframe);
  frames.push(iframe);
  await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
  const win = iframe.contentWindow as unknown as { state: FrameApi; provideSandbox?: (s: Sandbox) => void };
  if (serve) {
    const sandbox = await theSandbox();
    await until(() => typeof win.provideSandbox === "function" || win.state.error !== undefined);
    win.provideSandbox?.(sandbox);
  }
  return { iframe, state: () => win.state };
}

afterAll(async () => {
  for (const f of frames) f.remove();
  await shared?.close();
});

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

it("connects over real postMessage and MessagePorts (hello until ready), lists tools, runs bash, takes raw-string arguments", async () => {
  const { iframe, state } = await sandboxFrame();
  // connectSandbox starts before the sandbox is up: it says hello until the frame answers ready.
  const conn = await connectSandbox(iframe, { origin: location.origin, timeoutMs: 30_000 });
  expect(state().error).toBeUndefined();
  const tools = await conn.listTools();
  expect(tools.map((t) => t.name)).toContain("bash");
  const chunks: string[] = [];
  const r = await conn.callTool("bash", { command: "echo in-chromium && pwd" }, { onOutput: (c) => chunks.push(c) });
  expect(r.content.map((c) => (c as { text: string }).text).join("")).toContain("in-chromium");
  expect(r.structuredContent).toMatchObject({ status: "completed", exitCode: 0 });
  expect(chunks.join("")).toContain("in-chromium");
  const raw = await conn.callTool("bash", "{'command': 'echo repaired-in-browser',}");
  expect(JSON.stringify(raw.content)).toContain("repaired-in-browser");
  expect(raw.structuredContent?.repairedArguments).toEqual({ command: "echo repaired-in-browser" });
  expect(state().events.map((e) => e.type)).toEqual(expect.arrayContaining(["connected", "initialized"]));
  await conn.close();
  // The sandbox learns of it (the goodbye message; browsers do not reliably tell a port its partner closed).
  await until(() => state().events.some((e) => e.type === "disconnected"), 5_000);
}, 60_000);

it("bad input over a real port: -32700 for values JSON cannot hold, -32601 for unknown methods; the session serves on", async () => {
  const { iframe, state } = await sandboxFrame();
  await until(() => state().ready || state().error !== undefined);
  expect(state().error).toBeUndefined();
  const channel = new MessageChannel();
  const got: Array<Record<string, unknown>> = [];
  channel.port1.onmessage = (e) => got.push(e.data);
  iframe.contentWindow!.postMessage({ type: "sandshell:connect" }, location.origin, [channel.port2]);
  const wait = async (id: unknown) => {
    for (let i = 0; i < 500; i++) {
      const m = got.find((x) => x.id === id);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no answer for ${String(id)}; got ${JSON.stringify(got)}`);
  };
  channel.port1.postMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bash", arguments: { command: new Map() } } });
  expect((await wait(1)).error).toMatchObject({ code: -32700 });
  channel.port1.postMessage({ jsonrpc: "2.0", id: 2, method: "resources/list" });
  expect((await wait(2)).error).toMatchObject({ code: -32601 });
  channel.port1.postMessage("{broken");
  await until(() => got.some((m) => m.id === null && (m.error as { code: number }).code === -32700));
  channel.port1.postMessage({ jsonrpc: "2.0", id: 3, method: "ping" });
  expect((await wait(3)).result).toEqual({});
  expect(state().events.filter((e) => e.type === "error-reply").map((e) => e.code)).toEqual([-32700, -32601, -32700]);
  channel.port1.close();
}, 60_000);

it("a page whose origin is not on the list is refused with sandshell:rejected", async () => {
  // The frame pretends to live elsewhere, so this page's (real) origin is a stranger to it.
  const { iframe, state } = await sandboxFrame({ selfOrigin: "https://elsewhere.example", origins: "https://friend.example" });
  const err = await connectSandbox(iframe, { origin: location.origin, timeoutMs: 30_000 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SandshellRejectedError);
  expect((err as Error).message).toContain(`refused this page (${location.origin})`);
  expect(state().events.some((e) => e.type === "rejected" && e.origin === location.origin)).toBe(true);
}, 60_000);

it("with nobody serving, the timeout error names the origin it waited for", async () => {
  const { iframe } = await sandboxFrame({}, false);
  const err = await connectSandbox(iframe, { origin: location.origin, timeoutMs: 400 }).catch((e: unknown) => e);
  expect((err as Error).message).toContain(`No Sandshell answered from ${location.origin} within 400 ms`);
});
