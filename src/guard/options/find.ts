// find's expression, parsed as GNU find parses it: global options (-H -L -P -D -O) first, then starting
// points, then an expression of tests and actions, each taking a known number of words. Only tests and
// printing actions are known safe; -exec/-execdir/-ok/-okdir run commands and -delete deletes (layer 1
// and layer 3 judge those); -fprint/-fprint0/-fls/-fprintf write the file named, which layer 2 judges.

import { DYN, type Word } from "../facts.ts";
import { mayBeSeveral, type Opt, type Parsed } from "./getopt.ts";
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

/** Tests whose value names a file find reads (its times or inode; `-newerXt` takes a date instead), and `-files0-from`. */
const READERS = ["-files0-from", "-newer", "-anewer", "-cnewer", "-samefile", ...[..."aBcmt"].flatMap((x) => [..."aBcm"].map((y) => `-newer${x}${y}`))];

/** `"$PWD"`, `"$(pwd)"`, `"$HOME"`: quoted, a directory's absolute path, which never starts with `-`. */
const ABSOLUTE_DIRECTORY = /^"\$(?:\(pwd\)|PWD|\{PWD\}|HOME|\{HOME\})"$/;

/** Every word GNU find reads as part of an expression (its primaries, operators and global options). */
const EXPRESSION_WORDS: readonly string[] = [
  ...ZERO, ...ONE, ...Object.keys(WRITERS), "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fstype", "-H", "-L", "-P", "-D", "-O0", "-O1", "-O2", "-O3",
  ...[..."aBcmt"].flatMap((x) => [..."aBcmt"].map((y) => `-newer${x}${y}`)),
];

/** A glob as a regular expression over names (any case: `shopt -s nocaseglob` is allowed); a part the guard cannot see matches anything. */
export function globRegex(value: string): RegExp {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "*" || c === DYN) out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const close = value.indexOf("]", i + 2);
      if (close < 0) out += "\\[";
      else {
        // any one character: a bracket expression's own syntax (classes, ranges, negation) is not worth reading here
        out += ".";
        i = close;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "is");
}

/** A glob that may match a file named like part of an expression (`*` matches a file named `-delete`). */
function globMayBeExpression(w: Word): boolean {
  if (!w.glob) return false;
  const v = w.value;
  // Quick answers: every expression word starts with one of `-(!),` and holds no `.` or `/` (outside brackets here).
  if (!/^[-(!),*?[\u0000]/.test(v) || /[./]/.test(v.replace(/\[[^\]]*\]/g, ""))) return false;
  const re = globRegex(v);
  return EXPRESSION_WORDS.some((e) => re.test(e));
}

/**
 * A starting point whose text the guard cannot see and that may start an expression: `$d`, `"$d"`, `$(cat o)`, a
 * word that splits, a glob that may match a file named `-delete`. One that starts with a literal `/`, `./` or `~`
 * (or is `"$PWD"`, `"$(pwd)"`) names a directory whatever the rest holds.
 */
function hiddenStart(w: Word): boolean {
  if (!w.dynamic && !w.glob) return false;
  if (ABSOLUTE_DIRECTORY.test(w.raw)) return false;
  if (mayBeSeveral(w)) return true;
  // `~user` is a home directory (or stays `~user`)
  if (w.value.startsWith(DYN)) return !/^~[A-Za-z0-9_.-]*(?:\/|$)/.test(w.raw);
  return globMayBeExpression(w);
}

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
  for (; i < args.length && !/^[-(!)]/.test(args[i]!.value) && args[i]!.value !== ","; i++) {
    // A starting point the guard cannot see may be the expression itself (`-delete`, `. -exec …`).
    if (hiddenStart(args[i]!)) return { ok: false, unknown: args[i]!.raw };
    operands.push(args[i]!);
  }
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    // `-name $X` with X=`x -delete`: an unquoted word the guard cannot see may be several primaries; so may a glob.
    if (mayBeSeveral(w) || globMayBeExpression(w)) return { ok: false, unknown: w.raw };
    if (ZERO.has(v)) opts.push({ name: v, value: null, word: w });
    else if (ONE.has(v) || NEWER_XY.test(v) || v in WRITERS) {
      const n = WRITERS[v] ?? 1;
      if (i + n >= args.length) return { ok: false, unknown: w.raw };
      const hidden = args.slice(i + 1, i + 1 + n).find((x) => mayBeSeveral(x) || globMayBeExpression(x));
      if (hidden) return { ok: false, unknown: hidden.raw };
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
  reads: READERS,
  lists: ["-files0-from"],
  reason: "find with tests and printing actions only",
  examples: [
    "find . -name '*.ts' | wc -l", "find -L src -type f -mtime -7 -print0", "find . \\( -name a -o -name b \\) -prune -o -print",
    "find . -newermt 2024-01-01 -printf '%p\\n'", "find . -fprint out.txt", "find", "find -P / -maxdepth 1 -name x",
    "find \"$PWD\" -name x", "find \"$(pwd)\" -type f", "find ~ -name x", "find ~/src -name '*.ts'", "find ./\"$d\" -name x", "find /\"$d\" -name x",
    "find . -name \"$X\"", "find */2011/* -name '*.jpg'", "find . -name *.txt", "find ~music -type f",
    "find /tmp/stamp$$ -newer x",
  ],
  nearMisses: [
    "find . -exec rm {} \\;", "find . -delete", "find . -fprint /etc/x", "find . -execdir sh -c x \\;", "find . -okdir x \\;", "find . -fls /etc/x",
    "find . -frobnicate", "find $(cat o)", "read -r d < o; find $d -name x", "read -r d < d; find \"$d\" -name zzz", "find . -name $X",
    "find * -name x", "find ./$X -name x", "find . -name *", "find . -newer $f", "find *e -name x",
  ],
};
