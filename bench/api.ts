// bench/api (issues 4 and 13): the round trip of `bash echo hi` beside its floor, in one run.
//
// - browser: examples/host.html on one origin frames the playground on another (?embed=1&runtime=embedded) and calls
//   through the client SDK, timed in the host page (host page → connectSandbox → postMessage/MessagePort → MCP server
//   → sandbox → the embedded runtime's worker and back);
// - Node entry: sandbox.callTool on the embedded runtime (bench/api-node.ts), and the ShellSession underneath;
// - the floor: just-bash's own `exec("echo hi")`, with nothing of ours around it: in a module Web Worker of the host
//   page (bench/floor-worker.ts) and in Node. Each is measured twice: in the same round-robin as the round trips (the
//   same noise, GC and caches), and alone in a loop (its lowest);
// - the transport floor, in the same round-robin: the bare hops a call needs (host page ⇄ frame on the sandbox's
//   origin over a MessagePort, page ⇄ Worker, and the two chained; Node: a worker_threads round trip), and the embedded
//   runtime's worker driven alone from a page (hop + the line's work), so that the gap splits into the design's physics
//   and our code (`where`);
// - the embedded runtime's first prompt: from starting its Worker to the shell's prompt marker (Chromium: the built
//   worker asset driven by its protocol; Node: createEmbeddedRuntime + spawnShell).
// p50/p99 over --runs calls after a warm-up; ratios are p50 over the floor's p50.
//
//   npx tsx bench/api.ts [--runs 500] [--no-build]     (ports: SANDSHELL_E2E_PORT and the next one, else 4178/4179)
//
// Goals (issue 13): Node entry p50 ≤ 3× the floor, browser host page p50 ≤ 5× the floor, p99 ≤ 10 ms.

import type { Server } from "node:http";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { chromium, type Page } from "playwright";
import { build, preview } from "vite";
import { chromiumLaunchOptions } from "../scripts/chromium.ts";
import { staticServer } from "../scripts/static-server.ts";
import { benchApiNode, firstPromptNode, floorAfterSleep, floorAlone } from "./api-node.ts";
import { stats, type Stats } from "./stats.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOALS = { nodeRatio: 3, browserRatio: 5, p99: 10 };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** The bench's own scripts, bundled into dist/ (served by both origins): the floor's worker and the transport floor's echo page. */
async function bundleBenchScripts(): Promise<{ floorUrl: string; echoPage: string }> {
  const bundle = (entry: string, out: string) =>
    esbuild({
      entryPoints: [join(ROOT, "bench", entry)],
      bundle: true,
      format: "esm",
      platform: "browser",
      outfile: join(ROOT, "dist", out),
      alias: { "node:zlib": join(ROOT, "src", "runtime", "embedded", "zlib-shim.ts") },
      logLevel: "error",
    });
  await Promise.all([
    bundle("floor-worker.ts", "bench-floor-worker.js"),
    bundle("echo-frame.ts", "bench-echo-frame.js"),
    bundle("echo-worker.ts", "bench-echo-worker.js"),
  ]);
  writeFileSync(
    join(ROOT, "dist", "bench-echo.html"),
    '<!doctype html><meta charset="utf-8"><title>bench echo</title><script type="module" src="/bench-echo-frame.js"></script>\n',
  );
  return { floorUrl: "/bench-floor-worker.js", echoPage: "/bench-echo.html" };
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
  /** The transport floor, interleaved with the round trips: host page ⇄ frame (MessagePort), page ⇄ Worker, and both. */
  port: number[];
  worker: number[];
  chain: number[];
  /** The embedded runtime's worker alone, driven from a page by its protocol: one line (`echo hi`) to its prompt. */
  line: number[];
  firstPrompt: { bootedMs: number[]; promptMs: number[] };
}

interface BrowserUrls {
  floor: string;
  /** The echo page, on the sandbox's origin. */
  echo: string;
  /** The echo page's worker script, for the host page's own page ⇄ Worker round trip. */
  echoWorker: string;
  /** The embedded runtime's built worker. */
  embeddedWorker: string;
}

