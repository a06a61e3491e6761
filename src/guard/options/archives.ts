// Option specs for listing and reading archives: `tar -t`, `unzip -l`, `zcat`, `gzip -c`. Only the forms that write
// no file are rows: extracting, compressing in place and updating an archive ask, as do the options that run a program
// (`tar -I PROG`, `--to-command`, `--checkpoint-action`, `-F`, `--rsh-command`, a remote `-f host:file`, `unzip -M`).

import { DYN, type Word } from "../facts.ts";
import { getopt, mayBeOption, optionTable, type Opt, type Parsed } from "./getopt.ts";
import { filesListedIn, type ProgramSpec } from "./spec.ts";

type Ok = Extract<Parsed, { ok: true }>;

const has = (p: Ok, ...names: string[]) => p.opts.some((o) => names.includes(o.name));

const GZIP_SHORT = "cdfhklLnNqrS:tvV123456789";
const GZIP_LONG = [
  "stdout", "to-stdout", "decompress", "uncompress", "force", "help", "keep", "list", "license", "no-name", "name", "quiet", "recursive", "rsyncable",
  "suffix=", "synchronous", "test", "verbose", "version", "fast", "best",
];

// xz, bzip2 and zstd: the options that only choose how to (de)compress, test or list. Left out: writing to a named file
// (`zstd -o`), removing the input (`zstd --rm`), suffixes, file lists and dictionaries.
const XZ_SHORT = "cdztlkfqvhHVe0123456789";
const XZ_LONG = [
  "stdout", "to-stdout", "decompress", "uncompress", "compress", "test", "list", "keep", "force", "quiet", "verbose", "help", "long-help", "version",
  "extreme", "fast", "best", "single-stream", "no-sparse", "robot", "ignore-check", "threads=", "memlimit=", "memory=", "format=", "check=",
];
const XZ_UNLISTED = ["suffix", "files", "files0", "flush-timeout", "block-size", "block-list", "filters", "lzma1", "lzma2", "x86", "delta"];
const BZIP2_SHORT = "cdztkfqvsLV123456789";
const BZIP2_LONG = ["stdout", "decompress", "compress", "test", "keep", "force", "quiet", "verbose", "small", "license", "version", "help", "fast", "best"];
const ZSTD_SHORT = "cdztlkfqvhHV0123456789";
const ZSTD_LONG = ["stdout", "decompress", "uncompress", "compress", "test", "list", "keep", "force", "quiet", "verbose", "help", "version", "no-progress", "fast=?", "ultra", "long=?"];
const ZSTD_UNLISTED = ["rm", "output-dir-flat", "output-dir-mirror", "patch-from", "filelist", "trace", "memory", "train", "dictID", "exclude-compressed"];
/** Writes no file: to stdout, a test, a listing or a help text (without them it replaces its files). */
const toStdout = (program: string) => (p: Ok) =>
  has(p, "c", "stdout", "to-stdout", "t", "test", "l", "list", "h", "help", "long-help", "V", "version", "L", "license") ? null : `${program} without -c, -t or -l replaces its files`;

const TAR_SHORT = "tvzjJZaf:C:T:X:OiBhK:N:PlR";
const TAR_LONG = [
  "list", "verbose", "gzip", "gunzip", "ungzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "compress", "uncompress", "auto-compress", "file=",
  "directory=", "files-from=", "exclude-from=", "exclude=", "to-stdout", "ignore-zeros", "read-full-records", "dereference", "starting-file=",
  "newer=", "after-date=", "absolute-names", "check-links", "block-number", "wildcards", "no-wildcards", "anchored", "no-anchored", "ignore-case",
  "no-ignore-case", "wildcards-match-slash", "no-wildcards-match-slash", "numeric-owner", "utc", "full-time", "show-transformed-names",
  "show-stored-names", "quoting-style=", "quote-chars=", "no-quote-chars=", "null", "no-null", "unquote", "no-unquote", "verbatim-files-from",
  "no-verbatim-files-from", "occurrence=?", "strip-components=", "transform=", "xform=", "totals=?", "warning=", "help", "usage", "version",
];
// Real long options that run a program, write a file or reach another host: no abbreviation is read as a listed one.
const TAR_UNLISTED = [
  "to-command", "use-compress-program", "checkpoint-action", "checkpoint", "info-script", "new-volume-script", "rsh-command", "rmt-command",
  "index-file", "volno-file", "listed-incremental", "force-local", "extract", "get", "create", "append", "update", "delete", "catenate",
  "concatenate", "diff", "compare", "interactive", "confirmation", "multi-volume", "remove-files", "overwrite", "recursive-unlink", "unlink-first",
];
const TAR_TABLE = optionTable(TAR_SHORT, TAR_LONG, false, TAR_UNLISTED);

