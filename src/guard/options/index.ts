// Every option spec row, by program name. Layer 3 allows a program only through its row; commands.ts
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

// One parse per command: layer 2 asks for the files, layer 3 for the verdict.
const memo = new WeakMap<readonly Word[], Judged>();

/** The program's arguments judged by its row; undefined when it has none. */
export function judgeArgs(name: string | null, argv: readonly Word[]): Judged | undefined {
  const spec = specFor(name);
  if (!spec) return undefined;
  let j = memo.get(argv);
  if (!j) memo.set(argv, (j = judge(spec, argv.slice(1))));
  return j;
}
