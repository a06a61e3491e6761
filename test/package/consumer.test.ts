// The package as a user gets it: `npm pack`, the tarball installed into a fresh project (npm registry only, from the
// local cache when it can), then (1) a host page and a Node script type-check against it under the strictest
// tsconfig, (2) the Node script runs (guard + embedded sandbox), (3) Vite bundles the host page, and (4) in Chromium,
// the sandbox page the package ships (served by its own `sandshell serve`) and the host page on another origin run a
// tool call through embedSandbox with preloaded files, one through the official MCP SDK client over the handshake
// helper, and see a refused page rejected with the sandbox's reason.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveStatic } from "../../src/cli/static.ts";
import { chromiumLaunchOptions } from "../../scripts/chromium.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./consumer", import.meta.url));
const BIN = (name: string): string => join(ROOT, "node_modules", ...name.split("/"));
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

let work = "";
let project = "";

function run(command: string, args: string[], cwd: string): string {
  const started = Date.now();
  try {
    const out = execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000, env: { ...process.env, npm_config_loglevel: "error" } });
    if (process.env.SANDSHELL_TIMINGS) process.stderr.write(`consumer: ${((Date.now() - started) / 1000).toFixed(1)} s ${command} ${args.slice(0, 3).join(" ")}\n`);
    return out;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${e.stdout ?? ""}\n${e.stderr ?? ""}\n${e.message}`);
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "sandshell-consumer-"));
  // What prepack does (npm run build && npm run build:lib), without the repository-wide type check `npm test`
  // has just done; then the tarball as npm publishes it.
  run(process.execPath, [BIN("vite/bin/vite.js"), "build", "--logLevel", "error"], ROOT);
  run(process.execPath, [BIN("tsx/dist/cli.mjs"), "scripts/build-lib.ts"], ROOT);
  run("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--silent"], ROOT);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error("npm pack wrote no tarball");
  project = join(work, "project");
  cpSync(FIXTURE, project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: { sandshell: `file:../${tarball}`, "@modelcontextprotocol/sdk": PKG.dependencies["@modelcontextprotocol/sdk"] },
      devDependencies: { "@types/node": PKG.devDependencies["@types/node"] },
    }),
  );
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], project);
}, 900_000);

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the packed package, installed in a fresh project", () => {
  it("ships the built library, the sandbox page with its headers, and no tests, benches or sources", () => {
    const pkg = join(project, "node_modules", "sandshell");
    const files = run("find", [".", "-type", "f", "-not", "-path", "./node_modules/*"], pkg).split("\n").filter(Boolean);
    expect(files).toContain("./dist/lib/client/index.js");
    expect(files).toContain("./dist/lib/guard/tree-sitter-bash.wasm");
    expect(files).toContain("./dist/index.html");
    expect(files).toContain("./dist/_headers");
    expect(files).toContain("./dist/vercel.json");
    expect(files.filter((f) => /^\.\/(test|e2e|bench|src|scripts)\//.test(f) || f.endsWith(".map"))).toEqual([]);
    // Only what the entries need: no native module, no grammar package, no terminal UI.
    const installed = readdirSync(join(project, "node_modules"));
    expect(installed).not.toContain("node-pty");
    expect(installed).not.toContain("tree-sitter-bash");
    expect(installed).not.toContain("@xterm");
    expect(installed).not.toContain("@anthropic-ai"); // the node runtime's OS sandbox: an optional peer
  });

  it("type-checks a host page and a Node script under strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess", () => {
    // Emits too (out/): the next test runs the Node script as compiled here.
    run(process.execPath, [BIN("typescript/bin/tsc"), "-p", "tsconfig.json"], project);
  }, 300_000);

  it("runs a Node script: the guard, and a tool call on the embedded sandbox without node-pty", () => {
    const out = JSON.parse(run(process.execPath, ["out/node.js"], project).trim()) as { decisions: string[]; text: string };
    expect(out.decisions).toEqual(["deny", "allow"]);
    expect(out.text).toContain("from node\ndone");
    // The guard CLI as installed.
    const verdicts = execFileSync(join(project, "node_modules", ".bin", "sandshell-guard"), ["--policy", "strict"], { input: "rm -rf /\nls\n", encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { decision: string }).decision);
    expect(verdicts).toEqual(["deny", "allow"]);
  }, 300_000);

  it("npm publish --dry-run accepts the package", () => {
    const out = run("npm", ["publish", "--dry-run", "--ignore-scripts", "--json"], ROOT);
    expect(out).toContain('"name": "sandshell"');
  }, 120_000);

  it("in Chromium, runs tool calls through embedSandbox (with preloaded files) and the MCP SDK client, from another origin", async () => {
    // (3) the host page, bundled with Vite.
    run(process.execPath, [BIN("vite/bin/vite.js"), "build", "host", "--outDir", "../host-dist", "--emptyOutDir", "--logLevel", "error"], project);
    // (4) the shipped sandbox page, served by the package's own `sandshell serve`, and the host page on another port.
    const serve: ChildProcess = spawn(process.execPath, [join(project, "node_modules", ".bin", "sandshell"), "serve", "--port", "0"], { cwd: project });
    const host: Server = await serveStatic(join(project, "host-dist"), { port: 0, host: "127.0.0.1" });
    const browser = await chromium.launch({ headless: true, ...chromiumLaunchOptions() });
    try {
      const sandboxUrl = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /http:\/\/\S+?:\d+\//.exec(out);
          if (m) resolve(m[0]);
        });
        serve.on("exit", (code) => reject(new Error(`sandshell serve exited (${code}): ${out}`)));
      });
      const headers = (await fetch(sandboxUrl)).headers;
      expect(headers.get("cross-origin-embedder-policy")).toBe("require-corp");
      expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
      const address = host.address();
      const hostPort = typeof address === "object" && address !== null ? address.port : 0;
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${hostPort}/?sandbox=${encodeURIComponent(sandboxUrl)}`);
      await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, null, { timeout: 120_000 });
      const report = await page.evaluate(() => (window as unknown as { report: Record<string, string> }).report);
      expect(report.error).toBeUndefined();
      expect(report.embed).toContain("hello from a preloaded file\n- ship it");
      expect(report.sdk).toContain("sdk says hi");
      // The SDK's client reports it as its McpError, with the sandbox's reason and REJECTED_CODE.
      expect(report.refused).toMatch(/^McpError: MCP error -32001: Sandshell at http:\/\/localhost:\d+ refused this page \(http:\/\/127\.0\.0\.1:\d+\): The origin .* is not allowed/);
      const frameHeight = await page.locator("#embed iframe").evaluate((el) => el.getBoundingClientRect().height);
      expect(frameHeight).toBe(240);
    } finally {
      await browser.close();
      host.close();
      serve.kill();
    }
  }, 300_000);
});
