// The handshake helper's transport: when the sandbox refuses the page, any MCP client's pending requests (and later
// ones) fail with the sandbox's reason instead of a bare "Connection closed".
import { MessageChannel } from "node:worker_threads";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { REJECTED_CODE, SandboxTransport, SandshellRejectedError, rawArguments, type PortLike } from "../../src/client/index.ts";

const REASON = "The origin https://page.test is not allowed to use this sandbox.";

function refusingSandbox(): { host: PortLike; sandbox: PortLike } {
  const { port1, port2 } = new MessageChannel();
  // The sandbox side answers the first message (the client's initialize) with a refusal, as the API does.
  port2.on("message", () => port2.postMessage({ type: "sandshell:rejected", reason: REASON }));
  return { host: port1 as unknown as PortLike, sandbox: port2 as unknown as PortLike };
}

describe("SandboxTransport", () => {
  it("an MCP SDK client's connect rejects with the sandbox's reason, and the transport keeps the typed error", async () => {
    const { host, sandbox } = refusingSandbox();
    const transport = new SandboxTransport(host, "https://sandbox.test", "https://page.test");
    const client = new Client({ name: "t", version: "1" });
    await expect(client.connect(transport)).rejects.toThrow(`MCP error ${REJECTED_CODE}: Sandshell at https://sandbox.test refused this page (https://page.test): ${REASON}`);
    expect(transport.rejection).toBeInstanceOf(SandshellRejectedError);
    expect(transport.rejection?.reason).toBe(REASON);
    sandbox.close();
  });

  it("a request sent after the refusal fails the same way, at once", async () => {
    const { host, sandbox } = refusingSandbox();
    const transport = new SandboxTransport(host, "https://sandbox.test");
    const answers: unknown[] = [];
    transport.onmessage = (m) => answers.push(m);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    await expect.poll(() => transport.rejection).not.toBeNull();
    await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await expect.poll(() => answers.length).toBe(2);
    expect(answers.map((a) => (a as { id: number; error: { code: number } }).error.code)).toEqual([REJECTED_CODE, REJECTED_CODE]);
    sandbox.close();
  });
});

describe("rawArguments", () => {
  it("sends a model's raw JSON text as `arguments` itself (typed for the SDK's callTool), never in a reserved _meta key", () => {
    expect(rawArguments('{"command": "ls",}')).toEqual({ arguments: '{"command": "ls",}' });
  });

  it("the SDK Client puts the string on the wire unchanged", async () => {
    const { port1, port2 } = new MessageChannel();
    const seen: unknown[] = [];
    port2.on("message", (m: Record<string, unknown>) => {
      seen.push(m);
      if (m.method === "initialize") {
        port2.postMessage({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
      } else if (m.method === "tools/call") {
        port2.postMessage({ jsonrpc: "2.0", id: m.id, result: { content: [] } });
      }
    });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new SandboxTransport(port1 as unknown as PortLike, "https://sandbox.test"));
    await client.callTool({ name: "bash", ...rawArguments('{"command": "ls",}') });
    const call = seen.find((m) => (m as { method?: string }).method === "tools/call") as { params: Record<string, unknown> };
    expect(call.params.arguments).toBe('{"command": "ls",}');
    expect(JSON.stringify(call.params._meta ?? {})).not.toContain("sandshell/");
    await client.close();
    port2.close();
  });
});
