// A command's words as programs read them: the program's name (whatever path or quotes spell it), GNU-style
// options (short letters grouped, long names by unique prefix, values attached or next), git's subcommand,
// and words the guard builds itself.

import { DYN, type Word } from "./facts.ts";

/** A word built by the guard itself (for `{}` of find -exec, or a static string). */
export function literalWord(value: string): Word {
  return { raw: value, value, dynamic: value.includes(DYN), glob: false };
}

/** A glob in the last part of a program name (`r[m]`, `/bin/r?`): bash expands it, so the name is unknown. */
const GLOB_NAME = /[*?]|\[[^\]]*\]/;

/**
 * `\rm`, `"rm"`, `/bin/rm` and `/usr/bin/rm` are all `rm`; null when the name is computed: a variable or
 * substitution, a glob bash expands (`r[m]`, `/bin/r?`), or an expansion that word splitting cuts up.
 */
export function programName(word: Word | undefined): string | null {
  if (!word || word.dynamic) return null;
  const v = word.value;
  const slash = v.lastIndexOf("/");
  const name = slash >= 0 && slash < v.length - 1 ? v.slice(slash + 1) : v;
  if (word.glob && GLOB_NAME.test(name)) return null;
  // `X="rm -rf"; $X /`: an unquoted expansion with blanks in it is split into several words.
  if (word.raw.includes("$") && /[ \t\n]/.test(v) && !/^(["']).*\1$/s.test(word.raw)) return null;
  return name;
}

export interface ParsedArgs {
  /** Short flags one letter each (`-rf` → r, f) and long flags without `--` and value (`--force`). */
  flags: Set<string>;
  /** Values of options that take one, by option (`-n` → "5", `--output` → "x"). Last one wins. */
  values: Map<string, Word>;
  operands: Word[];
}

/**
 * GNU-style option parsing. `shortWithArg` lists short letters that take a value (`"nt"`), `longWithArg`
 * long names that do. Stops at `--`, and at the first operand when `stopAtOperand` (wrappers).
 */
export function parseArgs(
  args: readonly Word[],
  shortWithArg = "",
  longWithArg: readonly string[] = [],
  stopAtOperand = false,
): ParsedArgs & { rest: Word[] } {
  const flags = new Set<string>();
  const values = new Map<string, Word>();
  const operands: Word[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      i++;
      break;
    }
    if (v.startsWith("--") && v.length > 2) {
      const eq = v.indexOf("=");
      const name = canonicalLong(eq > 0 ? v.slice(2, eq) : v.slice(2), longWithArg);
      flags.add(name);
      if (eq > 0) values.set(name, { ...w, value: v.slice(eq + 1), raw: w.raw });
      else if (longWithArg.includes(name) && i + 1 < args.length) values.set(name, args[++i]!);
      continue;
    }
    if (v.startsWith("-") && v.length > 1 && !w.dynamic) {
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        flags.add(c);
        if (shortWithArg.includes(c)) {
          const attached = v.slice(j + 1);
          if (attached) values.set(c, { ...w, value: attached });
          else if (i + 1 < args.length) values.set(c, args[++i]!);
          break;
        }
      }
      continue;
    }
    if (stopAtOperand) break;
    operands.push(w);
  }
  const rest = args.slice(i);
  if (!stopAtOperand) operands.push(...rest);
  return { flags, values, operands, rest: stopAtOperand ? rest : [] };
}

/** getopt_long takes a unique prefix: `--target=/etc` is `--target-directory=/etc`. */
function canonicalLong(name: string, known: readonly string[]): string {
  if (known.length === 0 || known.includes(name)) return name;
  let found: string | null = null;
  for (const k of known) {
    if (!k.startsWith(name)) continue;
    if (found !== null) return name;
    found = k;
  }
  return found ?? name;
}

/** Words joined by spaces into one, as watch, parallel, sg and tmux hand them to `sh -c`. */
export function joinWords(words: readonly Word[]): Word {
  const value = words.map((w) => w.value).join(" ");
  return { raw: words.map((w) => w.raw).join(" "), value, dynamic: value.includes(DYN), glob: false };
}

/** Index of git's subcommand in `git [global options] SUB …`, or -1. */
export function gitSubcommand(argv: readonly Word[]): number {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === "-C" || v === "-c" || /^--(?:git-dir|work-tree|namespace|exec-path|config-env|super-prefix|attr-source)$/.test(v)) i++;
    else if (!v.startsWith("-")) return i;
  }
  return -1;
}
