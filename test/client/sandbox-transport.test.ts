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
  it("carries a model's raw JSON text where the sandbox reads it, typed for the SDK's callTool", () => {
    expect(rawArguments('{"command": "ls",}')).toEqual({ arguments: {}, _meta: { "sandshell/rawArguments": '{"command": "ls",}' } });
  });
});
