// Every option spec row, by program name. Layer 3 allows a program only through its row; file-operands.ts
// asks the same rows which files a command writes, so that layer 2 judges them.

import type { Word } from "../facts.ts";
import { AWK } from "./awk.ts";
import { COREUTILS } from "./coreutils.ts";
import { FIND } from "./find.ts";
import { GIT } from "./git.ts";
import { SHELL_BUILTINS } from "./shell.ts";
import { compile, judge, type CompiledSpec, type Judged, type ProgramSpec } from "./spec.ts";
import { RG, SED } from "./text.ts";

export type { ProgramSpec, Judged } from "./spec.ts";

/** The rows, in the order the docs list them. */
export const OPTION_SPECS: readonly ProgramSpec[] = [...COREUTILS, ...SHELL_BUILTINS, FIND, SED, AWK, RG, GIT];

const BY_NAME = new Map<string, CompiledSpec>();
for (const spec of OPTION_SPECS) {
  const compiled = compile(spec);
  for (const name of spec.names) BY_NAME.set(name, compiled);
}

export function specFor(name: string | null): CompiledSpec | undefined {
  return name === null ? undefined : BY_NAME.get(name);
}

/** The program's arguments judged by its row; undefined when it has none. Kept on the Effective: layer 2 asks for the files, layer 3 for the verdict. */
export function judgeEffective(eff: { name: string | null; argv: readonly Word[]; judged?: Judged | null }): Judged | undefined {
  if (eff.judged !== undefined) return eff.judged ?? undefined;
  const spec = specFor(eff.name);
  eff.judged = spec ? judge(spec, eff.argv.slice(1)) : null;
  return eff.judged ?? undefined;
}
