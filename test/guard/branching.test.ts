// Branches and loops are walked twice (branching.ts); the second walk stops where it would only repeat the first.
// Stopping there must find exactly the facts the whole second walk finds (ids, pipelines and owners included, less
// the repeats), and keep what the second round of a loop sees from the first: a link it made, a function's calls of
// itself, the command the next stage of a pipeline reads.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { Command, Script } from "../../src/guard/facts.ts";
import { createAnalyzer } from "../../src/guard/language.ts";
import type { ScriptAnalyzer } from "../../src/guard/parse.ts";
import { branchScripts } from "./branch-shapes.ts";
import { guardFor } from "./helpers.ts";

const CORPUS = fileURLToPath(new URL("../../../shared/corpora/nl2bash/all.cm", import.meta.url));
let analyzer: ScriptAnalyzer;
beforeAll(async () => {
  analyzer = await createAnalyzer();
});

/** A command as the rules read it, with the command that owns it (by its id) and its pipeline. */
function fact(c: Command): string {
  const { id, owner, effective: _effective, pipeline, ...rest } = c;
  return JSON.stringify({ id, owner: owner?.id ?? null, pipeline, ...rest });
}

function compare(command: string): { whole: Script; stopped: Script; missing: string[] } {
  const options = { cwd: "/home/project", home: "/home/project", maxNestedDepth: 3 };
  const whole = analyzer.analyze(command, { ...options, fullRewalk: true });
  const wholeFacts = new Set(whole.commands.map(fact));
  const stopped = analyzer.analyze(command, options);
  return { whole, stopped, missing: stopped.commands.map(fact).filter((f) => !wholeFacts.has(f)) };
}

/** Without ids, owners and pipeline ids: what a repeat has in common with the command it repeats. */
function shape(c: Command): string {
  const { id: _id, owner, effective: _effective, pipeline, ...rest } = c;
  return JSON.stringify({ owner: owner ? shape(owner) : null, pipeline: pipeline ? [pipeline.index, pipeline.size] : null, ...rest });
}

function expectSameFacts(command: string): void {
  const { whole, stopped, missing } = compare(command);
  // Every command the shorter walk records is one the whole walk records, with the same id, owner and pipeline…
  expect(missing, command).toEqual([]);
  // …and every command the whole walk records is one of them or a repeat of one.
  expect(new Set(stopped.commands.map(shape)), command).toEqual(new Set(whole.commands.map(shape)));
  expect([stopped.problem, stopped.incomplete, JSON.stringify(stopped.functions)], command).toEqual([whole.problem, whole.incomplete, JSON.stringify(whole.functions)]);
}

describe("the second walk of a branch or loop stops where it would repeat the first", () => {
  it("records each command of a loop whose body sets nothing once per walk only as far as it differs", () => {
    const { whole, stopped } = compare('for f in *.txt; do mv "$f" "$f.bak"; echo done; done');
    expect(stopped.commands.length).toBeLessThan(whole.commands.length);
    expectSameFacts('for f in *.txt; do mv "$f" "$f.bak"; echo done; done');
  });

  it.each([
    'find . | while read -r d; do n=$(ls "$d" | wc -l); let n--; if [ $n -gt 0 ]; then echo "$d"; fi; done',
    "x=/tmp; for i in a b; do cd $x; x=/etc; done; touch passwd",
    "case $x in a) PATH=$x ls;; *) until [ -z $x ]; do eval $x && (( x = y + 1 )) && echo $l > $x; done; echo hi &;; esac",
    'x="echo hi"; for i in a b; do echo "$x"; x="rm -rf /"; done | sh',
    "for i in a b; do ln -s /etc l; echo x > l/passwd; done",
    "f() { for i in a; do f | f & done; }; f",
    "for i in a b; do g() { cd /; }; g; done; rm -rf x",
  ])("finds the same facts as the whole walk: %s", (command) => {
    expectSameFacts(command);
  });

  it("finds the same facts as the whole walk on 3,000 random scripts of loops, branches, links and functions", () => {
    for (const command of branchScripts(3000, 7)) expectSameFacts(command);
  }, 120_000);

  it.runIf(existsSync(CORPUS))("finds the same facts as the whole walk on every loop and branch of NL2Bash", () => {
    const lines = readFileSync(CORPUS, "utf8").split("\n").filter((l) => /\b(?:for|while|until|if|case|select)\b/.test(l));
    expect(lines.length).toBeGreaterThan(100);
    for (const command of lines) expectSameFacts(command);
  }, 120_000);

  it.each([
    ["for i in a b; do ln -s /etc l; done", "deny", "write-through-symlink"],
    ["x=rm; for i in a b; do x=1; ln -s /etc $x; done", "deny", "write-through-symlink"],
    ["f() { while :; do f | f & done; }; f", "deny", "fork-bomb"],
    ['for i in a b; do echo "rm -rf /"; done | sh', "deny", "recursive-delete-root"],
  ])("keeps what a loop's second round sees from its first: %s", async (command, decision, rule) => {
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision, rule });
  });
});
