// bench/embedded-memory in Chromium (issue 11): the same steps as bench/embedded-memory.ts (a ~54 MB file made by
// commands, a 4 MB write_file, 16 sleeping jobs, a 17th job and a 5 MB command, both refused, 16 jobs that each read
// the file), driven from a host page through connectSandbox into the playground (?embed=1&runtime=embedded), as an
// agent in a page would (the write_file is 4 MB here). After each step, through the DevTools protocol: the page's JavaScript heap and ArrayBuffer
// memory after a full GC (host page and sandbox frame share one renderer here), the same for every worker, and the
// renderer's resident memory (Linux /proc).
//
//   npx tsx bench/embedded-memory-browser.ts [--no-build]   (ports: SANDSHELL_E2E_PORT and the next one, else 4178/4179)
//
// Prints one JSON object. performance.measureUserAgentSpecificMemory() needs a cross-origin isolated page, which the
// embedded runtime does not ask for; the DevTools protocol measures any page.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type CDPSession } from "playwright";
import { build, preview } from "vite";
import { chromiumLaunchOptions } from "../scripts/chromium.ts";
import { staticServer } from "../scripts/static-server.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MiB = 1024 * 1024;
const round = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;

interface HeapUsage {
  usedSize: number;
  backingStorageSize?: number;
}

/** A worker target's DevTools session (not flattened: Playwright's sessions do not address child sessions). */
class TargetSession {
  private id = 0;
  private readonly pending = new Map<number, (result: unknown) => void>();
  constructor(
    private readonly browser: CDPSession,
    readonly sessionId: string,
  ) {}

  receive(message: string): void {
    const m = JSON.parse(message) as { id?: number; result?: unknown };
    if (m.id !== undefined) {
      this.pending.get(m.id)?.(m.result);
      this.pending.delete(m.id);
    }
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.id;
    return new Promise((resolve) => {
      this.pending.set(id, resolve as (r: unknown) => void);
      void this.browser.send("Target.sendMessageToTarget", { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) });
    });
  }
}

