// Loads web-tree-sitter and the bash grammar once per page or process; every guard shares them.
import { Language, Parser } from "web-tree-sitter";
import { loadWasmSources } from "#guard-wasm";
import { ScriptAnalyzer } from "./parse.ts";

let language: Promise<Language> | null = null;

/**
 * The parser's memory, owned here so that the guard can see how much a parse takes and bound it (parse.ts):
 * the size and maximum web-tree-sitter would choose itself (32 MB, 2 GB), and a ceiling past which it may not
 * grow during a parse. tree-sitter takes memory beyond its budget in one step a progress callback cannot stop
 * (the pipelines of pipelines.ts); refused more, it aborts that parse, and the guard refuses the command.
 */
const memory = new WebAssembly.Memory({ initial: 512, maximum: 32768 });
let ceiling = Infinity;
const grow = memory.grow.bind(memory);
memory.grow = (pages: number): number => {
  if (memory.buffer.byteLength + pages * 65536 > ceiling) throw new RangeError("the guard's parse budget is spent");
  return grow(pages);
};

export interface ParserMemory {
  /** Bytes of the parser's memory now; it grows as a parse needs and never shrinks. */
  bytes(): number;
  /** The most it may grow to (Infinity: as far as wasm lets it). */
  limit(bytes: number): void;
}

export const PARSER_MEMORY: ParserMemory = {
  bytes: () => memory.buffer.byteLength,
  limit: (bytes) => {
    ceiling = bytes;
  },
};

/** Emscripten's messages when a parse is aborted (its memory refused): expected, and answered by the guard. */
function printErr(text: string): void {
  if (!/^Aborted\(|failed to allocate/.test(text)) console.error(text);
}

export function loadLanguage(): Promise<Language> {
  language ??= (async () => {
    const sources = await loadWasmSources();
    // `wasmMemory` is an Emscripten module option web-tree-sitter passes through (its types do not list it).
    const options: object = { wasmMemory: memory, printErr, ...(sources.coreUrl ? { locateFile: () => sources.coreUrl! } : {}) };
    await Parser.init(options);
    return Language.load(await sources.bash);
  })().catch((error: unknown) => {
    language = null; // let a later createGuard() try again
    throw error;
  });
  return language;
}

export async function createAnalyzer(): Promise<ScriptAnalyzer> {
  const lang = await loadLanguage();
  const parser = new Parser();
  parser.setLanguage(lang);
  return new ScriptAnalyzer(parser, PARSER_MEMORY);
}
