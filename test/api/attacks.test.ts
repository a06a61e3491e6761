// A hostile caller, tried for real: the sandbox (node runtime: real bash), the API on real MessageChannels with the
// real MCP SDK client, and pages with browser-like origins (test/api/fakes.ts: Node has no windows). Each test is
// named after the attack it pins.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveSandbox } from "../../src/api/index.ts";
import type { PortLike } from "../../src/api/transport.ts";
import { connectSandbox } from "../../src/client/index.ts";
import { API, AUDIT, INPUT } from "../../src/limits.ts";
import { createSandbox, type Sandbox } from "../../src/node.ts";
import { FakeWindow, frame } from "./fakes.ts";
import { connect, HOST_ORIGIN, isObject, RawPeer, serve, servedSandbox, sleep, textOf, type Served } from "./helpers.ts";

const SANDBOX_ORIGIN = "http://sandbox.test";

describe("a page that is not on the allowlist cannot flush or blind the audit log", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ runtime: "node", approver: "deny" });
  });
  afterAll(() => sandbox.close());

  it("10,000+ junk messages and refused connects from one origin do not evict an earlier verdict, and are summarised with their count", async () => {
    await sandbox.callTool("bash", { command: "rm -rf precious" }, { caller: "c-before" });
    const verdict = sandbox.auditLog().find((e) => e.type === "verdict" && e.command === "rm -rf precious");
    expect(verdict).toBeDefined();

    const inner = new FakeWindow(SANDBOX_ORIGIN);
    const evil = new FakeWindow("http://evil.test");
    const evilFrame = frame(evil, inner, `${SANDBOX_ORIGIN}/`);
    const api = serveSandbox(sandbox, { window: inner, selfOrigin: SANDBOX_ORIGIN, origins: HOST_ORIGIN });
    const before = sandbox.auditLog().length;
    const JUNK = 10_500;
    for (let i = 0; i < JUNK; i++) {
      evilFrame.contentWindow.postMessage({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "bash", arguments: { command: `junk ${i}` } } }, "*");
    }
    const CONNECTS = 200;
    for (let i = 0; i < CONNECTS; i++) {
      const ch = new MessageChannel();
      evilFrame.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX_ORIGIN, [ch.port2]);
      ch.port1.close();
    }
    await sleep(AUDIT.floodWindowMs + 500); // the flood window closes and is summarised
    api.close();

    const added = sandbox.auditLog().slice(before).filter((e) => e.origin === "http://evil.test");
    // Not one entry each: a handful (the first, then at most one summary per second).
    expect(added.length).toBeLessThanOrEqual(5);
    const counted = added.reduce((n, e) => n + (typeof e.count === "number" ? e.count : 0), 0);
    expect(counted).toBe(JUNK + CONNECTS);
    const summary = added.find((e) => e.event === "api.flood")!;
    expect(summary.events).toMatchObject({ "api.ignored": expect.any(Number), "api.rejected": expect.any(Number) });
    // The verdict from before the flood is still there, unchanged.
    expect(sandbox.auditLog().find((e) => e.seq === verdict!.seq)).toEqual(verdict);
  });

  it("a flood of bad messages on an accepted connection is summarised too, and never evicts a verdict", async () => {
    const served = serve(sandbox);
    const ch = new MessageChannel();
    served.api.connect(ch.port1 as unknown as PortLike, HOST_ORIGIN);
    const peer = new RawPeer(ch.port2);
    await peer.initialize();
    const verdicts = () => sandbox.auditLog().filter((e) => e.type === "verdict").length;
    const v0 = verdicts();
    const before = sandbox.auditLog().length;
    for (let i = 0; i < 12_000; i++) peer.post(i % 2 === 0 ? "not json" : { jsonrpc: "2.0", id: `x${i}`, method: "made/up" });
    await peer.request({ jsonrpc: "2.0", id: "after", method: "ping" }, 30_000);
    await sleep(1_300);
    const added = sandbox.auditLog().slice(before);
    expect(added.length).toBeLessThan(20);
    expect(added.reduce((n, e) => n + (typeof e.count === "number" ? e.count : 0), 0)).toBe(12_000);
    expect(verdicts()).toBe(v0);
    peer.port.close();
    await served.api.close();
  });

  it("a long command is in the log whole (its tail too), not cut at 2,000 characters", async () => {
    const tail = "TAIL-MARKER";
    const command = `echo ${"x".repeat(100_000)} ${tail}`;
    await sandbox.callTool("bash", { command: `${command} > /dev/null` });
    const v = sandbox.auditLog().filter((e) => e.type === "verdict").at(-1)!;
    expect(v.command).toBe(`${command} > /dev/null`);
  });

  it("a command past the size bound is refused with what to do instead, and logged as its length and SHA-256", async () => {
    const command = `echo ${"y".repeat(INPUT.maxCommandChars)}`;
    const r = await sandbox.callTool("bash", { command });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: "error", error: "too-large", parameter: "command" });
    expect(textOf(r)).toMatch(/write_file/);
    const call = sandbox.auditLog().filter((e) => e.type === "call").at(-1)!;
    const { createHash } = await import("node:crypto");
    expect((call.args as { command: unknown }).command).toMatchObject({ chars: command.length, sha256: createHash("sha256").update(command).digest("hex") });
  });

  it("is_input text is in the log with its verdict", async () => {
    const started = await sandbox.callTool("bash", { command: "printf 'Name: '; read -r line; echo got:$line", timeout: 20 });
    expect(started.structuredContent.status).toBe("running");
    const typed = await sandbox.callTool("bash", { command: "secret-typed-text\n", is_input: true });
    expect(textOf(typed)).toContain("got:secret-typed-text");
    const input = sandbox.auditLog().find((e) => e.type === "input" && e.input === "secret-typed-text\n");
    expect(input).toMatchObject({ verdict: { rule: "is-input" } });
  });
});

