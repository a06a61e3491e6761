// A static file server: `sandshell serve` (the sandbox page with the headers it needs) and the tests' plain host
// pages (no headers: an ordinary web page). Node only; one file, no dependencies.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * What the sandbox page needs: cross-origin isolation for WebContainer (COOP + COEP), and CORP so that a host page
 * that is itself cross-origin isolated may frame it. The same rows are written to `_headers` and `vercel.json`.
 */
export const SANDBOX_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "cross-origin",
});

export interface StaticServerOptions {
  port: number;
  /** Default "localhost". */
  host?: string;
  /** Sent with every response. */
  headers?: Readonly<Record<string, string>>;
}

/** Serves `root` (index.html for folders); a path outside it, or a missing file, is a 404. */
export function serveStatic(root: string, options: StaticServerOptions): Promise<Server> {
  const base = resolve(root);
  const server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      res.writeHead(400).end("bad path");
      return;
    }
    let file = resolve(join(base, path));
    if ((file !== base && !file.startsWith(base + sep)) || !existsSync(file)) {
      res.writeHead(404, { ...options.headers }).end("not found");
      return;
    }
    if (statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) {
      res.writeHead(404, { ...options.headers }).end("not found");
      return;
    }
    res.writeHead(200, { ...options.headers, "Content-Type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(options.port, options.host ?? "localhost", () => done(server));
  });
}
