// Argument repair never moves text between fields, proved where it matters: in a real shell. Every spelling that is
// read (not refused) runs; none may create its tripwire file. Spellings: the second red team's 48 (unlisted separators)
// and a seeded fuzz over separators, unicode, white space, comments, quotes and keys (test/tools/smuggling.ts).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type CallToolResult, type Sandbox } from "../../src/node.ts";
import { fuzzSpellings, SECOND_RED_TEAM_SPELLINGS } from "./smuggling.ts";

const text = (r: CallToolResult) => r.content[0]!.text;

describe.each(["node", "embedded"] as const)("argument repair with unlisted separators, proved on the %s runtime", (kind) => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ runtime: kind, approver: "deny" });
  });
  afterAll(async () => {
    await sb?.close();
  });

  /** Runs a raw argument string; a command left waiting (an open quote) is interrupted. */
  async function run(raw: string): Promise<CallToolResult> {
    const r = await sb.callTool("bash", raw);
    const s = r.structuredContent as { held?: boolean; status?: string };
    if (s.held === true || s.status === "running") await sb.callTool("bash", { command: "C-c", is_input: true });
    return r;
  }

  const exists = async (name: string) => (await sb.runtime.fs.stat(`${sb.runtime.workspace}/${name}`)) !== null;

  it("the tripwire works: `touch` in the command of a valid call creates its file", async () => {
    await run('{"command": "echo hi; touch SEP_CONTROL"}');
    expect(await exists("SEP_CONTROL")).toBe(true);
  });

  it("none of the second red team's 48 spellings (attacks/args-spellings2.ts) creates its tripwire", async () => {
    for (const [i, { name, raw }] of SECOND_RED_TEAM_SPELLINGS.entries()) {
      const trip = `S${i + 1}`;
      const r = await run(raw(trip));
      expect(await exists(trip), `${name} ran its tripwire: ${text(r)}`).toBe(false);
    }
  });

  it("fuzz: of 600 random spellings, every one that is read runs without its tripwire", async () => {
    let read = 0;
    for (const [i, { name, raw }] of fuzzSpellings(7, 600).entries()) {
      const trip = `F${i}`;
      const r = await run(raw(trip));
      if (r.structuredContent.repairedArguments !== undefined) read++;
      expect(await exists(trip), `${name} ran its tripwire: ${text(r)}`).toBe(false);
    }
    expect(read).toBeGreaterThan(0);
  });
});