async function main(): Promise<void> {
  const base = Number(process.env.SANDSHELL_E2E_PORT ?? 4178);
  if (!process.argv.includes("--no-build")) await build({ root: ROOT, logLevel: "error" });
  const sandbox = await preview({ root: ROOT, logLevel: "error", preview: { port: base, strictPort: true } });
  const sandboxUrl = sandbox.resolvedUrls?.local[0]?.replace(/\/$/, "") ?? `http://localhost:${base}`;
  const host: Server = await staticServer(join(ROOT, "dist"), base + 1);
  const browser = await chromium.launch({ headless: true, ...chromiumLaunchOptions() });
  const steps: Array<Record<string, unknown>> = [];
  try {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${base + 1}/examples/host.html?sandbox=${encodeURIComponent(`${sandboxUrl}/?embed=1&runtime=embedded`)}`);
    await page.waitForFunction(() => typeof (window as unknown as { sandbox?: { callTool?: unknown } }).sandbox?.callTool === "function", null, { timeout: 60_000 });
    const pageCdp = await page.context().newCDPSession(page);
    const bcdp = await browser.newBrowserCDPSession();
    const sessions = new Map<string, TargetSession>();
    bcdp.on("Target.receivedMessageFromTarget", (e: { sessionId: string; message: string }) => sessions.get(e.sessionId)?.receive(e.message));

    const call = (name: string, args: Record<string, unknown>): Promise<string> =>
      page.evaluate(
        async ({ name, args }) => {
          const sb = (window as unknown as { sandbox: { callTool(n: string, a: unknown): Promise<{ content: Array<{ text?: string }> }> } }).sandbox;
          return (await sb.callTool(name, args)).content.map((c) => c.text ?? "").join("");
        },
        { name, args },
      );

    const take = async (step: string, said: string): Promise<void> => {
      // workers: attach to the new ones, collect garbage, read their heaps
      const { targetInfos } = (await bcdp.send("Target.getTargets")) as { targetInfos: Array<{ targetId: string; type: string; url: string; attached: boolean }> };
      const workers = targetInfos.filter((t) => t.type === "worker" && /\/assets\/worker-/.test(t.url));
      let workersHeap = 0;
      let workersBuffers = 0;
      for (const w of workers) {
        let s = [...sessions.values()].find((x) => (x as unknown as { targetId?: string }).targetId === w.targetId);
        if (s === undefined) {
          const { sessionId } = (await bcdp.send("Target.attachToTarget", { targetId: w.targetId, flatten: false })) as { sessionId: string };
          s = new TargetSession(bcdp, sessionId);
          (s as unknown as { targetId: string }).targetId = w.targetId;
          sessions.set(sessionId, s);
        }
        await s.send("HeapProfiler.collectGarbage");
        const u = await s.send<HeapUsage>("Runtime.getHeapUsage");
        workersHeap += u.usedSize;
        workersBuffers += u.backingStorageSize ?? 0;
      }
      await pageCdp.send("HeapProfiler.collectGarbage");
      const p = (await pageCdp.send("Runtime.getHeapUsage")) as HeapUsage;
      // the renderer's resident memory (Linux): every process of the browser that is a renderer
      const info = (await bcdp.send("SystemInfo.getProcessInfo")) as { processInfo: Array<{ type: string; id: number }> };
      let rendererRss = 0;
      for (const proc of info.processInfo.filter((x) => x.type === "renderer")) {
        try {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.id}/status`, "utf8"));
          rendererRss += Number(m?.[1] ?? 0) * 1024;
        } catch {
          // not Linux, or gone
        }
      }
      const s = {
        step,
        pageHeapMiB: round(p.usedSize),
        pageBuffersMiB: p.backingStorageSize === undefined ? null : round(p.backingStorageSize),
        workers: workers.length,
        workersHeapMiB: round(workersHeap),
        workersBuffersMiB: round(workersBuffers),
        rendererRssMiB: rendererRss === 0 ? null : round(rendererRss),
        said: said.replace(/\s+/g, " ").slice(0, 120),
      };
      steps.push(s);
      process.stderr.write(`${JSON.stringify(s)}\n`);
    };

    await take("booted", await call("bash", { command: "echo ready" }));
    await call("bash", { command: "seq 1 3500000 > a.txt", timeout: 300 });
    await take("a ~54 MB file made by commands", await call("bash", { command: "cat a.txt a.txt > big.txt && : > a.txt && wc -c big.txt", timeout: 300 }));
    // (a 5 MB argument makes an MCP message past API.maxMessageBytes: the page refuses it before the sandbox sees it)
    await take("a 4 MB write_file", await call("write_file", { path: "data.txt", content: "x".repeat(4 * MiB - 1) + "\n" }));
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(/job-\d+/.exec(await call("bash", { command: "sleep 600", run_in_background: true }))?.[0] ?? "");
    await take("16 background jobs (sleep)", await call("bash", { command: "echo jobs started" }));
    await take("a 17th job (refused)", await call("bash", { command: "sleep 600", run_in_background: true }));
    // refused at the page's door (API.maxMessageBytes): the client rejects with the JSON-RPC error
    await take("a 5 MB command (refused)", await call("bash", { command: `echo ${"y".repeat(5 * MiB)}` }).catch((e: unknown) => String(e).split("\n")[0] ?? ""));
    for (const id of ids) await call("job_kill", { id });
    const readers: string[] = [];
    for (let i = 0; i < 16; i++) readers.push(/job-\d+/.exec(await call("bash", { command: "wc -l < big.txt; sleep 600", run_in_background: true }))?.[0] ?? "");
    for (const id of readers) {
      for (let i = 0; i < 120 && !/^7000000\r?$/m.test(await call("job_output", { id, wait: 5 })); i++);
    }
    await take("16 jobs that each read the 54 MB file, then sleep", await call("bash", { command: "echo read" }));
  } finally {
    await browser.close();
    host.close();
    sandbox.httpServer.close();
  }
  console.log(JSON.stringify({ bench: "embedded-memory-browser", unit: "MiB", steps }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
