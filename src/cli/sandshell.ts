// The `sandshell` command: `sandshell serve [dir] [--port N] [--host H]` serves the sandbox page (the package's own
// build unless a folder is given) with the headers it needs; `sandshell guard …` is the guard CLI.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SANDBOX_HEADERS, serveStatic } from "./static.ts";

const USAGE = `usage: sandshell serve [dir] [--port 4173] [--host localhost]
         Serves the sandbox page (default: the one built into this package) with the headers it needs
         (${Object.keys(SANDBOX_HEADERS).join(", ")}).
       sandshell guard [--policy strict|balanced|permissive] [--jsonl] …
         Checks commands from stdin, one JSON verdict a line (also installed as sandshell-guard).`;

/** The sandbox page built into the package: dist/ beside dist/lib/cli (installed), or this repository's dist/. */
function defaultPageDir(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  return import.meta.url.endsWith(".ts") ? join(here, "..", "..", "dist") : join(here, "..", "..");
}

function fail(message: string): never {
  process.stderr.write(`sandshell: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function serve(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { port: { type: "string", short: "p", default: "4173" }, host: { type: "string", default: "localhost" } },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const port = Number(parsed.values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number (0-65535), not ${JSON.stringify(parsed.values.port)}`);
  if (parsed.positionals.length > 1) fail(`serve takes one folder, not ${parsed.positionals.length}`);
  const dir = parsed.positionals[0] ?? defaultPageDir();
  if (!existsSync(join(dir, "index.html"))) {
    fail(`${dir} has no index.html: build the sandbox page first (\`npm run build\` writes it to dist/) or name its folder`);
  }
  const server = await serveStatic(dir, { port, host: parsed.values.host, headers: SANDBOX_HEADERS });
  const address = server.address();
  const actual = typeof address === "object" && address !== null ? address.port : port;
  process.stdout.write(`Sandshell sandbox page: http://${parsed.values.host}:${actual}/ (serving ${dir}, cross-origin isolated)\n`);
}

const [command, ...rest] = process.argv.slice(2);
if (command === "serve") await serve(rest);
else if (command === "guard") {
  process.argv.splice(2, 1);
  await import("./guard.ts");
} else if (command === undefined || command === "help" || command === "--help" || command === "-h") process.stdout.write(USAGE + "\n");
else fail(`unknown command ${JSON.stringify(command)}`);
