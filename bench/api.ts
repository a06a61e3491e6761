// bench/api (issues 4 and 13): the round trip of `bash echo hi` beside its floor, in one run.
//
// - browser: examples/host.html on one origin frames the playground on another (?embed=1&runtime=embedded) and calls
//   through the client SDK, timed in the host page (host page → connectSandbox → postMessage/MessagePort → MCP server
//   → sandbox → the embedded runtime's worker and back);
// - Node entry: sandbox.callTool on the embedded runtime (bench/api-node.ts), and the ShellSession underneath;
// - the floor: just-bash's own `exec("echo hi")`, with nothing of ours around it: in a module Web Worker of the host
//   page (bench/floor-worker.ts) and in Node. Each is measured twice: in the same round-robin as the round trips (the
//   same noise, GC and caches), and alone in a loop (its lowest);
// - the embedded runtime's first prompt: from starting its Worker to the shell's prompt marker (Chromium: the built
//   worker asset driven by its protocol; Node: createEmbeddedRuntime + spawnShell).
// p50/p99 over --runs calls after a warm-up; ratios are p50 over the floor's p50.
//
//   npx tsx bench/api.ts [--runs 500] [--no-build]     (ports: SANDSHELL_E2E_PORT and the next one, else 4178/4179)
//
// Goals (issue 13): Node entry p50 ≤ 3× the floor, browser host page p50 ≤ 5× the floor, p99 ≤ 10 ms.

import type { Server } from "node:http";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { chromium, type Page } from "playwright";
import { build, preview } from "vite";
import { chromiumLaunchOptions } from "../scripts/chromium.ts";
import { staticServer } from "../scripts/static-server.ts";
import { benchApiNode, firstPromptNode, floorAlone } from "./api-node.ts";
import { stats, type Stats } from "./stats.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOALS = { nodeRatio: 3, browserRatio: 5, p99: 10 };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** The floor's worker script, bundled into dist/ (served by the host page's origin). */
async function bundleFloorWorker(): Promise<string> {
  await esbuild({
    entryPoints: [join(ROOT, "bench", "floor-worker.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(ROOT, "dist", "bench-floor-worker.js"),
    alias: { "node:zlib": join(ROOT, "src", "runtime", "embedded", "zlib-shim.ts") },
    logLevel: "error",
  });
  return "/bench-floor-worker.js";
}

/** The embedded runtime's worker asset in dist/assets (worker-HASH.js). */
function embeddedWorkerAsset(): string {
  const name = readdirSync(join(ROOT, "dist", "assets")).find((f) => /^worker-[\w-]+\.js$/.test(f));
  if (name === undefined) throw new Error("no embedded worker in dist/assets: build first");
  return `/assets/${name}`;
}

interface BrowserFigures {
  roundTrip: number[];
  floorInterleaved: number[];
  floorAlone: number[];
  firstPrompt: { bootedMs: number[]; promptMs: number[] };
}

async function browserFigures(page: Page, runs: number, floorUrl: string, workerUrl: string): Promise<BrowserFigures> {
  // tsx names the functions below with a helper of its own (esbuild's keepNames), which the page lacks
  await page.evaluate("globalThis.__name = (f) => f");
  return page.evaluate(
    async ({ n, floorUrl, workerUrl }) => {
      type Tool = { callTool(name: string, args: unknown): Promise<{ content: Array<{ text: string }> }> };
      const sb = (window as unknown as { sandbox: Tool }).sandbox;
      const floor = new Worker(floorUrl, { type: "module" });
      const floorRun = (runs: number, warmup = 0): Promise<number[]> =>
        new Promise((resolve) => {
          floor.onmessage = (e: MessageEvent<number[]>) => resolve(e.data);
          floor.postMessage({ runs, warmup });
        });
      for (let i = 0; i < 50; i++) {
        await sb.callTool("bash", { command: "echo hi" });
        await floorRun(1);
      }
      const roundTrip: number[] = [];
      const floorInterleaved: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await sb.callTool("bash", { command: "echo hi" });
        roundTrip.push(performance.now() - t0);
        if (!r.content[0]!.text.startsWith("hi\n")) throw new Error(`unexpected result: ${r.content[0]!.text}`);
        floorInterleaved.push(...(await floorRun(1)));
      }
      const floorAlone = await floorRun(n, 300);
      floor.terminate();
      // the embedded runtime's worker, from its start to the first prompt (the protocol of src/runtime/embedded/protocol.ts)
      const bootedMs: number[] = [];
      const promptMs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const w = new Worker(workerUrl, { type: "module", name: "sandshell-embedded" });
        await new Promise<void>((resolve, reject) => {
          w.onerror = (e) => reject(new Error(e.message));
          w.onmessage = (e: MessageEvent<{ t: string; text?: string }>) => {
            if (e.data.t === "booted") {
              bootedMs.push(performance.now() - t0);
              const dir = (path: string) => ({ path, kind: "dir", mode: 0o755, mtime: Date.now() });
              w.postMessage({
                t: "init", mode: "shell", nonce: "bench", workspace: "/home/project", fs: [dir("/home"), dir("/home/project"), dir("/tmp")], seq: 0,
                bounds: { bytes: 128 * 1024 * 1024, files: 20_000 }, cols: 80, rows: 24, cwd: "/home/project", env: {},
              });
            } else if (e.data.t === "data" && (e.data.text ?? "").includes("\x1b]654;prompt\x07")) {
              promptMs.push(performance.now() - t0);
              resolve();
            }
          };
        });
        w.terminate();
      }
      return { roundTrip, floorInterleaved, floorAlone, firstPrompt: { bootedMs, promptMs } };
    },
    { n: runs, floorUrl, workerUrl },
  );
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.floor(s.length / 2)] ?? NaN) * 10) / 10;
};
const ratio = (a: Stats, floor: Stats): number => Math.round((a.p50 / floor.p50) * 10) / 10;

