// Option specs of sed and ripgrep: programs that are read-only with most options and run code or write
// files with a few (sed's `e` and `w`, rg's --pre and --search-zip).

import { DYN, type Word } from "../facts.ts";
import { parseSed } from "../sed.ts";
import type { Parsed } from "./getopt.ts";
import type { ProgramSpec } from "./spec.ts";

type Ok = Extract<Parsed, { ok: true }>;

function literalWord(value: string): Word {
  return { raw: value, value, dynamic: value.includes(DYN), glob: false };
}

const SED_SCRIPT = ["e", "expression"];
const SED_FILE = ["f", "file"];
const IN_PLACE = ["i", "in-place"];

/** sed's script: the -e values joined by newlines (as GNU sed joins them), or the first operand. */
function sedScript(p: Ok): { script: Word | null; files: Word[] } {
  const given = p.opts.filter((o) => SED_SCRIPT.includes(o.name)).map((o) => o.value!);
  if (given.length || p.opts.some((o) => SED_FILE.includes(o.name))) {
    const value = given.map((w) => w.value).join("\n");
    return { script: given.length ? { raw: given.map((w) => w.raw).join(" "), value, dynamic: given.some((w) => w.dynamic), glob: false } : null, files: p.operands };
  }
  return { script: p.operands[0] ?? null, files: p.operands.slice(1) };
}

/** The backup suffixes of sed's -i options (`-i.bak`, `--in-place=.bak`). */
function backupSuffixes(p: Ok): Word[] {
  return p.opts.filter((o) => IN_PLACE.includes(o.name) && o.value !== null && o.value.value !== "").map((o) => o.value!);
}

/**
 * The backups `sed -iSUFFIX` writes: FILE + SUFFIX beside each file (`sed -irc s/^// .bash` copies .bash to .bashrc,
 * run by the next interactive bash). A suffix with `/` or `*` asks in the row's check.
 */
function backups(p: Ok, files: readonly Word[]): Word[] {
  return backupSuffixes(p).flatMap((s) => files.map((f) => ({ raw: f.raw + s.raw, value: f.value + s.value, dynamic: f.dynamic || s.dynamic, glob: f.glob || s.glob })));
}

