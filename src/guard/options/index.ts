// Every option spec row, by program name. Layer 3 allows a program only through its row; file-operands.ts
// asks the same rows which files a command writes, so that layer 2 judges them.

import { DYN, type Word } from "../facts.ts";
import { ARCHIVES } from "./archives.ts";
import { AWK } from "./awk.ts";
import { COREUTILS } from "./coreutils.ts";
import { FIND } from "./find.ts";
import { GIT } from "./git.ts";
import { SHELL_BUILTINS } from "./shell.ts";
import { compile, judge, type CompiledSpec, type Judged, type ProgramSpec } from "./spec.ts";
import { RG, SED } from "./text.ts";

export type { ProgramSpec, Judged } from "./spec.ts";

/** The rows, in the order the docs list them. */
export const OPTION_SPECS: readonly ProgramSpec[] = [...COREUTILS, ...SHELL_BUILTINS, FIND, SED, AWK, RG, GIT, ...ARCHIVES];

const BY_NAME = new Map<string, CompiledSpec>();
for (const spec of OPTION_SPECS) {
  const compiled = compile(spec);
  for (const name of spec.names) BY_NAME.set(name, compiled);
}

export function specFor(name: string | null): CompiledSpec | undefined {
  return name === null ? undefined : BY_NAME.get(name);
}

/** The words xargs appends to the command it runs: any number of words, none of which the guard sees. */
export const XARGS_INPUT: Word = { raw: "(the words xargs reads from its input)", value: DYN, dynamic: true, glob: false, several: true };

interface Judgeable {
  name: string | null;
  argv: readonly Word[];
  judged?: Judged | null;
  stdinArgs?: boolean;
  replace?: string;
}

/**
 * The arguments the program gets: through xargs, the words it reads are appended (`xargs sort < list` may be `sort
 * --compress-program=./c.sh`), or with -I R put in place of R, one line as one word. The unwrapping may read the
 * program's own `-il` as xargs's `-i` (`xargs grep -il x` reports the replace string `l`): when the program has such a
 * word, both readings are assumed (that word kept as it is, `{}` and R replaced, and the input appended).
 */
export function argumentsOf(eff: Judgeable): Word[] {
  const args = eff.argv.slice(1);
  if (!eff.stdinArgs) return args;
  const r = eff.replace;
  if (r === undefined) return [...args, XARGS_INPUT];
  const misread = args.some((w) => w.value === `-i${r}`);
  const hides = (v: string) => (r !== "" && v.includes(r) && !(misread && v === `-i${r}`)) || (misread && v.includes("{}"));
  const replaced = args.map((w) => (hides(w.value) ? { ...w, value: w.value.split(r || "{}").join(DYN).split("{}").join(DYN), dynamic: true } : w));
  return misread ? [...replaced, XARGS_INPUT] : replaced;
}

/** The program's arguments judged by its row; undefined when it has none. Kept on the Effective: layer 2 asks for the files, layer 3 for the verdict. */
export function judgeEffective(eff: Judgeable): Judged | undefined {
  if (eff.judged !== undefined) return eff.judged ?? undefined;
  const spec = specFor(eff.name);
  eff.judged = spec ? judge(spec, argumentsOf(eff)) : null;
  return eff.judged ?? undefined;
}
