// bench/guard-verdicts: every verdict (decision, layer, rule, reason, part) the guard gives, under the three
// presets, one line per command and preset, for a byte-for-byte comparison of two builds of the guard (a change
// meant to make it faster must not change one verdict):
//
//   npx tsx bench/guard-verdicts.ts > new.txt
//   npx tsx bench/guard-verdicts.ts /path/to/other/src/guard/index.ts > old.txt && cmp old.txt new.txt
//
// The commands: the NL2Bash corpus (../shared/corpora/nl2bash/all.cm), every string literal in test/guard's
// files (most are commands of the tests' tables; the rest cost nothing to check), the worst shapes of
// test/guard/worst-shapes.ts at 4 KB, and seeded random scripts of loops, branches, assignments, `cd`, functions
// and code inside code: the shapes whose state a walk carries from one round of a loop to the next.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { WORST_SHAPES } from "../test/guard/worst-shapes.ts";
import { branchScripts } from "../test/guard/branch-shapes.ts";

const module = process.argv[2] ? pathToFileURL(process.argv[2]).href : "../src/guard/index.ts";
const { createGuard } = (await import(module)) as typeof import("../src/guard/index.ts");

const commands: string[] = [];
const corpus = fileURLToPath(new URL("../../shared/corpora/nl2bash/all.cm", import.meta.url));
if (existsSync(corpus)) commands.push(...readFileSync(corpus, "utf8").split("\n").filter((l) => l.trim() !== ""));

const tests = fileURLToPath(new URL("../test/guard/", import.meta.url));
for (const file of readdirSync(tests).filter((f) => f.endsWith(".ts")).sort()) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, readFileSync(tests + file, "utf8"));
  for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
    if (t === ts.SyntaxKind.StringLiteral || t === ts.SyntaxKind.NoSubstitutionTemplateLiteral) commands.push(scanner.getTokenValue());
  }
}

for (const shape of Object.keys(WORST_SHAPES)) commands.push(WORST_SHAPES[shape]!(4096));

// GUARD_VERDICTS_RANDOM=count,seed for a longer run.
const [randomCount, randomSeed] = (process.env.GUARD_VERDICTS_RANDOM ?? "6000,4").split(",").map(Number) as [number, number];
commands.push(...branchScripts(randomCount, randomSeed));

const out: string[] = [];
for (const policy of ["strict", "balanced", "permissive"] as const) {
  const guard = await createGuard({ policy });
  for (const c of commands) {
    const v = guard.check(c);
    out.push(JSON.stringify([policy, c.length > 200 ? `${c.slice(0, 200)}…(${c.length})` : c, v.decision, v.layer, v.rule, v.reason, v.part ?? null]));
  }
}
process.stdout.write(out.join("\n") + "\n");
console.error(`${commands.length} commands × 3 presets`);