export const SED: ProgramSpec = {
  names: ["sed", "gsed"],
  short: "nre:f:l:i::Esuz",
  long: [
    "quiet", "silent", "debug", "expression=", "file=", "follow-symlinks", "in-place=?", "line-length=", "posix", "regexp-extended",
    "separate", "sandbox", "unbuffered", "null-data", "zero-terminated", "help", "version",
  ],
  operands: ["text", "read"],
  riskyOptions: true,
  check(p) {
    if (p.opts.some((o) => SED_FILE.includes(o.name))) return "sed reads its script from a file the guard does not see";
    const { script } = sedScript(p);
    if (!script) return "sed without a script";
    if (script.dynamic) return "the sed script is not known before it runs";
    // GNU sed puts a backup whose suffix holds a `/` (or a `*`, the file's name) in another directory. Every -i is
    // judged (the last one wins: `sed -i -i'../*' …`), and a suffix the guard cannot see may be either.
    const place = backupSuffixes(p).find((w) => w.dynamic || /[/*]/.test(w.value));
    if (place) return `the backup suffix ${place.raw} of -i may name another place`;
    const parsed = parseSed(script.value);
    if (!parsed.ok) return `the sed script does not parse (${parsed.error})`;
    return parsed.script.runs;
  },
  files(p) {
    const { script, files } = sedScript(p);
    const parsed = script && !script.dynamic ? parseSed(script.value) : null;
    const named = parsed?.ok ? parsed.script : { writes: [], reads: [] };
    const inPlace = p.opts.some((o) => IN_PLACE.includes(o.name));
    return {
      writes: [...(inPlace ? [...files, ...backups(p, files)] : []), ...named.writes.map(literalWord)],
      reads: [...(inPlace ? [] : files), ...named.reads.map(literalWord)],
      operandsWritten: inPlace,
    };
  },
  reason: "sed whose script runs no command; its -i files and `w` files are judged as writes",
  examples: [
    "sed 's/hello/world/' f", "sed -n '/error/p' f", "sed -n 1,10p x", "sed -e 's/a/b/' -e 's/c/d/' f", "sed -i 's/a/b/' src/x.ts",
    "sed -E 's/(a|b)+/x/g' f", "sed ':a;N;$!ba;s/\\n/ /g' f", "sed '/^$/d' f", "sed 's/x/y/w out.txt' f", "sed '$a\\\nend' f", "sed -ne 's/a/b/p' f",
  ],
  nearMisses: [
    "sed '1e touch x' f", "sed 's|x|id|e' f", "sed --expression='1e id' f", "sed -e'1e id' f", "sed -ne '1e id' f", "sed 's/a/b/w /etc/x' f",
    "sed -f script.sed f", "sed -i s/a/b/ /etc/hosts", "sed --in-place=/etc/* s/a/b/ f", "sed -irc s/^// .bash", "sed -i -i'../*' s/a/b/ f", "sed 'w /etc/x' f", "sed --exp='1e id' f", "sed $S f", "find / | xargs sed -i s/a/b/",
  ],
};

export const RG: ProgramSpec = {
  names: ["rg"],
  short: "A:aB:bC:cd:E:e:Ff:g:HhiIj:LlM:m:NnoPpqr:SsT:t:uUvVwx0",
  long: [
    "after-context=", "before-context=", "context=", "text", "byte-offset", "count", "count-matches", "max-depth=", "maxdepth=", "encoding=",
    "regexp=", "fixed-strings", "file=", "glob=", "iglob=", "glob-case-insensitive", "with-filename", "no-filename", "ignore-case",
    "case-sensitive", "smart-case", "threads=", "follow", "files-with-matches", "files-without-match", "files", "max-columns=",
    "max-columns-preview", "max-count=", "no-line-number", "line-number", "only-matching", "pcre2", "engine=", "pretty", "quiet", "replace=",
    "type=", "type-not=", "type-add=", "type-clear=", "type-list", "unrestricted", "multiline", "multiline-dotall", "invert-match",
    "word-regexp", "line-regexp", "null", "null-data", "json", "column", "no-column", "heading", "no-heading", "hidden", "no-hidden",
    "no-ignore", "no-ignore-vcs", "no-ignore-dot", "no-ignore-global", "no-ignore-parent", "no-ignore-exclude", "no-ignore-files",
    "no-config", "ignore-file=", "ignore-file-case-insensitive", "sort=", "sortr=", "stats", "trim", "vimgrep", "color=", "colors=",
    "path-separator=", "passthru", "passthrough", "max-filesize=", "mmap", "no-mmap", "binary", "no-binary", "one-file-system",
    "no-messages", "no-require-git", "include-zero", "context-separator=", "field-context-separator=", "field-match-separator=",
    "no-unicode", "crlf", "auto-hybrid-regex", "no-pcre2-unicode", "debug", "trace", "line-buffered", "block-buffered",
    "dfa-size-limit=", "regex-size-limit=", "help", "version",
  ],
  unlisted: ["pre", "pre-glob", "search-zip", "hostname-bin"],
  operands: ["text", "read"],
  scriptOptions: ["e", "regexp", "f", "file"],
  reads: ["f", "file", "ignore-file"],
  riskyOptions: true,
  reason: "ripgrep without --pre or --search-zip (which run programs)",
  examples: ["rg TODO src", "rg -n -t ts 'foo\\(' .", "rg --files", "rg -e a -e b", "rg -uu x", "rg --no-config -S x"],
  nearMisses: ["rg --pre=sh x", "rg -z x", "rg --search-zip x", "rg --pre-glob '*' x", "rg --hostname-bin=x y", "rg --pr=sh x"],
};