/** tar's first word may be a bundle without a dash (`tar tzf x.tgz`): each letter that takes a value takes the next word. */
function parseTar(args: readonly Word[]): Parsed {
  const first = args[0];
  if (!first || first.value.startsWith("-") || first.dynamic) return getopt(args, TAR_TABLE);
  const words: Word[] = [];
  let i = 1;
  for (const c of first.value) {
    const arity = TAR_TABLE.short.get(c);
    if (arity === undefined) return { ok: false, unknown: first.raw };
    words.push({ raw: first.raw, value: `-${c}`, dynamic: false, glob: false });
    if (arity === "required") {
      const next = args[i++];
      if (!next) return { ok: false, unknown: first.raw };
      words.push(next);
    }
  }
  return getopt([...words, ...args.slice(i)], TAR_TABLE);
}

/**
 * A `-T LIST` read without --verbatim-files-from takes the options -C and -T in its lines: a line `-T /etc/x` reads
 * /etc/x as a further list (its lines printed as "Not found in archive"). The files such a list names are not known.
 */
function nestedLists(opts: readonly Opt[]): Word[] {
  let verbatim = false;
  const out: Word[] = [];
  for (const o of opts) {
    if (o.name === "verbatim-files-from" || o.name === "no-verbatim-files-from") verbatim = o.name === "verbatim-files-from";
    else if ((o.name === "T" || o.name === "files-from") && o.value && !verbatim) out.push(filesListedIn(o.value));
  }
  return out;
}

/** `-f host:file` reads the archive over rsh: a name with a `:`, or one the guard cannot see, may be one. */
function remoteArchive(opts: readonly Opt[]): string | null {
  const f = opts.find((o) => o.name === "f" || o.name === "file")?.value;
  if (!f) return null;
  if (f.dynamic || f.glob || f.value.includes(DYN)) return `tar's archive ${f.raw} may name another host (host:file runs rsh)`;
  return f.value.includes(":") ? `tar -f ${f.raw} reads an archive on another host through rsh` : null;
}

/**
 * unzip lists, tests or prints only as `unzip -l|-v|-t|-z|-p|-c… ARCHIVE [MEMBER…]`: its options come before the archive
 * (the row stops there), its `--` ends nothing (a `-` inside an option word turns the next letter off: `unzip -l -- -l
 * x.zip` extracts), and after the archive it still reads `-x` and `-d DIR`, so no word there may start with `-`.
 */
function unzipReads(p: Ok, args: readonly Word[]): string | null {
  if (args.some((w) => w.value === "--")) return "unzip's `--` does not end its options: a `-` in an option word turns the next option off (`unzip -l -- -l x.zip` extracts)";
  if (!has(p, "l", "v", "t", "z", "p", "c")) return "unzip without -l, -v, -t, -z, -p or -c before the archive extracts files";
  const [archive, ...members] = p.operands;
  if (archive?.value.startsWith("-")) return `unzip's archive ${archive.raw} starts with \`-\`: unzip may read it as an option`;
  const dash = members.find((w) => w.value.startsWith("-") || mayBeOption(w));
  return dash ? `\`${dash.raw}\` after the archive may be unzip's -d DIR or -x, or a word the guard cannot see` : null;
}

