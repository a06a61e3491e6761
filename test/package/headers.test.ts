// The sandbox page's headers are written once (src/cli/static.ts) and must say the same for every host:
// `sandshell serve`, Netlify/Cloudflare Pages (_headers) and Vercel (vercel.json).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SANDBOX_HEADERS, serveStatic } from "../../src/cli/static.ts";

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("the sandbox page's headers", () => {
  it("_headers (Netlify, Cloudflare Pages) sets every one of them for every path", () => {
    const text = read("public/_headers");
    expect(text).toMatch(/^\/\*$/m);
    for (const [name, value] of Object.entries(SANDBOX_HEADERS)) expect(text).toContain(`  ${name}: ${value}`);
  });

  it("vercel.json sets every one of them for every path", () => {
    const config = JSON.parse(read("public/vercel.json")) as { headers: Array<{ source: string; headers: Array<{ key: string; value: string }> }> };
    const all = config.headers.find((h) => h.source === "/(.*)");
    expect(Object.fromEntries((all?.headers ?? []).map((h) => [h.key, h.value]))).toEqual(SANDBOX_HEADERS);
  });

  it("sandshell serve sends them, and refuses paths outside its folder", async () => {
    const server = await serveStatic(new URL("../../public", import.meta.url).pathname, { port: 0, host: "127.0.0.1", headers: SANDBOX_HEADERS });
    try {
      const address = server.address();
      const base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
      const ok = await fetch(`${base}/vercel.json`);
      expect(ok.status).toBe(200);
      for (const [name, value] of Object.entries(SANDBOX_HEADERS)) expect(ok.headers.get(name)).toBe(value);
      expect((await fetch(`${base}/%2e%2e/package.json`)).status).toBe(404);
      expect((await fetch(`${base}/..%2fpackage.json`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
