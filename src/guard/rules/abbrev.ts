// GNU getopt_long accepts any unambiguous prefix of a long option: `rm --no-pres /` is
// `rm --no-preserve-root /`, `chmod --recur` is `--recursive`. Before the rules look at a command's
// options, the long ones of programs whose options matter to layers 1 and 2 are spelled out in full.
// (A full option-spec parser for layer 3 lives elsewhere; this is only the prefix rule.)

import type { Word } from "../facts.ts";

/** Long options of the programs whose spelling layers 1 and 2 care about (from each program's --help). */
export const LONG_OPTIONS: Record<string, readonly string[]> = {
  rm: ["dir", "force", "help", "interactive", "no-preserve-root", "one-file-system", "preserve-root", "recursive", "verbose", "version"],
  chmod: ["changes", "help", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"],
  chown: ["changes", "dereference", "from", "help", "no-dereference", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"],
  chgrp: ["changes", "dereference", "help", "no-dereference", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"],
  shred: ["exact", "force", "help", "iterations", "random-source", "remove", "size", "verbose", "version", "zero"],
  cp: ["archive", "attributes-only", "backup", "copy-contents", "debug", "dereference", "force", "help", "interactive", "link", "no-clobber", "no-dereference", "no-preserve", "no-target-directory", "one-file-system", "parents", "preserve", "recursive", "reflink", "remove-destination", "sparse", "strip-trailing-slashes", "suffix", "symbolic-link", "target-directory", "update", "verbose", "version", "context"],
  mv: ["backup", "debug", "exchange", "force", "help", "interactive", "no-clobber", "no-copy", "no-target-directory", "strip-trailing-slashes", "suffix", "target-directory", "update", "verbose", "version", "context"],
  ln: ["backup", "directory", "force", "help", "interactive", "logical", "no-dereference", "no-target-directory", "physical", "relative", "suffix", "symbolic", "target-directory", "verbose", "version"],
  install: ["backup", "compare", "debug", "directory", "group", "help", "mode", "owner", "preserve-context", "preserve-timestamps", "strip", "strip-program", "suffix", "target-directory", "no-target-directory", "verbose", "version", "context"],
  sort: ["batch-size", "buffer-size", "check", "compress-program", "debug", "dictionary-order", "field-separator", "files0-from", "general-numeric-sort", "help", "human-numeric-sort", "ignore-case", "ignore-leading-blanks", "ignore-nonprinting", "key", "merge", "month-sort", "numeric-sort", "output", "parallel", "random-sort", "random-source", "reverse", "sort", "stable", "temporary-directory", "unique", "version", "version-sort", "zero-terminated"],
  sed: ["debug", "expression", "file", "follow-symlinks", "help", "in-place", "line-length", "null-data", "posix", "quiet", "regexp-extended", "sandbox", "separate", "silent", "unbuffered", "version", "zero-terminated"],
  tar: ["append", "catenate", "checkpoint", "checkpoint-action", "compress", "concatenate", "create", "delete", "diff", "directory", "exclude", "extract", "file", "get", "gunzip", "gzip", "info-script", "list", "new-volume-script", "remove-files", "rsh-command", "to-command", "transform", "update", "use-compress-program", "verbose", "xz", "bzip2", "zstd", "keep-old-files", "overwrite", "owner", "group", "mode"],
  pkill: ["cgroup", "count", "echo", "euid", "exact", "full", "group", "help", "ignore-ancestors", "ignore-case", "inverse", "logpidfile", "newest", "ns", "nslist", "older", "oldest", "parent", "pgroup", "pidfile", "queue", "runstates", "session", "signal", "terminal", "uid", "version"],
  mdadm: ["zero-superblock", "create", "build", "grow", "assemble", "detail", "examine", "query", "monitor", "manage", "misc", "stop", "run", "readonly", "readwrite", "remove", "fail", "add", "re-add", "scan", "verbose", "help", "version", "force", "wait"],
  "git clean": ["dry-run", "exclude", "force", "interactive", "quiet"],
  // Programs that carry a command line in an option (src/guard/embedded.ts) or wrap one (wrappers.ts):
  // `script --com CMD` is `script --command CMD`, `man --pag CMD` is `man --pager CMD`.
  script: ["append", "command", "echo", "flush", "force", "help", "log-in", "log-io", "log-out", "log-timing", "logging-format", "output-limit", "quiet", "return", "timing", "version"],
  su: ["command", "fast", "group", "help", "login", "preserve-environment", "pty", "session-command", "shell", "supp-group", "version", "whitelist-environment"],
  runuser: ["command", "fast", "group", "help", "login", "preserve-environment", "pty", "session-command", "shell", "supp-group", "user", "version", "whitelist-environment"],
  man: [
    "all", "apropos", "ascii", "catman", "config-file", "debug", "default", "ditroff", "encoding", "extension", "global-apropos", "gxditview", "help", "html",
    "ignore-case", "local-file", "locale", "location", "location-cat", "manpath", "match-case", "names-only", "nh", "nj", "no-hyphenation", "no-justification",
    "no-subpages", "pager", "path", "preprocessor", "prompt", "recode", "regex", "sections", "systems", "troff", "troff-device", "update", "usage", "version",
    "warnings", "whatis", "where", "where-cat", "wildcard",
  ],
  git: ["bare", "config-env", "exec-path", "git-dir", "glob-pathspecs", "help", "html-path", "icase-pathspecs", "info-path", "list-cmds", "literal-pathspecs", "man-path", "namespace", "no-optional-locks", "no-pager", "no-replace-objects", "noglob-pathspecs", "paginate", "super-prefix", "version", "work-tree", "attr-source"],
};

/** The full name of long option `given` (without `--`) among `names`, or null when unknown or ambiguous. */
export function expandLong(given: string, names: readonly string[]): string | null {
  if (names.includes(given)) return given;
  let found: string | null = null;
  for (const n of names) {
    if (!n.startsWith(given)) continue;
    if (found !== null) return null; // ambiguous: getopt_long refuses it
    found = n;
  }
  return found;
}

/** `--no-pres=x` → `--no-preserve-root=x` when the prefix is unique among `names`; other words as they are. */
export function spellOut(words: readonly Word[], names: readonly string[]): Word[] {
  let out: Word[] | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (v === "--") break;
    if (!v.startsWith("--") || v.length < 3) continue;
    const eq = v.indexOf("=");
    const given = eq > 0 ? v.slice(2, eq) : v.slice(2);
    const full = expandLong(given, names);
    if (full === null || full === given) continue;
    out ??= words.slice();
    out[i] = { ...w, value: "--" + full + (eq > 0 ? v.slice(eq) : "") };
  }
  return out ?? (words as Word[]);
}
