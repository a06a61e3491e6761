// The shape of an option spec row: which options a known-safe program may take, what its operands are,
// and which options or operands name files it writes. Rows are data; tests and docs come from them.

import { DYN, type Word } from "../facts.ts";
import { getopt, mayBeOption, mayBeSeveral, optionTable, type OptionTable, type Parsed } from "./getopt.ts";

/** What an operand is to the program: a file it reads or writes, or text (a pattern, a number, a name). */
export type Role = "read" | "write" | "text";

export interface ProgramSpec {
  /** The program names this row covers (`grep`, `egrep`, `fgrep`). */
  names: string[];
  /** Short options in getopt(3) syntax: `"nc:"` (`:` takes a value, `::` an optional attached one). */
  short: string;
  /** Long options: `"lines="` takes a value, `"color=?"` an optional one, `"quiet"` none. */
  long: string[];
  /**
   * Long options the real program has and this row leaves out because they write or run code. getopt_long
   * accepts any unique prefix: `--output` must never be read as an abbreviation of a listed `--output-indicator-new`.
   */
  unlisted?: string[];
  /** `-5` is an option (`head -5`, `tail -20`, `uniq -2`). */
  numeric?: boolean;
  /** Options end at the first operand, as bash's builtins read them (`printf '%s\n' -v` prints -v). */
  stopAtOperand?: boolean;
  /** Operands by position; the last role repeats. Default: every operand is read. */
  operands?: Role[];
  /** Options that supply the script or pattern, so that the first operand is a file after all (`grep -e`). */
  scriptOptions?: string[];
  /** Options whose value is a file the program writes: layer 2 judges them like a redirect. */
  writes?: string[];
  /** Options whose value is a file the program reads. */
  reads?: string[];
  /** Options whose value is a file naming more files the program reads (`--files0-from=LIST`): those are not known. */
  lists?: string[];
  /**
   * The real program has options that write or run code, which this row leaves out: then a word the
   * guard cannot see (`$X`, `$(…)`, a leading `*`) may turn into one of them, and the command is not known safe.
   */
  riskyOptions?: boolean;
  /** The program ignores unknown options or takes any text (echo, true, test): every argument is known safe. */
  anyArguments?: boolean;
  /** A further condition: why this parse is not known safe, or null. */
  check?(parsed: Extract<Parsed, { ok: true }>, args: readonly Word[]): string | null;
  /** Files it writes and reads that the generic roles cannot express (sed -i, sed's `w FILE`). */
  files?(parsed: Extract<Parsed, { ok: true }>): { writes: Word[]; reads: Word[]; operandsWritten?: boolean };
  /** Replaces getopt for a program that does not parse like GNU (xxd's `-ps`, find's expressions). */
  parse?(args: readonly Word[]): Parsed;
  reason: string;
  /** Commands this row must allow (under balanced). */
  examples: string[];
  /** Commands of this program it must not allow. */
  nearMisses: string[];
}

/** The files a list file names (`wc --files0-from=LIST`, `git config --includes`): any number, none the guard sees. */
export function filesListedIn(list: Word): Word {
  return { raw: `the files listed in ${list.dynamic ? `\`${list.raw}\`` : list.value}`, value: DYN, dynamic: true, glob: false, several: true };
}

export interface CompiledSpec extends ProgramSpec {
  table: OptionTable;
}

export function compile(spec: ProgramSpec): CompiledSpec {
  return { ...spec, table: optionTable(spec.short, spec.long, spec.numeric ?? false, spec.unlisted, spec.stopAtOperand ?? false) };
}

export function parseWith(spec: CompiledSpec, args: readonly Word[]): Parsed {
  if (spec.anyArguments) return { ok: true, opts: [], operands: [...args] };
  return spec.parse ? spec.parse(args) : getopt(args, spec.table);
}

export interface Judged {
  /** The arguments parsed by the row (false: an option it does not know; writes and reads are then unknown). */
  parsed: boolean;
  /** null when known safe; else what is not known safe. */
  unsafe: string | null;
  writes: Word[];
  reads: Word[];
  /** Its file operands are written (tee, touch, sed -i): operands that come from stdin (xargs) are writes nobody sees. */
  operandsWritten: boolean;
}

/** Parses a program's arguments by its spec: known safe or not, and the files it writes and reads. */
export function judge(spec: CompiledSpec, args: readonly Word[]): Judged {
  const parsed = parseWith(spec, args);
  if (!parsed.ok) return { unsafe: `the option ${parsed.unknown} is not one the guard knows to be safe`, parsed: false, writes: [], reads: [], operandsWritten: false };
  const writes: Word[] = [];
  const reads: Word[] = [];
  for (const o of parsed.opts) {
    if (o.value && spec.writes?.includes(o.name)) writes.push(o.value);
    if (o.value && spec.reads?.includes(o.name)) reads.push(o.value);
    if (o.value && spec.lists?.includes(o.name)) reads.push(filesListedIn(o.value));
  }
  const roles = spec.operands ?? ["read"];
  if (spec.files) return finish(spec, parsed, args, writes, reads);
  // `grep -e PAT f`: the pattern came with an option, so the first operand is already a file.
  const explicit = spec.scriptOptions && parsed.opts.some((o) => spec.scriptOptions!.includes(o.name));
  // From a word that may be several words (`$X`, `$(cat f)`, a glob, xargs's input) on, which operand is which is
  // not known: it and every later operand may take any later role (`uniq $X` is `uniq cfg .git/config`).
  let from = -1;
  parsed.operands.forEach((w, i) => {
    const at = Math.min(explicit && roles[0] === "text" ? i + 1 : i, roles.length - 1);
    if (from < 0 && (w.glob || mayBeSeveral(w))) from = at;
    const possible = from < 0 ? [roles[at]!] : roles.slice(from);
    if (possible.includes("write")) writes.push(w);
    else if (possible.includes("read")) reads.push(w);
  });
  return finish(spec, parsed, args, writes, reads);
}

function finish(spec: CompiledSpec, parsed: Extract<Parsed, { ok: true }>, args: readonly Word[], writes: Word[], reads: Word[]): Judged {
  let operandsWritten = (spec.operands ?? []).includes("write");
  if (spec.files) {
    const f = spec.files(parsed);
    writes.push(...f.writes);
    reads.push(...f.reads);
    operandsWritten ||= f.operandsWritten ?? false;
  }
  let unsafe: string | null = null;
  if (spec.riskyOptions && !spec.anyArguments) {
    // Up to `--`; for a program whose options end at its first operand, up to that operand.
    const end = spec.stopAtOperand && parsed.operands.length ? args.indexOf(parsed.operands[0]!) + 1 : args.length;
    const dashes = args.findIndex((x) => x.value === "--");
    // A value taken by an option (`sort -k "$K"`) is that value whatever it holds, unless it may be several words.
    const hidden = args.slice(0, dashes >= 0 && dashes < end ? dashes : end).find((w) => mayBeOption(w) && !(!w.glob && !mayBeSeveral(w) && parsed.opts.some((o) => o.value === w)));
    if (hidden) unsafe = `\`${hidden.raw}\` may turn into an option the guard cannot see`;
  }
  unsafe ??= spec.check?.(parsed, args) ?? null;
  return { parsed: true, unsafe, writes, reads, operandsWritten };
}
