// bench/api (issue 4): host-to-result round trip of `bash echo hi` through connectSandbox in Chromium
// with the embedded runtime: examples/host.html on one origin frames the playground on another and
// calls through the client SDK, timed in the host page; p50/p99 over 500 calls after a warm-up. Beside
// it, the same call through the Node entry (bench/api-node.ts).
//
//   npx tsx bench/api.ts [--runs 500] [--no-build]
//
// Goals: browser p50 ≤ 3 ms and p99 ≤ 15 ms.

import type { Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { build, preview } from "vite";
import { chromiumLaunchOptions } from "../scripts/chromium.ts";
import { staticServer } from "../scripts/static-server.ts";
import { benchApiNode } from "./api-node.ts";
import { stats } from "./stats.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOALS = { p50: 3, p99: 15 };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

async function browserRoundTrips(runs: number): Promise<number[]> {
  const sandbox = await preview({ root: ROOT, logLevel: "error", preview: { port: 4178, strictPort: false } });
  const sandboxUrl = sandbox.resolvedUrls?.local[0]?.replace(/\/$/, "") ?? "http://localhost:4178";
  const host: Server = await staticServer(join(ROOT, "dist"), 4179);
  const browser = await chromium.launch({ headless: true, ...chromiumLaunchOptions() });
  try {
    const page = await browser.newPage();
    const target = `${sandboxUrl}/?embed=1&runtime=embedded`;
    await page.goto(`http://localhost:4179/examples/host.html?sandbox=${encodeURIComponent(target)}`);
    // (window.sandbox is first the iframe itself: an element id; the example replaces it once connected.)
    await page.waitForFunction(() => typeof (window as unknown as { sandbox?: { callTool?: unknown } }).sandbox?.callTool === "function", null, { timeout: 60_000 });
    return await page.evaluate(async (n) => {
      const sb = (window as unknown as { sandbox: { callTool(name: string, args: unknown): Promise<{ content: Array<{ text: string }> }> } }).sandbox;
      for (let i = 0; i < 50; i++) await sb.callTool("bash", { command: "echo hi" });
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await sb.callTool("bash", { command: "echo hi" });
        samples.push(performance.now() - t0);
        if (!r.content[0]!.text.startsWith("hi\n")) throw new Error(`unexpected result: ${r.content[0]!.text}`);
      }
      return samples;
    }, runs);
  } finally {
    await browser.close();
    host.close();
    sandbox.httpServer.close();
  }
}

async function main(): Promise<void> {
  const runs = arg("runs", 500);
  if (!process.argv.includes("--no-build")) await build({ root: ROOT, logLevel: "error" });
  const browser = stats(await browserRoundTrips(runs));
  const node = await benchApiNode("embedded", runs);
  console.log(
    JSON.stringify(
      {
        bench: "api",
        call: "bash echo hi",
        unit: "ms",
        browser: { path: "host page → connectSandbox → postMessage/MessagePort → MCP server → sandbox (embedded, Chromium)", ...browser },
        nodeEntry: { path: "sandbox.callTool through src/node.ts (embedded runtime in Node)", ...node },
        goals: { "browser p50 <= 3 ms": browser.p50 <= GOALS.p50, "browser p99 <= 15 ms": browser.p99 <= GOALS.p99 },
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