async function browserFigures(page: Page, runs: number, urls: BrowserUrls): Promise<BrowserFigures> {
  // tsx names the functions below with a helper of its own (esbuild's keepNames), which the page lacks
  await page.evaluate("globalThis.__name = (f) => f");
  return page.evaluate(
    async ({ n, urls }) => {
      type Tool = { callTool(name: string, args: unknown): Promise<{ content: Array<{ text: string }> }> };
      const sb = (window as unknown as { sandbox: Tool }).sandbox;
      /** Round trips per transport sample: this page reads its clock in steps of 0.1 ms (not cross-origin isolated). */
      const BATCH = 10;
      const PROMPT = "\x1b]654;prompt\x07";
      const answer = <T,>(target: { onmessage: ((e: MessageEvent<T>) => void) | null }, send: () => void, done: (d: T) => boolean = () => true): Promise<T> =>
        new Promise((resolve) => {
          target.onmessage = (e) => {
            if (done(e.data)) resolve(e.data);
          };
          send();
        });
      const batched = async (one: () => Promise<unknown>): Promise<number> => {
        const t0 = performance.now();
        for (let j = 0; j < BATCH; j++) await one();
        return (performance.now() - t0) / BATCH;
      };

      // the floor: just-bash alone in a worker
      const floor = new Worker(urls.floor, { type: "module" });
      const floorRun = (count: number, warmup = 0): Promise<number[]> => answer<number[]>(floor, () => floor.postMessage({ runs: count, warmup }));

      // the transport floor: the echo page on the sandbox's origin (a MessagePort, as connectSandbox sends), its Worker
      const frame = document.createElement("iframe");
      frame.src = urls.echo;
      const loaded = new Promise<void>((resolve) => {
        const onReady = (e: MessageEvent): void => {
          if (e.source === frame.contentWindow && (e.data as { echo?: string })?.echo === "ready") {
            window.removeEventListener("message", onReady);
            resolve();
          }
        };
        window.addEventListener("message", onReady);
      });
      document.body.append(frame);
      await loaded;
      const channel = new MessageChannel();
      const port = channel.port1;
      await answer(port, () => frame.contentWindow!.postMessage({ connect: true }, new URL(urls.echo).origin, [channel.port2]));
      const portTrip = (): Promise<unknown> => answer(port, () => port.postMessage({ t: "input", data: "echo hi\r" }));
      const chainTrip = (): Promise<unknown> => answer(port, () => port.postMessage({ t: "input", data: "echo hi\r", via: "worker" }));
      const echoWorker = new Worker(urls.echoWorker, { type: "module" });
      const workerTrip = (): Promise<unknown> => answer(echoWorker, () => echoWorker.postMessage({ t: "input", data: "echo hi\r" }));

      // the embedded runtime's worker, driven by its protocol (src/runtime/embedded/protocol.ts)
      const dir = (path: string) => ({ path, kind: "dir", mode: 0o755, mtime: Date.now() });
      const init = (w: Worker): void =>
        w.postMessage({
          t: "init", mode: "shell", nonce: "bench", workspace: "/home/project", fs: [dir("/home"), dir("/home/project"), dir("/tmp")], seq: 0,
          bounds: { bytes: 128 * 1024 * 1024, files: 20_000 }, cols: 80, rows: 24, cwd: "/home/project", env: {},
        });
      type Data = { t: string; text?: string; busy?: boolean };
      const shell = new Worker(urls.embeddedWorker, { type: "module", name: "sandshell-embedded" });
      await answer<Data>(shell, () => undefined, (d) => d.t === "booted");
      await answer<Data>(shell, () => init(shell), (d) => d.t === "data" && (d.text ?? "").includes(PROMPT));
      const lineTrip = (): Promise<unknown> =>
        answer<Data>(shell, () => shell.postMessage({ t: "input", data: "\x1b[200~echo hi\x1b[201~\r" }), (d) => d.t === "data" && d.busy === false);

      for (let i = 0; i < 50; i++) {
        await sb.callTool("bash", { command: "echo hi" });
        await floorRun(1);
        await batched(portTrip);
        await batched(workerTrip);
        await batched(chainTrip);
        await batched(lineTrip);
      }
      const roundTrip: number[] = [];
      const floorInterleaved: number[] = [];
      const portS: number[] = [];
      const workerS: number[] = [];
      const chainS: number[] = [];
      const lineS: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await sb.callTool("bash", { command: "echo hi" });
        roundTrip.push(performance.now() - t0);
        if (!r.content[0]!.text.startsWith("hi\n")) throw new Error(`unexpected result: ${r.content[0]!.text}`);
        floorInterleaved.push(...(await floorRun(1)));
        portS.push(await batched(portTrip));
        workerS.push(await batched(workerTrip));
        chainS.push(await batched(chainTrip));
        lineS.push(await batched(lineTrip));
      }
      const floorAlone = await floorRun(n, 300);
      floor.terminate();
      echoWorker.terminate();
      shell.terminate();
      frame.remove();

      // the embedded runtime's worker, from its start to the first prompt
      const bootedMs: number[] = [];
      const promptMs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const w = new Worker(urls.embeddedWorker, { type: "module", name: "sandshell-embedded" });
        await answer<Data>(w, () => undefined, (d) => d.t === "booted");
        bootedMs.push(performance.now() - t0);
        await answer<Data>(w, () => init(w), (d) => d.t === "data" && (d.text ?? "").includes(PROMPT));
        promptMs.push(performance.now() - t0);
        w.terminate();
      }
      return { roundTrip, floorInterleaved, floorAlone, port: portS, worker: workerS, chain: chainS, line: lineS, firstPrompt: { bootedMs, promptMs } };
    },
    { n: runs, urls },
  );
}