export const ARCHIVES: ProgramSpec[] = [
  {
    names: ["tar"],
    short: TAR_SHORT,
    long: TAR_LONG,
    unlisted: TAR_UNLISTED,
    parse: parseTar,
    operands: ["text"],
    reads: ["f", "file", "T", "files-from", "X", "exclude-from"],
    files: (p) => ({ writes: [], reads: nestedLists(p.opts) }),
    riskyOptions: true,
    check: (p) => (has(p, "t", "list") ? remoteArchive(p.opts) : "tar without -t (list) writes files or an archive"),
    reason: "tar -t only lists an archive (its compression filters are fixed programs: gzip, bzip2, xz, …)",
    examples: ["tar -tzf x.tgz", "tar tvf x.tar", "tar -tf x.tar", "tar --list -f x.tar.xz", "tar tzf x.tgz src/a.ts", "tar -tJvf x.txz --wildcards '*.md'"],
    nearMisses: [
      "tar -xzf x.tgz", "tar xf x.tar", "tar -czf x.tgz src", "tar -tf x.tar --to-command=sh", "tar -tf x.tar -I sh", "tar -t --use-compress-program=sh -f x",
      "tar -t --use=sh -f x", "tar -tf x.tar --checkpoint=1 --checkpoint-action=exec=sh", "tar -tf host:x.tar", "tar -tf \"$A\"", "tar -tf x.tar -F sh",
      "tar -tf x.tar --rsh-command=/bin/sh", "tar -tf x.tar --index-file=/tmp/x", "tar -tf x.tar $X", "tar -tw -f x.tar",
    ],
  },
  {
    names: ["unzip"],
    short: "lvtzpcqCP:",
    long: [],
    // unzip reads options only before the archive: after it `-l` is a member pattern (`unzip x.zip -l '*'` extracts).
    stopAtOperand: true,
    operands: ["read", "text"],
    riskyOptions: true,
    check: unzipReads,
    reason: "unzip -l/-v/-t/-z lists or tests an archive, -p/-c extract to stdout (options before the archive, no `--`)",
    examples: ["unzip -l x.zip", "unzip -v x.zip", "unzip -t x.zip", "unzip -p x.zip README.md", "unzip -lq x.zip", "unzip -l x.zip '*.ts'", "unzip -l ./\"$f\""],
    nearMisses: [
      "unzip x.zip", "unzip -o x.zip", "unzip -l x.zip -d /tmp", "unzip -f x.zip", "unzip -T x.zip", "unzip -lM x.zip", "unzip -l $X", "unzip x.zip -l '*'",
      "unzip x.zip '*' -t", "unzip -l -- -l x.zip", "unzip -l -- $X", "unzip -l- x.zip", "unzip -q-l x.zip", "unzip -l \"$f\"",
    ],
  },
  {
    names: ["zcat", "gzcat"],
    short: GZIP_SHORT,
    long: GZIP_LONG,
    // zcat is `gzip -cd "$@"`: no option undoes -c, so it never writes a file.
    reason: "zcat decompresses to stdout (gzip -cd)",
    examples: ["zcat f.gz", "zcat f.gz | head", "zcat -f a b.gz"],
    nearMisses: ["zcat --frobnicate f.gz"],
  },
  {
    names: ["gzip", "gunzip"],
    short: GZIP_SHORT,
    long: GZIP_LONG,
    check: (p) => (has(p, "c", "stdout", "to-stdout", "l", "list", "t", "test", "h", "help", "V", "version", "L", "license") ? null : "gzip without -c, -l or -t replaces its files"),
    reason: "gzip -c writes to stdout; -l lists and -t tests (without them it replaces its files)",
    examples: ["gzip -dc f.gz", "gzip -c f > f.gz", "gunzip -c f.gz", "gzip -l f.gz", "gzip -t f.gz", "gzip -dc f.gz | tar -tf -", "gzip -dc $X"],
    nearMisses: ["gzip f", "gunzip f.gz", "gzip -d f.gz", "gzip -k f", "gzip $X f"],
  },
  {
    names: ["xz", "unxz", "lzma", "unlzma"],
    short: XZ_SHORT,
    long: XZ_LONG,
    unlisted: XZ_UNLISTED,
    check: toStdout("xz"),
    reason: "xz -c writes to stdout; -t tests and -l lists (without them it replaces its files)",
    examples: ["xz -dc f.xz", "xz -c f > f.xz", "unxz -c f.xz", "xz -l f.xz", "xz -t f.xz", "xz -dc f.tar.xz | tar -tf -"],
    nearMisses: ["xz f", "unxz f.xz", "xz -d f.xz", "xz -dk f.xz", "xz -dc --suffix=.x f", "xz -dc --files=list"],
  },
  {
    names: ["xzcat", "lzcat"],
    short: XZ_SHORT,
    long: XZ_LONG,
    unlisted: XZ_UNLISTED,
    reason: "xzcat decompresses to stdout (xz -dc)",
    examples: ["xzcat f.xz", "xzcat f.xz | head"],
    nearMisses: ["xzcat --frobnicate f.xz"],
  },
  {
    names: ["bzip2", "bunzip2"],
    short: BZIP2_SHORT,
    long: BZIP2_LONG,
    check: toStdout("bzip2"),
    reason: "bzip2 -c writes to stdout and -t tests (without them it replaces its files)",
    examples: ["bzip2 -dc f.bz2", "bzip2 -c f > f.bz2", "bunzip2 -c f.bz2", "bzip2 -t f.bz2", "bzip2 -dc f.tar.bz2 | tar -tf -"],
    nearMisses: ["bzip2 f", "bunzip2 f.bz2", "bzip2 -d f.bz2", "bzip2 -dk f.bz2"],
  },
  {
    names: ["bzcat"],
    short: BZIP2_SHORT,
    long: BZIP2_LONG,
    reason: "bzcat decompresses to stdout (bzip2 -dc)",
    examples: ["bzcat f.bz2", "bzcat f.bz2 | head"],
    nearMisses: ["bzcat --frobnicate f.bz2"],
  },
  {
    names: ["zstd", "unzstd"],
    short: ZSTD_SHORT,
    long: ZSTD_LONG,
    unlisted: ZSTD_UNLISTED,
    // `zstd -dc $X` may be `zstd -dc -o FILE f.zst`.
    riskyOptions: true,
    check: toStdout("zstd"),
    reason: "zstd -c writes to stdout; -t tests and -l lists (without them it writes files; -o and --rm are not listed)",
    examples: ["zstd -dc f.zst", "zstd -c f > f.zst", "unzstd -c f.zst", "zstd -l f.zst", "zstd -t f.zst", "zstd -dc f.tar.zst | tar -tf -"],
    nearMisses: ["zstd f", "unzstd f.zst", "zstd -d f.zst", "zstd -dc f.zst -o g", "zstd -dc $X", "zstd -c --rm f", "zstd -dc --output-dir-flat=/tmp f.zst"],
  },
  {
    names: ["zstdcat"],
    short: ZSTD_SHORT,
    long: ZSTD_LONG,
    unlisted: ZSTD_UNLISTED,
    riskyOptions: true,
    reason: "zstdcat decompresses to stdout (zstd -dcf)",
    examples: ["zstdcat f.zst", "zstdcat f.zst | head"],
    nearMisses: ["zstdcat -o g f.zst"],
  },
];