describe("a client that answers its own approvals (approver=host) cannot allow everything for everyone", () => {
  let sandbox: Sandbox;
  let served: Served;
  let close: () => Promise<void>;
  beforeAll(async () => ({ sandbox, served, close } = await servedSandbox({ approver: "host" })));
  afterAll(() => close());

  it("\"always\" with rule `*`: that one call runs, no rule is added, and the next call (and another connection's) is asked again", async () => {
    let askedA = 0;
    const a = await connect(served, { onApproval: () => (askedA++, { decision: "always", rule: "*" }) });
    const r = await a.callTool("bash", { command: "rm -f nothing-a.txt" });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toMatch(/Approved by the host page/);
    expect(textOf(r)).not.toMatch(/by a person/);
    expect(textOf(r)).toMatch(/broader than the suggested `rm:\*`/);
    expect(sandbox.rules().allow).toEqual([]);
    await a.callTool("bash", { command: "rm -f nothing-b.txt" });
    expect(askedA).toBe(2);

    let askedB = 0;
    const b = await connect(served, { onApproval: () => (askedB++, { decision: "deny" }) });
    const rb = await b.callTool("bash", { command: "rm -f nothing-c.txt" });
    expect(askedB).toBe(1);
    expect(rb.structuredContent!.status).toBe("denied");
    expect(textOf(rb)).toMatch(/The host page denied/);
    const resolved = sandbox.auditLog().filter((e) => e.type === "approval" && e.phase === "resolved" && e.caller !== undefined);
    expect(resolved.every((e) => e.by === "host")).toBe(true);
    await a.close();
    await b.close();
  });

  it("\"always\" with the suggested rule holds for that connection only: another connection is still asked", async () => {
    const a = await connect(served, { onApproval: () => ({ decision: "always" }) });
    await a.callTool("bash", { command: "mkdir -p scoped" });
    expect(textOf(await a.callTool("bash", { command: "rmdir scoped" }))).toMatch(/Approved by the host page .* allowed `rmdir:\*`/s);
    await a.callTool("bash", { command: "mkdir -p scoped" });
    const again = await a.callTool("bash", { command: "rmdir scoped" });
    expect(again.structuredContent!.approval).toBeUndefined(); // ran unasked on a
    expect(sandbox.rules().allow).not.toContain("rmdir:*");
    await a.callTool("bash", { command: "mkdir -p scoped" });
    let askedB = 0;
    const b = await connect(served, { onApproval: () => (askedB++, false) });
    const rb = await b.callTool("bash", { command: "rmdir scoped" });
    expect(askedB).toBe(1);
    expect(rb.structuredContent!.status).toBe("denied");
    const rule = sandbox.auditLog().filter((e) => e.type === "rule").at(-1)!;
    expect(rule).toMatchObject({ rule: "rmdir:*", scope: "connection", by: "host" });
    await a.close();
    await b.close();
  });
});

