// `npm run build:lib`: the published library in dist/lib: tsc's ESM JavaScript and .d.ts for the package's entries
// (tsconfig.lib.json; emitted with --noCheck: checking is `npm run typecheck`'s job, which `npm run build` and so
// prepack run first, and the consumer test checks the .d.ts under a strict consumer's tsconfig), then what tsc does not do:
//   - relative specifiers written as strings (`new URL("./worker.ts", …)`, `import(spec)`) and the .d.ts files'
//     imports end in .js, like the ones tsc rewrote;
//   - `import.meta.glob(…)` (Vite only) becomes a plain dynamic import, which every bundler and Node follow;
//   - the guard's grammar ships as a file (dist/lib/guard/tree-sitter-bash.wasm), loaded beside the code, so the
//     package needs no tree-sitter-bash; dist/lib/package.json maps `#guard-wasm` to these loaders;
//   - the embedded runtime's Node worker bootstrap (a plain .mjs) is copied.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "dist", "lib");

/** Every relative specifier in quotes that ends in .ts gets .js; `import.meta.glob("x")` becomes `{ "x": () => import("x") }`. */
export function rewrite(text: string): string {
  return text
    .replace(/(["'])(\.{1,2}\/[^"'\n]*?)(?<!\.d)\.ts\1/g, "$1$2.js$1")
    .replace(/import\.meta\.env\s*\?\s*import\.meta\.glob\((["'][^"']+["'])\)\s*:\s*null/g, "({ [$1]: () => import($1) })");
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const WASM_NODE = `// The published package: the grammar ships beside this file.
import { readFile } from "node:fs/promises";
export async function loadWasmSources() {
  // Not awaited: the grammar is read while web-tree-sitter compiles its core.
  return { bash: readFile(new URL("./tree-sitter-bash.wasm", import.meta.url)) };
}
`;
const WASM_BROWSER = `// The published package: the grammar ships beside this file; bundlers (Vite, webpack 5, esbuild with a loader) copy it.
export async function loadWasmSources() {
  return { bash: new URL("./tree-sitter-bash.wasm", import.meta.url).href };
}
`;
const WASM_TYPES = `export interface WasmSources {
    /** URL of web-tree-sitter.wasm, where the default lookup would not find it. */
    coreUrl?: string;
    bash: Uint8Array | string | Promise<Uint8Array>;
}
export declare function loadWasmSources(): Promise<WasmSources>;
`;

export function buildLib(): void {
  rmSync(OUT, { recursive: true, force: true });
  execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.lib.json"), "--noCheck"], { stdio: "inherit" });
  for (const file of walk(OUT)) {
    if (!file.endsWith(".js") && !file.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8");
    const next = rewrite(text);
    if (next !== text) writeFileSync(file, next);
  }
  copyFileSync(join(ROOT, "src", "runtime", "embedded", "node-worker.mjs"), join(OUT, "runtime", "embedded", "node-worker.mjs"));
  const require = createRequire(import.meta.url);
  copyFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"), join(OUT, "guard", "tree-sitter-bash.wasm"));
  writeFileSync(join(OUT, "guard", "wasm-node.js"), WASM_NODE);
  writeFileSync(join(OUT, "guard", "wasm-browser.js"), WASM_BROWSER);
  writeFileSync(join(OUT, "guard", "wasm-node.d.ts"), WASM_TYPES);
  writeFileSync(join(OUT, "guard", "wasm-browser.d.ts"), WASM_TYPES);
  const scope = {
    "//": "The library's own scope: ESM, and the guard's wasm loaders for Node and for browsers.",
    type: "module",
    imports: { "#guard-wasm": { node: "./guard/wasm-node.js", default: "./guard/wasm-browser.js" } },
  };
  writeFileSync(join(OUT, "package.json"), JSON.stringify(scope, null, 2) + "\n");
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildLib();
  process.stdout.write(`build:lib: wrote ${walk(OUT).length} files to dist/lib\n`);
}
