// A host page as a user of the package writes it: sandshell/embed, and the official MCP SDK client over
// sandshell/client's handshake helper. The test reads window.report.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CALL_TIMEOUT_MS, openSandboxTransport, rawArguments, SandshellRejectedError } from "sandshell/client";
import { embedSandbox, type EmbedOptions } from "sandshell/embed";

interface Report {
  embed?: string;
  sdk?: string;
  refused?: string;
  error?: string;
}
const report: Report = {};
(window as unknown as { report: Report; done?: boolean }).report = report;

const sandbox = new URLSearchParams(location.search).get("sandbox") ?? "http://localhost:4173/";

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

async function main(): Promise<void> {
  const options: EmbedOptions = {
    src: sandbox,
    runtime: "embedded",
    height: 240,
    theme: "dark",
    files: { "hello.txt": "hello from a preloaded file\n", notes: { "todo.md": "- ship it\n" } },
    run: "cat hello.txt notes/todo.md",
  };
  const shell = await embedSandbox("#embed", options);
  report.embed = shell.firstRun !== null ? text(shell.firstRun) : "no first run";

  const frame = document.querySelector<HTMLIFrameElement>("#sdk");
  if (frame === null) throw new Error("no #sdk iframe");
  const url = new URL(sandbox);
  url.searchParams.set("embed", "1");
  url.searchParams.set("runtime", "embedded");
  url.searchParams.set("origins", location.origin);
  frame.src = url.href;
  const client = new Client({ name: "consumer-test", version: "1.0.0" });
  await client.connect(await openSandboxTransport(frame));
  const result = await client.callTool({ name: "bash", ...rawArguments('{"command": "echo sdk says hi",}') }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  });
  report.sdk = text(result as CallToolResult);
  await client.close();

  const refused = document.querySelector<HTMLIFrameElement>("#refused");
  if (refused === null) throw new Error("no #refused iframe");
  const bare = new URL(sandbox);
  bare.searchParams.set("embed", "1");
  bare.searchParams.set("runtime", "embedded");
  refused.src = bare.href; // no origins=…: this page is not on its list
  const transport = await openSandboxTransport(refused);
  try {
    await new Client({ name: "consumer-test", version: "1.0.0" }).connect(transport);
    report.refused = "connected (should have been refused)";
  } catch (err) {
    report.refused = `${err instanceof SandshellRejectedError ? "SandshellRejectedError" : (err as Error).name}: ${(err as Error).message}`;
    if (!(transport.rejection instanceof SandshellRejectedError)) report.refused += " (the transport has no rejection)";
  }
}

main().then(
  () => ((window as unknown as { done: boolean }).done = true),
  (err: unknown) => {
    report.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    (window as unknown as { done: boolean }).done = true;
  },
);
