// Option specs of read-only tools (coreutils, util-linux, grep, jq, …): one row per program, listing only
// options that read, format or print. Options that write (`sort -o`, `tree -o`) are listed with `writes`
// so layer 2 judges their target; options that run code (`sort --compress-program`, `diff --paginate`,
// `file -C`) are left out, so they ask.

import { DYN, type Word } from "../facts.ts";
import { getopt, mayBeOption, optionTable, type Opt, type Parsed } from "./getopt.ts";
import type { ProgramSpec } from "./spec.ts";

const HV = ["help", "version"];

const TREE_SHORT = "acdlfFgipqsuhDnNCrtvUAJQSxXL:P:I:H:T:o:";
const TREE_LONG = [
  "noreport", "charset=", "filelimit=", "timefmt=", "dirsfirst", "filesfirst", "du", "si", "prune", "inodes", "device", "sort=", "matchdirs",
  "ignore-case", "fromfile", "fromtabfile", "fflinks", "metafirst", "gitignore", "gitfile=", "info", "infofile=", "hintro=", "houtro=", "noindent",
  "nolinks", ...HV,
];
const TREE_TABLE = optionTable(TREE_SHORT, TREE_LONG);

/**
 * tree 2 reads its arguments its own way, not getopt's: a value never attaches (`-L1` is an error), each option
 * of a bundle that takes a value takes the next word not yet taken (`tree -oL FILE 1 .` is `-o FILE -L 1`, and
 * `tree -Lo 1 FILE .` is `-L 1 -o FILE`), a long option is its whole name with `=VALUE` or the next word, options
 * may follow directories, and `--` ends them.
 */
function parseTree(args: readonly Word[]): Parsed {
  const opts: Opt[] = [];
  const operands: Word[] = [];
  let options = true;
  for (let i = 0; i < args.length; ) {
    const w = args[i++]!;
    const v = w.value;
    if (!options || !v.startsWith("-") || v === "-") {
      if (mayBeOption(w) && options) return { ok: false, unknown: w.raw };
      operands.push(w);
      continue;
    }
    if (v === "--") {
      options = false;
      continue;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq > 0 ? v.slice(2, eq) : v.slice(2);
      const arity = TREE_TABLE.long.get(name);
      if (arity === undefined || (eq > 0 && arity === "none")) return { ok: false, unknown: w.raw };
      if (arity === "required" && eq < 0) {
        const next = args[i++];
        if (!next) return { ok: false, unknown: w.raw };
        opts.push({ name, value: next, word: w });
      } else opts.push({ name, value: eq > 0 ? { ...w, value: v.slice(eq + 1), dynamic: v.slice(eq + 1).includes(DYN) } : null, word: w });
      continue;
    }
    for (const c of v.slice(1)) {
      const arity = TREE_TABLE.short.get(c);
      if (arity === undefined) return { ok: false, unknown: w.raw };
      if (arity === "none") opts.push({ name: c, value: null, word: w });
      else {
        const next = args[i++];
        if (!next) return { ok: false, unknown: w.raw };
        opts.push({ name: c, value: next, word: w });
      }
    }
  }
  return { ok: true, opts, operands };
}

const JQ_SHORT = "nrjaCMScesRe0f:L:h";
const JQ_LONG = [
  "null-input", "raw-input", "raw-output", "raw-output0", "join-output", "ascii-output", "color-output", "monochrome-output", "sort-keys",
  "compact-output", "exit-status", "slurp", "tab", "indent=", "args", "jsonargs", "from-file=", "seq", "stream", "stream-errors", "unbuffered",
  "library-path=", ...HV,
];
const JQ_TABLE = optionTable(JQ_SHORT, JQ_LONG);
/** jq's options that take two words, `NAME VALUE` (jq names them exactly: no abbreviation, no `=`). */
const JQ_PAIRS = new Set(["--arg", "--argjson", "--slurpfile", "--rawfile"]);

