// Node: the grammar comes from node_modules. web-tree-sitter finds its own core wasm beside itself.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export interface WasmSources {
  /** URL of web-tree-sitter.wasm, where the default lookup would not find it (bundled browsers). */
  coreUrl?: string;
  /** The grammar's bytes, or their URL; a promise when it is still being read (read while the core compiles). */
  bash: Uint8Array | string | Promise<Uint8Array>;
}

export async function loadWasmSources(): Promise<WasmSources> {
  const require = createRequire(import.meta.url);
  // Not awaited: the grammar is read while web-tree-sitter compiles its core (createGuard's time).
  return { bash: readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")) };
}
