// A plain static server for dist/: the host page's origin in the API tests and benchmark (another port,
// no isolation headers: an ordinary web page). The same server as `sandshell serve` (src/cli/static.ts).
import type { Server } from "node:http";
import { serveStatic } from "../src/cli/static.ts";

/** The host page's origin: dist/ served plainly (no isolation headers: an ordinary web page). */
export function staticServer(root: string, port: number): Promise<Server> {
  return serveStatic(root, { port });
}
