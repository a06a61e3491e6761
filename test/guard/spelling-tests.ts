// The two tests every row of a bypass table gets (Spelling, tripwire.ts): the spelling really works in real bash
// (its tripwire is left), and the guard gives it the verdicts the row says under balanced and strict.
import { expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { spellingScript, tripped, type Spelling } from "./tripwire.ts";

/** "works in real bash: RUN" for each spelling; skipped where the programs it needs are missing (`runsHere`). */
export function itWorksInRealBash(spellings: readonly Spelling[], runsHere = true): void {
  it.skipIf(!runsHere).each(spellings.map((s) => [s.run, s] as const))("works in real bash: %j", (_r, s) => {
    expect(tripped(spellingScript(s))).toBe(true);
  });
}

/** "is not allowed as written: RUN" for each spelling: its verdicts under balanced and strict are the row's. */
export function itIsNotAllowedAsWritten(spellings: readonly Spelling[]): void {
  it.each(spellings.map((s) => [s.run, s] as const))("is not allowed as written: %j", async (_r, s) => {
    const b = (await guardFor("balanced")).check(s.run);
    const st = (await guardFor("strict")).check(s.run);
    expect({ command: s.run, balanced: `${b.decision}/${b.rule}`, strict: `${st.decision}/${st.rule}` }).toEqual({ command: s.run, balanced: s.balanced, strict: s.strict });
  });
}
