// The guard reads a word as bash does, or what it checks is not what runs. Each case is compared with
// what real bash makes of the same word.
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/guard/language.ts";
import type { ScriptAnalyzer } from "../../src/guard/parse.ts";

let analyzer: ScriptAnalyzer;
beforeAll(async () => {
  analyzer = await createAnalyzer();
});

function guardValue(word: string): string {
  const script = analyzer.analyze(`printf %s ${word}`, { cwd: "/w", home: "/w", maxNestedDepth: 4 });
  return script.commands[0]!.argv[2]!.value;
}

function bashValue(word: string): string {
  return execFileSync("bash", ["-c", `printf %s ${word}`], { encoding: "utf8" });
}

describe("ANSI-C quoted words ($'…') are read as bash reads them", () => {
  it.each([
    ["octal escapes are bytes of UTF-8 (é)", String.raw`$'\303\251'`],
    ["hex escapes are bytes of UTF-8 (é)", String.raw`$'\xc3\xa9'`],
    ["\\u escapes are code points", String.raw`$'\u00e9x'`],
    ["octal spelling of a program name", String.raw`$'\162\155'`],
    ["control escapes", String.raw`$'a\tb'`],
    ["an unknown escape keeps its backslash", String.raw`$'\q'`],
  ])("%s", (_name, word) => {
    expect(guardValue(word)).toBe(bashValue(word));
  });
});
