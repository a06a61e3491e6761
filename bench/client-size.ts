// The host page's cost: sandshell/client (and sandshell/embed) bundled and minified with esbuild, without the MCP SDK
// (a host that talks MCP has it anyway), gzipped. Goal: ≤ 5 KB gzip for the client. Prints one JSON line.
//   npm run --silent bench:client-size
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOAL_GZIP_BYTES = 5 * 1024;

async function measure(entry: string): Promise<{ bytes: number; gzipBytes: number }> {
  const out = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    external: ["@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/*"],
    logLevel: "error",
  });
  const code = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

const client = await measure("src/client/index.ts");
const embed = await measure("src/embed/index.ts");
console.log(
  JSON.stringify({
    bench: "client-size",
    client: { ...client, goalGzipBytes: GOAL_GZIP_BYTES, withinGoal: client.gzipBytes <= GOAL_GZIP_BYTES },
    embed,
    note: "esbuild --bundle --minify, @modelcontextprotocol/sdk external, gzip -9",
  }),
);