describe("connections whose ports are dropped without goodbye are reclaimed", () => {
  it("32 dropped connections free their slots after a ping goes unanswered; then a new page connects", async () => {
    const sandbox = await createSandbox({ runtime: "node", approver: "deny" });
    const host = new FakeWindow(HOST_ORIGIN);
    const inner = new FakeWindow(SANDBOX_ORIGIN);
    const iframe = frame(host, inner, `${SANDBOX_ORIGIN}/`);
    const events: string[] = [];
    const api = serveSandbox(sandbox, {
      window: inner,
      selfOrigin: SANDBOX_ORIGIN,
      origins: HOST_ORIGIN,
      // Long enough that the "full" check below runs before the first reclaim, even on a loaded machine.
      heartbeat: { intervalMs: 1_000, timeoutMs: 500 },
      onEvent: (e) => events.push(e.type),
    });
    const dropped: MessagePort[] = [];
    for (let i = 0; i < API.maxConnections; i++) {
      const ch = new MessageChannel();
      iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX_ORIGIN, [ch.port2]);
      dropped.push(ch.port1); // kept (so Node does not close it), never started, never answered: a page that went away
    }
    await sleep(50);
    expect(api.sessions()).toHaveLength(API.maxConnections);
    // Full: the next one is refused.
    const full = new MessageChannel();
    const got: unknown[] = [];
    full.port1.addEventListener("message", (e) => got.push(e.data));
    full.port1.start();
    iframe.contentWindow.postMessage({ type: "sandshell:connect" }, SANDBOX_ORIGIN, [full.port2]);
    await sleep(50);
    expect(got).toEqual([{ type: "sandshell:rejected", reason: expect.stringMatching(/already serves 32/) }]);

    for (let t = 0; t < 100 && api.sessions().length > 0; t++) await sleep(50);
    expect(api.sessions()).toHaveLength(0);
    expect(events.filter((e) => e === "reclaimed")).toHaveLength(API.maxConnections);

    const conn = await connectSandbox(iframe as unknown as HTMLIFrameElement, { window: host as never, timeoutMs: 3_000 });
    expect(textOf(await conn.callTool("bash", { command: "echo back" }))).toContain("back");
    await sleep(2_000); // a live client answers the heartbeat: it stays
    expect(api.sessions()).toHaveLength(1);
    await conn.close();
    await api.close();
    for (const p of dropped) p.close();
    await sandbox.close();
  });

  it("a dropped connection's pending approval and call are cancelled, and its command never runs", async () => {
    const { sandbox, served, close } = await servedSandbox({ approver: "host" }, { heartbeat: { intervalMs: 100, timeoutMs: 200 } });
    const ch = new MessageChannel();
    served.api.connect(ch.port1 as unknown as PortLike, HOST_ORIGIN);
    const peer = new RawPeer(ch.port2);
    await peer.initialize({ elicitation: { form: {} } });
    peer.post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bash", arguments: { command: "rm -f ../never.txt; touch dropped-ran" } } });
    await peer.waitFor((m) => isObject(m) && m.method === "elicitation/create");
    expect(sandbox.approvals.pending()).toHaveLength(1);
    peer.answerPings = false; // the page is gone: nothing answers any more
    for (let t = 0; t < 40 && served.api.sessions().length > 0; t++) await sleep(50);
    expect(served.api.sessions()).toHaveLength(0);
    await sleep(50);
    expect(sandbox.approvals.pending()).toHaveLength(0);
    const resolved = sandbox.auditLog().find((e) => e.type === "approval" && e.phase === "resolved");
    expect(resolved).toMatchObject({ decision: "deny", by: "cancel" });
    const { existsSync } = await import("node:fs");
    expect(existsSync(`${sandbox.runtime.workspace}/dropped-ran`)).toBe(false);
    peer.port.close();
    await close();
  });
});