/** jq's arguments: `--rawfile NAME FILE` and its kin take two words, which getopt cannot say; the rest as getopt reads them. */
function parseJq(args: readonly Word[]): Parsed {
  const pairs: Opt[] = [];
  const rest: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.value === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (!JQ_PAIRS.has(w.value)) rest.push(w);
    else if (i + 2 >= args.length) return { ok: false, unknown: w.raw };
    else {
      pairs.push({ name: w.value.slice(2), value: args[i + 2]!, word: w });
      i += 2;
    }
  }
  const p = getopt(rest, JQ_TABLE);
  return p.ok ? { ok: true, opts: [...pairs, ...p.opts], operands: p.operands } : p;
}

export const COREUTILS: ProgramSpec[] = [
  {
    names: ["cat"],
    short: "AbeEnstTuv",
    long: ["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting", ...HV],
    reason: "cat only reads its files",
    examples: ["cat README.md", "cat -n a b", "cat --show-e x", "cat -- -x"],
    nearMisses: ["cat --output=x y", "cat -Z x", "cat --num x"],
  },
  {
    names: ["ls", "dir", "vdir"],
    short: "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1I:T:w:",
    long: [
      "all", "almost-all", "author", "escape", "block-size=", "ignore-backups", "color=?", "colour=?", "directory", "dired", "classify=?",
      "file-type", "format=", "full-time", "group-directories-first", "no-group", "human-readable", "si", "dereference-command-line",
      "dereference-command-line-symlink-to-dir", "hide=", "hyperlink=?", "indicator-style=", "inode", "ignore=", "kibibytes", "dereference",
      "literal", "numeric-uid-gid", "hide-control-chars", "show-control-chars", "quote-name", "quoting-style=", "reverse", "recursive",
      "size", "sort=", "time=", "time-style=", "tabsize=", "width=", "context", "zero", ...HV,
    ],
    reason: "ls only lists",
    examples: ["ls -la", "ls -1 src", "ls --col=never", "ls -lhS --sort=size", "ls -I '*.o' ."],
    nearMisses: ["ls --exec=x", "ls -j"],
  },
  {
    names: ["grep", "egrep", "fgrep"],
    short: "EFGPe:f:iyvwxcLlom:bHhnqsrRzZUA:B:C:TaId:D:V",
    long: [
      "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=", "ignore-case", "no-ignore-case", "word-regexp",
      "line-regexp", "null-data", "no-messages", "invert-match", "max-count=", "byte-offset", "line-number", "no-line-number",
      "line-buffered", "with-filename", "no-filename", "label=", "only-matching", "quiet", "silent", "binary-files=", "text", "directories=",
      "devices=", "recursive", "dereference-recursive", "include=", "exclude=", "exclude-from=", "exclude-dir=", "files-without-match",
      "files-with-matches", "count", "initial-tab", "null", "before-context=", "after-context=", "context=", "color=?", "colour=?", "binary", ...HV,
    ],
    numeric: true,
    operands: ["text", "read"],
    scriptOptions: ["e", "regexp", "f", "file"],
    reads: ["f", "file", "exclude-from"],
    reason: "grep only searches",
    examples: ["grep -rn 'a # b' src", "grep -e x -e y f", "grep --include='*.ts' -r x .", "egrep -i 'a|b' f", "grep -3 x f", "grep --rec x ."],
    nearMisses: ["grep --output=x y", "grep -Q x"],
  },
  {
    names: ["wc"],
    short: "clmwL",
    long: ["bytes", "chars", "lines", "files0-from=", "max-line-length", "words", "total=", ...HV],
    reads: ["files0-from"],
    lists: ["files0-from"],
    reason: "wc only counts",
    examples: ["wc -l x", "wc --lines x"],
    nearMisses: ["wc -o x"],
  },
  {
    names: ["head"],
    short: "c:n:qvz",
    long: ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", ...HV],
    numeric: true,
    reason: "head only reads",
    examples: ["head -5 x", "head -n 20 x", "head -c10 x", "head --li=3 x"],
    nearMisses: ["head -o x y"],
  },
  {
    names: ["tail"],
    short: "c:fFn:qs:vz",
    long: ["bytes=", "follow=?", "lines=", "max-unchanged-stats=", "pid=", "quiet", "silent", "retry", "sleep-interval=", "verbose", "zero-terminated", ...HV],
    numeric: true,
    reason: "tail only reads",
    examples: ["tail -20 x", "tail -n +5 x", "tail -f log"],
    nearMisses: ["tail --output x"],
  },
  {
    names: ["sort"],
    short: "bdfgiMhnRrVcCk:mo:sS:t:T:uz",
    long: [
      "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort",
      "human-numeric-sort", "numeric-sort", "random-sort", "random-source=", "reverse", "sort=", "version-sort", "check=?", "batch-size=",
      "debug", "files0-from=", "key=", "merge", "output=", "stable", "buffer-size=", "field-separator=", "temporary-directory=", "unique",
      "zero-terminated", "parallel=", ...HV,
    ],
    writes: ["o", "output", "T", "temporary-directory"],
    unlisted: ["compress-program"],
    reads: ["random-source", "files0-from"],
    lists: ["files0-from"],
    riskyOptions: true,
    reason: "sort reads; its -o output is judged as a write",
    examples: ["sort -u x", "sort -t, -k2n x", "sort -o out.txt x", "sort --outp=sorted x", "sort -rnk 3 x"],
    nearMisses: ["sort --compress-program=sh x", "sort -o /etc/passwd x", "sort $OPTS x"],
  },
  {
    names: ["uniq"],
    short: "cdDf:is:uw:z",
    long: ["count", "repeated", "all-repeated=?", "skip-fields=", "group=?", "ignore-case", "skip-chars=", "unique", "check-chars=", "zero-terminated", ...HV],
    numeric: true,
    operands: ["read", "write"],
    reason: "uniq reads; a second operand is its output, judged as a write",
    examples: ["uniq -c x", "uniq a b", "uniq -f2 x"],
    nearMisses: ["uniq a /etc/b", "uniq -x a"],
  },
  {
    names: ["diff"],
    short: "abBcC:dD:eEfF:HiI:L:nNpPqrsS:tTuU:vwW:x:X:yZ",
    long: [
      "normal", "brief", "report-identical-files", "context=?", "unified=?", "ed", "rcs", "side-by-side", "width=", "left-column",
      "suppress-common-lines", "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=",
      "suppress-blank-empty", "new-file", "unidirectional-new-file", "ignore-case", "ignore-file-name-case", "no-ignore-file-name-case",
      "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines",
      "ignore-matching-lines=", "text", "strip-trailing-cr", "recursive", "no-dereference", "exclude=", "exclude-from=", "starting-file=",
      "from-file=", "to-file=", "horizon-lines=", "speed-large-files", "minimal", "color=?", "palette=", "line-format=",
      "old-line-format=", "new-line-format=", "unchanged-line-format=", "old-group-format=", "new-group-format=",
      "changed-group-format=", "unchanged-group-format=", "ifdef=", ...HV,
    ],
    numeric: true,
    reads: ["X", "exclude-from", "from-file", "to-file"],
    unlisted: ["paginate"],
    reason: "diff only compares (its --paginate, which runs pr, is not listed)",
    examples: ["diff -u a b", "diff -rq dir1 dir2", "diff --brief a b"],
    nearMisses: ["diff --paginate a b", "diff -l a b"],
  },
  {
    names: ["cmp"],
    short: "bi:ln:sv",
    long: ["print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent", ...HV],
    reason: "cmp only compares",
    examples: ["cmp a b", "cmp -s a b"],
    nearMisses: ["cmp -o a b"],
  },
  {
    names: ["comm"],
    short: "123z",
    long: ["check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated", ...HV],
    reason: "comm only compares",
    examples: ["comm -12 a b", "comm -3 <(sort a) <(sort b)"],
    nearMisses: ["comm -o a b"],
  },
  {
    names: ["cut"],
    short: "b:c:d:f:nsz",
    long: ["bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited", "output-delimiter=", "zero-terminated", ...HV],
    reason: "cut only reads",
    examples: ["cut -d: -f1 /etc/passwd", "cut -c1-5 x", "cut --fields=2 -d, x"],
    nearMisses: ["cut -o x"],
  },
  {
    names: ["tr"],
    short: "cCdst",
    long: ["complement", "delete", "squeeze-repeats", "truncate-set1", ...HV],
    operands: ["text"],
    reason: "tr only filters its input",
    examples: ["tr a-z A-Z", "tr -d '\\n'", "tr -s ' '"],
    nearMisses: ["tr -o a b"],
  },
  {
    names: ["jq"],
    short: JQ_SHORT,
    long: JQ_LONG,
    parse: parseJq,
    operands: ["text", "read"],
    scriptOptions: ["f", "from-file"],
    reads: ["f", "from-file", "slurpfile", "rawfile", "L", "library-path"],
    reason: "jq only filters JSON (it has no way to run a program or write a file)",
    examples: ["jq .a x.json", "jq -r '.[] | .name' x", "jq --arg n v '.x' f", "jq -n --rawfile t notes.txt '$t'"],
    nearMisses: ["jq -Z . x", "jq --arg=n v . x"],
  },
  {
    names: ["stat"],
    short: "Lfc:tZ",
    long: ["dereference", "file-system", "cached=", "format=", "printf=", "terse", ...HV],
    reason: "stat only reads metadata",
    examples: ["stat x", "stat -c %s x", "stat --format=%Y x"],
    nearMisses: ["stat -o x"],
  },
  {
    names: ["file"],
    short: "bcEhiklLNnprsvzZ0e:f:F:m:P:",
    long: [
      "brief", "checking-printout", "exclude=", "exclude-quiet=", "extension", "files-from=", "separator=", "mime", "mime-type",
      "mime-encoding", "keep-going", "list", "dereference", "no-dereference", "magic-file=", "no-buffer", "no-pad", "print0",
      "preserve-date", "raw", "special-files", "uncompress", "uncompress-noreport", "parameter=", "apple", ...HV,
    ],
    reads: ["f", "files-from", "m", "magic-file"],
    unlisted: ["compile"],
    riskyOptions: true,
    reason: "file only reads (its -C, which writes a compiled magic file, is not listed)",
    examples: ["file x", "file -b --mime-type x"],
    nearMisses: ["file -C -m x"],
  },
  {
    names: ["du"],
    short: "0abBcd:DhHklLmPsStxX:",
    long: [
      "null", "all", "apparent-size", "block-size=", "bytes", "total", "max-depth=", "dereference-args", "human-readable", "inodes",
      "dereference", "count-links", "no-dereference", "separate-dirs", "si", "summarize", "threshold=", "time=?", "time-style=",
      "exclude-from=", "exclude=", "one-file-system", "files0-from=", ...HV,
    ],
    reads: ["X", "exclude-from", "files0-from"],
    lists: ["files0-from"],
    reason: "du only measures",
    examples: ["du -sh .", "du -h --max-depth=1 src"],
    nearMisses: ["du -o x"],
  },
  {
    names: ["df"],
    short: "aB:hHiklPt:TvxX:",
    long: ["all", "block-size=", "human-readable", "si", "inodes", "local", "no-sync", "output=?", "portability", "print-type", "sync", "total", "type=", "exclude-type=", ...HV],
    reason: "df only reports",
    examples: ["df -h", "df -T /"],
    nearMisses: ["df -o x"],
  },
  {
    names: ["basename"],
    short: "as:z",
    long: ["multiple", "suffix=", "zero", ...HV],
    operands: ["text"],
    reason: "basename only prints names",
    examples: ["basename /a/b.c .c", "basename -s .ts a.ts"],
    nearMisses: ["basename -o x"],
  },
  {
    names: ["dirname"],
    short: "z",
    long: ["zero", ...HV],
    operands: ["text"],
    reason: "dirname only prints names",
    examples: ["dirname /a/b"],
    nearMisses: ["dirname -o x"],
  },
  {
    names: ["realpath"],
    short: "eLmPqsz",
    long: ["relative-to=", "relative-base=", "canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "strip", "no-symlinks", "zero", ...HV],
    reason: "realpath only prints names",
    examples: ["realpath x", "realpath --relative-to=. /tmp"],
    nearMisses: ["realpath -o x"],
  },
  {
    names: ["readlink"],
    short: "efmnqsvz",
    long: ["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero", ...HV],
    reason: "readlink only prints names",
    examples: ["readlink -f x"],
    nearMisses: ["readlink -o x"],
  },
  {
    names: ["nl"],
    short: "b:d:f:h:i:l:n:ps:v:w:",
    long: ["body-numbering=", "section-delimiter=", "footer-numbering=", "header-numbering=", "line-increment=", "join-blank-lines=", "number-format=", "no-renumber", "number-separator=", "starting-line-number=", "number-width=", ...HV],
    reason: "nl only numbers lines",
    examples: ["nl x", "nl -ba x"],
    nearMisses: ["nl -o x"],
  },
  {
    names: ["tac"],
    short: "brs:",
    long: ["before", "regex", "separator=", ...HV],
    reason: "tac only reads",
    examples: ["tac x"],
    nearMisses: ["tac -o x"],
  },
  {
    names: ["rev"],
    short: "0hV",
    long: ["zero", ...HV],
    reason: "rev only reads",
    examples: ["rev x"],
    nearMisses: ["rev -o x"],
  },
  {
    names: ["paste"],
    short: "d:sz",
    long: ["delimiters=", "serial", "zero-terminated", ...HV],
    reason: "paste only reads",
    examples: ["paste -sd, x", "paste a b"],
    nearMisses: ["paste -o x"],
  },
  {
    names: ["column"],
    short: "c:d:eE:H:i:JlL:nN:o:O:p:r:R:s:tT:W:xhV",
    long: [
      "columns=", "table", "table-columns=", "table-columns-limit=", "table-order=", "table-name=", "table-right=", "table-truncate=",
      "table-noextreme=", "table-noheadings", "table-header-as-columns", "table-wrap=", "table-hide=", "json", "output-separator=",
      "separator=", "fillrows", "keep-empty-lines", "tree=", "tree-id=", "tree-parent=", "use-spaces=", "output-width=", ...HV,
    ],
    reason: "column only formats",
    examples: ["column -t x", "column -s, -t x"],
    nearMisses: ["column -Z x"],
  },
  {
    names: ["fold"],
    short: "bsw:",
    long: ["bytes", "spaces", "width=", ...HV],
    numeric: true,
    reason: "fold only formats",
    examples: ["fold -w 80 x", "fold -80 x"],
    nearMisses: ["fold -o x"],
  },
  {
    names: ["expand", "unexpand"],
    short: "ait:",
    long: ["initial", "all", "first-only", "tabs=", ...HV],
    numeric: true,
    reason: "expand and unexpand only format",
    examples: ["expand -t 4 x"],
    nearMisses: ["expand -o x"],
  },
  {
    names: ["od"],
    short: "A:j:N:S:t:vw::abcdfilosxBDeFHILOX",
    long: ["address-radix=", "skip-bytes=", "read-bytes=", "strings=?", "format=", "output-duplicates", "width=?", "endian=", "traditional", ...HV],
    reason: "od only dumps",
    examples: ["od -c x", "od -An -tx1 x"],
    nearMisses: ["od -Z x"],
  },
  {
    names: ["hexdump"],
    short: "bcCde:f:n:s:vxL::",
    long: ["one-byte-octal", "one-byte-hex", "one-byte-char", "canonical", "two-bytes-decimal", "format=", "format-file=", "length=", "skip=", "no-squeezing", "two-bytes-octal", "two-bytes-hex", "color=?", ...HV],
    reads: ["f", "format-file"],
    reason: "hexdump only dumps",
    examples: ["hexdump -C x"],
    nearMisses: ["hexdump -Z x"],
  },
  {
    names: ["strings"],
    short: "adfn:t:e:owT:s:U:hvV",
    long: ["all", "data", "print-file-name", "bytes=", "radix=", "encoding=", "target=", "include-all-whitespace", "output-separator=", "unicode=", ...HV],
    numeric: true,
    reason: "strings only reads",
    examples: ["strings -n 8 x"],
    nearMisses: ["strings -Z x"],
  },
  {
    names: ["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"],
    short: "bctwzl:",
    long: ["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "length=", ...HV],
    reason: "a checksum only reads",
    examples: ["md5sum x", "sha256sum -c sums"],
    nearMisses: ["md5sum -o x"],
  },
  {
    names: ["cksum", "sum"],
    short: "a:l:rsz",
    long: ["algorithm=", "base64", "check", "debug", "length=", "raw", "tag", "untagged", "zero", "sysv", ...HV],
    reason: "a checksum only reads",
    examples: ["cksum x"],
    nearMisses: ["cksum -o x"],
  },
  {
    names: ["base64", "base32"],
    short: "diw:",
    long: ["decode", "ignore-garbage", "wrap=", ...HV],
    reason: "base64 only encodes to its output",
    examples: ["base64 x", "base64 -d x"],
    nearMisses: ["base64 -o x"],
  },
  {
    names: ["seq"],
    short: "f:s:w",
    long: ["format=", "separator=", "equal-width", ...HV],
    numeric: true,
    operands: ["text"],
    reason: "seq only prints numbers",
    examples: ["seq 10", "seq -w 1 10", "seq -5 5"],
    nearMisses: ["seq -o 3"],
  },
  {
    names: ["sleep", "arch", "whoami", "nproc", "logname"],
    short: "",
    long: ["all", "ignore=", ...HV],
    operands: ["text"],
    reason: "prints or waits, nothing else",
    examples: ["sleep 1", "whoami", "nproc --all", "arch"],
    nearMisses: ["sleep -x 1"],
  },
  {
    names: ["uname"],
    short: "asnrvmpio",
    long: ["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor", "hardware-platform", "operating-system", ...HV],
    operands: [],
    reason: "uname only prints system information",
    examples: ["uname -a", "uname -sr"],
    nearMisses: ["uname -x"],
  },
  {
    names: ["id"],
    short: "agGnruzZ",
    long: ["context", "group", "groups", "name", "real", "user", "zero", ...HV],
    operands: ["text"],
    reason: "id only prints",
    examples: ["id -u", "id -gn"],
    nearMisses: ["id -x"],
  },
  {
    names: ["groups", "users"],
    short: "",
    long: HV,
    operands: ["text"],
    reason: "prints names",
    examples: ["groups", "groups root"],
    nearMisses: ["groups -x"],
  },
  {
    names: ["free"],
    short: "bkmgthlLvws:c:",
    long: ["bytes", "kilo", "mega", "giga", "tera", "peta", "kibi", "mebi", "gibi", "tebi", "pebi", "human", "si", "lohi", "line", "total", "seconds=", "count=", "wide", "committed", ...HV],
    operands: [],
    reason: "free only reports",
    examples: ["free -h"],
    nearMisses: ["free -x"],
  },
  {
    names: ["uptime"],
    short: "pshV",
    long: ["pretty", "since", "container", "raw", ...HV],
    operands: [],
    reason: "uptime only reports",
    examples: ["uptime", "uptime -p"],
    nearMisses: ["uptime -x"],
  },
  {
    names: ["ps"],
    short: "",
    long: [],
    anyArguments: true,
    // pids, users, terminals and formats: never a file it reads
    operands: ["text"],
    reason: "ps has no option that writes a file or runs a program",
    examples: ["ps aux", "ps -ef | grep node"],
    nearMisses: [],
  },
  {
    names: ["tty"],
    short: "s",
    long: ["silent", "quiet", ...HV],
    operands: [],
    reason: "tty only prints",
    examples: ["tty"],
    nearMisses: ["tty -x"],
  },
  {
    names: ["locale"],
    short: "amckv",
    long: ["all-locales", "charmaps", "category-name", "keyword-name", "verbose", ...HV],
    operands: ["text"],
    reason: "locale only prints",
    examples: ["locale", "locale -a"],
    nearMisses: ["locale -x"],
  },
  {
    names: ["hostname", "dnsdomainname", "domainname"],
    short: "aAdfiIsyvV",
    long: ["alias", "all-ip-addresses", "domain", "fqdn", "long", "ip-address", "all-fqdns", "short", "yp", "nis", "verbose", ...HV],
    // `hostname NAME` and `hostname -F FILE` set the host name.
    operands: [],
    check: (p) => (p.operands.length ? "hostname with an operand sets the host name" : null),
    reason: "hostname without an operand only prints",
    examples: ["hostname", "hostname -I"],
    nearMisses: ["hostname box", "hostname -F /etc/x"],
  },
  {
    names: ["date"],
    short: "d:f:I::r:RuU",
    long: ["date=", "debug", "file=", "iso-8601=?", "resolution", "rfc-email", "rfc-3339=", "reference=", "utc", "universal", ...HV],
    operands: ["text"],
    reads: ["f", "file", "r", "reference"],
    unlisted: ["set"],
    // `date MMDDhhmm` sets the clock, as does -s, which is not listed.
    check: (p) => (p.operands.some((w) => !w.value.startsWith("+")) ? "date with an operand that is not +FORMAT sets the clock" : null),
    reason: "date only prints the time",
    examples: ["date", "date +%s", "date -d yesterday +%F", "date --iso=seconds"],
    nearMisses: ["date -s 10:00", "date 010100002030", "date --set=x"],
  },
  {
    names: ["tree"],
    short: TREE_SHORT,
    long: TREE_LONG,
    writes: ["o"],
    reads: ["gitfile", "infofile", "hintro", "houtro"],
    parse: parseTree,
    reason: "tree only lists; its -o output is judged as a write",
    examples: ["tree -L 2", "tree -a src", "tree -o out.txt", "tree -Lo 1 out.txt .", "tree --charset=ascii -d", "tree src -L 2"],
    nearMisses: ["tree -o /etc/x", "tree --exec x", "tree -ox /etc/x", "tree -Lo 1 /etc/x .", "tree -oL /etc/x 1 .", "tree -R -H . -L 1", "tree --out=x"],
  },
  {
    names: ["mkdir"],
    short: "m:pvZ",
    long: ["mode=", "parents", "verbose", "context=?", ...HV],
    operands: ["write"],
    reason: "mkdir creates directories where layer 2 allows writes",
    examples: ["mkdir -p src/lib", "mkdir --par a/b"],
    nearMisses: ["mkdir /opt/app", "mkdir -x a"],
  },
  {
    names: ["touch"],
    short: "acd:fhmr:t:",
    long: ["no-create", "date=", "no-dereference", "reference=", "time=", ...HV],
    operands: ["write"],
    reads: ["r", "reference"],
    reason: "touch creates files where layer 2 allows writes",
    examples: ["touch x", "touch -d yesterday x"],
    nearMisses: ["touch /etc/x", "touch -x a"],
  },
  {
    names: ["tee"],
    short: "aip",
    long: ["append", "ignore-interrupts", "output-error=?", ...HV],
    operands: ["write"],
    reason: "tee writes its operands where layer 2 allows writes",
    examples: ["echo x | tee out.txt", "tee -a log < x"],
    nearMisses: ["tee /etc/motd < x", "tee -x a"],
  },
  {
    names: ["xxd"],
    short: "",
    long: [],
    operands: ["read", "write"],
    // xxd does not parse like getopt: `-ps` and `-cols` are single words, and options end at the first operand
    // (`xxd in -d` writes a file named -d). Its own table, with the second operand written.
    parse(args) {
      const words = /^-(?:a|autoskip|b|bits|C|capitalize|E|EBCDIC|e|h|help|i|include|p|ps|postscript|plain|r|revert|d|u|v|version)$/;
      const valued = /^-(?:c|cols|g|groupsize|l|len|n|name|o|offset|s|seek|R)(.*)$/;
      const operands = [];
      const opts = [];
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!;
        if (w.value === "--") {
          operands.push(...args.slice(i + 1));
          break;
        }
        if (!w.value.startsWith("-") || w.value === "-") {
          operands.push(...args.slice(i));
          break;
        } else if (words.test(w.value)) opts.push({ name: w.value, value: null, word: w });
        else {
          const m = valued.exec(w.value);
          if (!m) return { ok: false, unknown: w.raw };
          if (!m[1] && i + 1 >= args.length) return { ok: false, unknown: w.raw };
          opts.push({ name: w.value, value: m[1] ? w : args[++i]!, word: w });
        }
      }
      return { ok: true, opts, operands };
    },
    reason: "xxd dumps; its second operand is its output, judged as a write",
    examples: ["xxd x", "xxd -ps x", "xxd -l 16 x", "xxd x out.hex", "xxd x -d"],
    nearMisses: ["xxd x /etc/out", "xxd -Z x", "cd /etc; xxd x -d", "xxd x -r /etc/y"],
  },
];