/**
 * The floor timed exec by exec, in a page on the sandbox's origin opened by itself (cross-origin isolated: a 5 µs
 * clock): back to back, and each after the worker slept 1 ms (as a call's exec comes after its worker waited).
 */
async function floorInIsolatedPage(page: Page, pageUrl: string, floorUrl: string, runs: number): Promise<{ hot: number[]; afterSleep: number[] }> {
  await page.goto(pageUrl);
  await page.evaluate("globalThis.__name = (f) => f");
  return page.evaluate(
    async ({ floorUrl, runs }) => {
      if (!crossOriginIsolated) throw new Error("the floor's page is not cross-origin isolated");
      const floor = new Worker(floorUrl, { type: "module" });
      const run = (message: object): Promise<number[]> =>
        new Promise((resolve) => {
          floor.onmessage = (e: MessageEvent<number[]>) => resolve(e.data);
          floor.postMessage(message);
        });
      const hot = await run({ runs, warmup: 300, batch: 1 });
      const afterSleep = await run({ runs, warmup: 0, batch: 1, sleepMs: 1 });
      floor.terminate();
      return { hot, afterSleep };
    },
    { floorUrl, runs },
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
  const scripts = await bundleBenchScripts();

  const sandbox = await preview({ root: ROOT, logLevel: "error", preview: { port: base, strictPort: true } });
  const sandboxUrl = sandbox.resolvedUrls?.local[0]?.replace(/\/$/, "") ?? `http://localhost:${base}`;
  const host: Server = await staticServer(join(ROOT, "dist"), base + 1);
  const browser = await chromium.launch({ headless: true, ...chromiumLaunchOptions() });
  let fig: BrowserFigures;
  let isolatedFloor: { hot: number[]; afterSleep: number[] };
  try {
    const page = await browser.newPage();
    const target = `${sandboxUrl}/?embed=1&runtime=embedded`;
    await page.goto(`http://localhost:${base + 1}/examples/host.html?sandbox=${encodeURIComponent(target)}`);
    // (window.sandbox is first the iframe itself: an element id; the example replaces it once connected.)
    await page.waitForFunction(() => typeof (window as unknown as { sandbox?: { callTool?: unknown } }).sandbox?.callTool === "function", null, { timeout: 60_000 });
    fig = await browserFigures(page, runs, {
      floor: scripts.floorUrl,
      echo: `${sandboxUrl}${scripts.echoPage}`,
      echoWorker: "/bench-echo-worker.js",
      embeddedWorker: embeddedWorkerAsset(),
    });
    isolatedFloor = await floorInIsolatedPage(await browser.newPage(), `${sandboxUrl}${scripts.echoPage}`, scripts.floorUrl, runs);
  } finally {
    await browser.close();
    host.close();
    sandbox.httpServer.close();
  }

  const nodeEntry = await benchApiNode("embedded", runs);
  const nodeFloorAlone = await floorAlone(runs);
  const nodeFloorAfterSleep = await floorAfterSleep(runs);
  const browserFloorHot = stats(isolatedFloor!.hot);
  const browserFloorAfterSleep = stats(isolatedFloor!.afterSleep);
  const nodeFirstPrompt = await firstPromptNode(5);
  const browserRoundTrip = stats(fig.roundTrip);
  const browserFloor = stats(fig.floorInterleaved);
  const browserFloorAlone = stats(fig.floorAlone);
  const port = stats(fig.port);
  const worker = stats(fig.worker);
  const chain = stats(fig.chain);
  const line = stats(fig.line);
  const nodeFloor = nodeEntry.floor!;
  const callTool = nodeEntry.callTool!;
  const session = nodeEntry.session!;
  const ms = (x: number): number => Math.round(x * 1000) / 1000;
  console.log(
    JSON.stringify(
      {
        bench: "api",
        call: "bash echo hi",
        unit: "ms",
        floor: {
          what:
            "just-bash's own exec(\"echo hi\"): interleaved = in the same round-robin as the round trips; alone = in a loop by itself; " +
            "afterSleep = each exec after its thread slept 1 ms, as a call's exec comes after its worker waited for it (Chromium: timed " +
            "exec by exec in a cross-origin isolated page, beside the same back to back as `hot`)",
          chromiumWorker: { interleaved: browserFloor, alone: browserFloorAlone, hot: browserFloorHot, afterSleep: browserFloorAfterSleep },
          node: { interleaved: nodeFloor, alone: nodeFloorAlone, afterSleep: nodeFloorAfterSleep },
        },
        transportFloor: {
          what: "the hops the design needs, with no work at either end, in the same round-robin as the round trips",
          chromium: {
            port: { what: "host page ⇄ a frame on the sandbox's origin (MessagePort)", ...port },
            worker: { what: "page ⇄ module Worker (postMessage)", ...worker },
            chain: { what: "host page ⇄ frame ⇄ the frame's Worker: both hops of a call", ...chain },
          },
          node: { workerHop: { what: "worker_threads round trip", ...nodeEntry.workerHop! } },
        },
        browser: {
          path: "host page → connectSandbox → postMessage/MessagePort → MCP server → sandbox (embedded, Chromium)",
          ...browserRoundTrip,
          ratioToFloor: {
            interleaved: ratio(browserRoundTrip, browserFloor),
            alone: ratio(browserRoundTrip, browserFloorAlone),
            afterSleep: ratio(browserRoundTrip, browserFloorAfterSleep),
          },
          line: { what: "the embedded runtime's worker alone, driven from a page: `echo hi` typed to its prompt", ...line },
          where: {
            what: "p50 differences (approximate: medians do not subtract exactly)",
            transport: chain.p50,
            interpreter: browserFloor.p50,
            workerLine: ms(line.p50 - worker.p50 - browserFloor.p50),
            pageSide: ms(browserRoundTrip.p50 - chain.p50 - (line.p50 - worker.p50)),
          },
        },
        nodeEntry: {
          path: "sandbox.callTool through src/node.ts (embedded runtime in Node)",
          callTool: {
            ...callTool,
            ratioToFloor: { interleaved: ratio(callTool, nodeFloor), alone: ratio(callTool, nodeFloorAlone), afterSleep: ratio(callTool, nodeFloorAfterSleep) },
          },
          callToolRawJson: nodeEntry.callToolRawJson,
          session: { ...session, ratioToFloor: { interleaved: ratio(session, nodeFloor), alone: ratio(session, nodeFloorAlone) } },
          line: { what: "a line typed into the runtime's shell process, to its prompt (no session)", ...nodeEntry.line! },
          core: { what: "the worker's code (ShellCore) in this thread: the line's own work, no hop", ...nodeEntry.core! },
          where: {
            what: "p50 differences (approximate: medians do not subtract exactly)",
            interpreter: nodeFloor.p50,
            workerLine: ms(nodeEntry.core!.p50 - nodeFloor.p50),
            hopAndRuntime: ms(nodeEntry.line!.p50 - nodeEntry.core!.p50),
            session: ms(session.p50 - nodeEntry.line!.p50),
            toolsGuardAudit: ms(callTool.p50 - session.p50),
          },
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
          "browser p50 <= 5x floor (afterSleep)": ratio(browserRoundTrip, browserFloorAfterSleep) <= GOALS.browserRatio,
          "Node entry p50 <= 3x floor (afterSleep)": ratio(callTool, nodeFloorAfterSleep) <= GOALS.nodeRatio,
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