describe("a job belongs to the connection that started it", () => {
  let sandbox: Sandbox;
  let served: Served;
  let close: () => Promise<void>;
  beforeAll(async () => ({ sandbox, served, close } = await servedSandbox({ approver: "deny" })));
  afterAll(() => close());

  it("another connection can neither read nor kill it; the owner and the sandbox's owner (UI, Node caller) can", async () => {
    const a = await connect(served);
    const b = await connect(served);
    const started = await a.callTool("bash", { command: "for i in 1 2 3 4 5 6 7 8 9 10; do echo secret-$i; sleep 0.2; done", run_in_background: true });
    const id = started.structuredContent!.jobId as string;
    expect(id).toMatch(/^job-/);

    const peek = await b.callTool("job_output", { id, wait: 1 });
    expect(peek.isError).toBe(true);
    expect(peek.structuredContent).toMatchObject({ reason: "not-owner" });
    expect(textOf(peek)).not.toMatch(/secret/);
    const kill = await b.callTool("job_kill", { id });
    expect(kill.isError).toBe(true);
    expect(sandbox.session.listJobs().find((j) => j.id === id)?.status).toBe("running");
    // "3" for job-3 does not get around it either.
    const short = await b.callTool("job_output", { id: id.replace("job-", "") });
    expect(short.isError).toBe(true);

    const own = await a.callTool("job_output", { id, wait: 1 });
    expect(textOf(own)).toMatch(/secret-1/);
    const ui = await sandbox.callTool("job_output", { id }); // the sandbox's owner
    expect(ui.isError).toBeFalsy();
    const stopped = await a.callTool("job_kill", { id });
    expect(stopped.isError).toBeFalsy();
    await a.close();
    await b.close();
  });
});

describe("resource bounds: past a bound, a structured error that says what to do instead, and nothing else lost", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ runtime: "node", approver: "deny" });
  });
  afterAll(() => sandbox.close());

  it("raw arguments longer than INPUT.maxArgumentChars are refused before they are parsed", async () => {
    const raw = JSON.stringify({ path: "big.txt", content: "z".repeat(INPUT.maxArgumentChars) });
    const r = await sandbox.callTool("write_file", raw);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: "error", error: "too-large", parameter: null });
    expect(textOf(r)).toMatch(/in parts/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(`${sandbox.runtime.workspace}/big.txt`)).toBe(false);
  });

  it("a parsed value longer than the bound (write_file content from a Node caller) is refused; a smaller one is written", async () => {
    const r = await sandbox.callTool("write_file", { path: "big.txt", content: "z".repeat(INPUT.maxArgumentChars + 1) });
    expect(r.structuredContent).toMatchObject({ error: "too-large", parameter: "content" });
    const ok = await sandbox.callTool("write_file", { path: "big.txt", content: "z".repeat(1_000) });
    expect(ok.isError).toBeUndefined();
  });

  it("more background jobs than SHELL.maxJobs: the next is refused with a clear error, the running ones go on", async () => {
    const { SHELL } = await import("../../src/limits.ts");
    const ids: string[] = [];
    for (let i = 0; i < SHELL.maxJobs; i++) {
      const r = await sandbox.callTool("bash", { command: "sleep 30", run_in_background: true });
      ids.push(r.structuredContent.jobId as string);
    }
    const extra = await sandbox.callTool("bash", { command: "sleep 30", run_in_background: true });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toMatch(new RegExp(`At most ${SHELL.maxJobs} background jobs`));
    expect(sandbox.session.listJobs().filter((j) => j.status === "running")).toHaveLength(SHELL.maxJobs);
    for (const id of ids) await sandbox.callTool("job_kill", { id });
  });

  it("output kept per job is bounded: 3 MB of output comes back as head and tail within SHELL.maxOutputChars", async () => {
    const { SHELL } = await import("../../src/limits.ts");
    const r = await sandbox.callTool("bash", { command: "head -c 3000000 /dev/zero | tr '\\0' a | fold -w 100; echo END", run_in_background: true });
    const id = r.structuredContent.jobId as string;
    let out = await sandbox.callTool("job_output", { id, wait: 10 });
    for (let t = 0; t < 10 && out.structuredContent.status === "running"; t++) out = await sandbox.callTool("job_output", { id, wait: 5 });
    expect(out.structuredContent.truncated).toBe(true);
    expect(textOf(out).length).toBeLessThan(SHELL.maxOutputChars + 2_000);
    expect(textOf(out)).toContain("END");
  });
});

