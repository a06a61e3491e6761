// Loads web-tree-sitter and the bash grammar once per page or process; every guard shares them.
import { Language, Parser } from "web-tree-sitter";
import { loadWasmSources } from "#guard-wasm";
import { ScriptAnalyzer } from "./parse.ts";

let language: Promise<Language> | null = null;

export function loadLanguage(): Promise<Language> {
  language ??= (async () => {
    const sources = await loadWasmSources();
    await Parser.init(sources.coreUrl ? { locateFile: () => sources.coreUrl! } : undefined);
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
  return new ScriptAnalyzer(parser);
}