async function main(): Promise<void> {
  const runs = arg("runs", 500);
  const base = Number(process.env.SANDSHELL_E2E_PORT ?? 4178);
  if (!process.argv.includes("--no-build")) await build({ root: ROOT, logLevel: "error" });
  const floorUrl = await bundleFloorWorker();
  const workerUrl = embeddedWorkerAsset();

  const sandbox = await preview({ root: ROOT, logLevel: "error", preview: { port: base, strictPort: true } });
  const sandboxUrl = sandbox.resolvedUrls?.local[0]?.replace(/\/$/, "") ?? `http://localhost:${base}`;
  const host: Server = await staticServer(join(ROOT, "dist"), base + 1);
  const browser = await chromium.launch({ headless: true, ...chromiumLaunchOptions() });
  let fig: BrowserFigures;
  try {
    const page = await browser.newPage();
    const target = `${sandboxUrl}/?embed=1&runtime=embedded`;
    await page.goto(`http://localhost:${base + 1}/examples/host.html?sandbox=${encodeURIComponent(target)}`);
    // (window.sandbox is first the iframe itself: an element id; the example replaces it once connected.)
    await page.waitForFunction(() => typeof (window as unknown as { sandbox?: { callTool?: unknown } }).sandbox?.callTool === "function", null, { timeout: 60_000 });
    fig = await browserFigures(page, runs, floorUrl, workerUrl);
  } finally {
    await browser.close();
    host.close();
    sandbox.httpServer.close();
  }

  const nodeEntry = await benchApiNode("embedded", runs);
  const nodeFloorAlone = await floorAlone(runs);
  const nodeFirstPrompt = await firstPromptNode(5);
  const browserRoundTrip = stats(fig.roundTrip);
  const browserFloor = stats(fig.floorInterleaved);
  const browserFloorAlone = stats(fig.floorAlone);
  const nodeFloor = nodeEntry.floor!;
  const callTool = nodeEntry.callTool!;
  console.log(
    JSON.stringify(
      {
        bench: "api",
        call: "bash echo hi",
        unit: "ms",
        floor: {
          what: "just-bash's own exec(\"echo hi\"): interleaved = in the same round-robin as the round trips; alone = in a loop by itself",
          chromiumWorker: { interleaved: browserFloor, alone: browserFloorAlone },
          node: { interleaved: nodeFloor, alone: nodeFloorAlone },
        },
        browser: {
          path: "host page → connectSandbox → postMessage/MessagePort → MCP server → sandbox (embedded, Chromium)",
          ...browserRoundTrip,
          ratioToFloor: { interleaved: ratio(browserRoundTrip, browserFloor), alone: ratio(browserRoundTrip, browserFloorAlone) },
        },
        nodeEntry: {
          path: "sandbox.callTool through src/node.ts (embedded runtime in Node)",
          callTool: { ...callTool, ratioToFloor: { interleaved: ratio(callTool, nodeFloor), alone: ratio(callTool, nodeFloorAlone) } },
          callToolRawJson: nodeEntry.callToolRawJson,
          session: { ...nodeEntry.session!, ratioToFloor: { interleaved: ratio(nodeEntry.session!, nodeFloor), alone: ratio(nodeEntry.session!, nodeFloorAlone) } },
        },
        firstPrompt: {
          what: "the embedded runtime's Worker start to its first prompt (median of 5)",
          chromium: { bootedMs: median(fig.firstPrompt.bootedMs), promptMs: median(fig.firstPrompt.promptMs) },
          node: { promptMs: nodeFirstPrompt.medianMs, note: "worker_threads; in a checkout each worker loads the TypeScript sources through tsx" },
        },
        goals: {
          "Node entry p50 <= 3x floor (interleaved)": ratio(callTool, nodeFloor) <= GOALS.nodeRatio,
          "Node entry p50 <= 3x floor (alone)": ratio(callTool, nodeFloorAlone) <= GOALS.nodeRatio,
          "browser p50 <= 5x floor (interleaved)": ratio(browserRoundTrip, browserFloor) <= GOALS.browserRatio,
          "browser p50 <= 5x floor (alone)": ratio(browserRoundTrip, browserFloorAlone) <= GOALS.browserRatio,
          "browser p99 <= 10 ms": browserRoundTrip.p99 <= GOALS.p99,
          "Node entry p99 <= 10 ms": callTool.p99 <= GOALS.p99,
        },
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
