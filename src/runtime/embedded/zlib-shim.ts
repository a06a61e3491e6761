// Stand-in for `node:zlib` in the browser build. just-bash's browser bundle imports it statically
// (vercel-labs/just-bash#81) for gzip, gunzip, zcat and `tar -z`; in a browser those commands then fail with this
// message instead of the whole bundle failing to build. Wire it with a vite alias:
//   resolve: { alias: { "node:zlib": fileURLToPath(new URL("./src/runtime/embedded/zlib-shim.ts", import.meta.url)) } }
// (in Node the real module is used and the commands work).

function unavailable(name: string): never {
  throw new Error(`${name} is not available in the browser (no zlib); gzip, gunzip, zcat and tar -z need the Node runtime`);
}

export function gzipSync(_data: unknown, _options?: unknown): Uint8Array {
  return unavailable("gzip");
}

export function gunzipSync(_data: unknown, _options?: unknown): Uint8Array {
  return unavailable("gunzip");
}

export const constants: Record<string, number> = {
  Z_NO_FLUSH: 0,
  Z_PARTIAL_FLUSH: 1,
  Z_SYNC_FLUSH: 2,
  Z_FULL_FLUSH: 3,
  Z_FINISH: 4,
  Z_BLOCK: 5,
  Z_OK: 0,
  Z_STREAM_END: 1,
  Z_NEED_DICT: 2,
  Z_NO_COMPRESSION: 0,
  Z_BEST_SPEED: 1,
  Z_BEST_COMPRESSION: 9,
  Z_DEFAULT_COMPRESSION: -1,
  Z_FILTERED: 1,
  Z_HUFFMAN_ONLY: 2,
  Z_RLE: 3,
  Z_FIXED: 4,
  Z_DEFAULT_STRATEGY: 0,
};

export default { gzipSync, gunzipSync, constants };