describe("a command still running for one connection is not another's to feed or read", () => {
  it("another connection's is_input is refused and never reaches the command; the owner's input does", async () => {
    const { served, close } = await servedSandbox({ approver: "deny" });
    try {
      const a = await connect(served);
      const b = await connect(served);
      const started = await a.callTool("bash", { command: "printf 'Secret please: '; read -r line; echo got:$line", timeout: 30 });
      expect(started.structuredContent!.status).toBe("running");
      const intrude = await b.callTool("bash", { command: "from-b\n", is_input: true });
      expect(intrude.isError).toBe(true);
      expect(textOf(intrude)).toMatch(/another caller/);
      expect(textOf(intrude)).not.toMatch(/Secret please/);
      const own = await a.callTool("bash", { command: "from-a\n", is_input: true });
      expect(textOf(own)).toContain("got:from-a");
      expect(textOf(own)).not.toContain("from-b");
      await a.close();
      await b.close();
    } finally {
      await close();
    }
  });
});

describe("a client cannot set the sandbox's reserved _meta keys (red team L5)", () => {
  it("`_meta[\"sandshell/rawArguments\"]` beside `arguments` is refused with -32602 and nothing runs; the SDK's raw-string path works end to end", async () => {
    const { sandbox, served, close } = await servedSandbox({ approver: "deny" });
    try {
      const { existsSync } = await import("node:fs");
      const peer = new RawPeer(((ch) => (served.api.connect(ch.port1 as unknown as PortLike, HOST_ORIGIN), ch.port2))(new MessageChannel()));
      await peer.initialize();
      const r = await peer.request({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "bash", arguments: { command: "echo visible" }, _meta: { "sandshell/rawArguments": '{"command": "touch META_SPOOF"}' } },
      });
      expect(r.error).toMatchObject({ code: -32602, message: expect.stringMatching(/reserved for the sandbox/) });
      expect(existsSync(`${sandbox.runtime.workspace}/META_SPOOF`)).toBe(false);
      expect(sandbox.auditLog().some((e) => e.type === "call" && JSON.stringify(e.args).includes("META_SPOOF"))).toBe(false);
      peer.port.close();

      // The client SDK's raw-string path (connectSandbox / connectOverPort callTool with a string, and rawArguments for
      // a plain MCP client) sends the string as `arguments` itself, and it is read and repaired as documented.
      const conn = await connect(served);
      const viaSdk = await conn.callTool("bash", "{'command': 'touch RAW_OK',}");
      expect(viaSdk.structuredContent?.repairedArguments).toEqual({ command: "touch RAW_OK" });
      const { rawArguments } = await import("../../src/client/index.ts");
      const plain = await conn.client.callTool({ name: "bash", ...rawArguments('{"command": "echo plain-raw"}') });
      expect(JSON.stringify(plain.content)).toContain("plain-raw");
      expect(existsSync(`${sandbox.runtime.workspace}/RAW_OK`)).toBe(true);
      await conn.close();
    } finally {
      await close();
    }
  });
});
