// find's expression, parsed as GNU find parses it: global options (-H -L -P -D -O) first, then starting
// points, then an expression of tests and actions, each taking a known number of words. Only tests and
// printing actions are known safe; -exec/-execdir/-ok/-okdir run commands and -delete deletes (layer 1
// and layer 3 judge those); -fprint/-fprint0/-fls/-fprintf write the file named, which layer 2 judges.

import type { Word } from "../facts.ts";
import type { Opt, Parsed } from "./getopt.ts";
import type { ProgramSpec } from "./spec.ts";

const ZERO = new Set([
  "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-executable", "-readable", "-writable", "-nouser",
  "-nogroup", "-depth", "-d", "-mount", "-xdev", "-noleaf", "-follow", "-daystart", "-ignore_readdir_race", "-noignore_readdir_race",
  "-not", "-a", "-and", "-o", "-or", "(", ")", "!", ",", "-help", "--help", "-version", "--version", "-warn", "-nowarn", "-X",
]);

const ONE = new Set([
  "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-type", "-xtype", "-size",
  "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-newer", "-anewer", "-cnewer", "-mtime", "-atime", "-ctime",
  "-mmin", "-amin", "-cmin", "-used", "-maxdepth", "-mindepth", "-fstype", "-regextype", "-printf", "-context", "-files0-from",
]);

/** Actions that write the file named by their first argument. */
const WRITERS: Record<string, number> = { "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2 };

const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

/** Parses find's arguments into options (the expression's primaries) and operands (starting points). */
export function parseFind(args: readonly Word[]): Parsed {
  const opts: Opt[] = [];
  const operands: Word[] = [];
  let i = 0;
  // Global options before the starting points.
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "-H" || v === "-L" || v === "-P") opts.push({ name: v, value: null, word: args[i]! });
    else if (v === "-D" && i + 1 < args.length) opts.push({ name: v, value: args[++i]!, word: args[i - 1]! });
    else if (/^-O\d$/.test(v)) opts.push({ name: "-O", value: null, word: args[i]! });
    else break;
  }
  for (; i < args.length && !/^[-(!)]/.test(args[i]!.value) && args[i]!.value !== ","; i++) operands.push(args[i]!);
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (ZERO.has(v)) opts.push({ name: v, value: null, word: w });
    else if (ONE.has(v) || NEWER_XY.test(v) || v in WRITERS) {
      const n = WRITERS[v] ?? 1;
      if (i + n >= args.length) return { ok: false, unknown: w.raw };
      opts.push({ name: v, value: args[i + 1]!, word: w });
      i += n;
    } else return { ok: false, unknown: w.raw };
  }
  return { ok: true, opts, operands };
}

export const FIND: ProgramSpec = {
  names: ["find"],
  short: "",
  long: [],
  parse: parseFind,
  writes: Object.keys(WRITERS),
  reads: ["-files0-from"],
  reason: "find with tests and printing actions only",
  examples: [
    "find . -name '*.ts' | wc -l", "find -L src -type f -mtime -7 -print0", "find . \\( -name a -o -name b \\) -prune -o -print",
    "find . -newermt 2024-01-01 -printf '%p\\n'", "find . -fprint out.txt", "find", "find -P / -maxdepth 1 -name x",
  ],
  nearMisses: [
    "find . -exec rm {} \\;", "find . -delete", "find . -fprint /etc/x", "find . -execdir sh -c x \\;", "find . -okdir x \\;", "find . -fls /etc/x",
    "find . -frobnicate",
  ],
};
