// Node: the grammar comes from node_modules. web-tree-sitter finds its own core wasm beside itself.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export interface WasmSources {
  /** URL of web-tree-sitter.wasm, where the default lookup would not find it (bundled browsers). */
  coreUrl?: string;
  bash: Uint8Array | string;
}

export async function loadWasmSources(): Promise<WasmSources> {
  const require = createRequire(import.meta.url);
  return { bash: await readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")) };
}
