// Browsers and workers: Vite turns both wasm files into asset URLs, fetched once by createGuard().
import coreUrl from "web-tree-sitter/web-tree-sitter.wasm?url";
import bashUrl from "tree-sitter-bash/tree-sitter-bash.wasm?url";
import type { WasmSources } from "./wasm-node.ts";

export type { WasmSources };

export async function loadWasmSources(): Promise<WasmSources> {
  return { coreUrl, bash: bashUrl };
}
