// git's read-only subcommands, each with the options it may take. Global options that point git at
// another repository or configuration (`-C`, `--git-dir`, `--work-tree`, `-c`, `--config-env`,
// `--exec-path`) are not listed: a hand-made repository's config can run any program (core.fsmonitor,
// core.pager, diff drivers). Options that write (`--output`) or run drivers (`--ext-diff`, `--textconv`,
// `--open-files-in-pager`) are left out too.

import type { Word } from "../facts.ts";
import { getopt, mayBeOption, mayBeSeveral, optionTable, type OptionTable, type Parsed } from "./getopt.ts";
import { filesListedIn, type ProgramSpec } from "./spec.ts";

const GLOBAL = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--version", "--help"]);

const DIFF = [
  "patch", "no-patch", "unified=", "raw", "patch-with-raw", "minimal", "patience", "histogram", "anchored=", "diff-algorithm=", "stat=?",
  "compact-summary", "numstat", "shortstat", "dirstat=?", "cumulative", "dirstat-by-file=?", "summary", "patch-with-stat", "name-only",
  "name-status", "submodule=?", "color=?", "no-color", "color-moved=?", "no-color-moved", "color-moved-ws=", "word-diff=?",
  "word-diff-regex=", "color-words=?", "no-renames", "rename-empty", "no-rename-empty", "check", "ws-error-highlight=", "full-index",
  "binary", "abbrev=?", "break-rewrites=?", "find-renames=?", "find-copies=?", "find-copies-harder", "irreversible-delete", "diff-filter=",
  "pickaxe-all", "pickaxe-regex", "relative=?", "no-relative", "text", "ignore-cr-at-eol", "ignore-space-at-eol", "ignore-space-change",
  "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "indent-heuristic", "no-indent-heuristic", "inter-hunk-context=",
  "function-context", "exit-code", "quiet", "no-ext-diff", "no-textconv", "ignore-submodules=?", "src-prefix=", "dst-prefix=", "no-prefix",
  "default-prefix", "line-prefix=", "ita-invisible-in-index", "ita-visible-in-index",
];
const DIFF_UNLISTED = ["output", "ext-diff", "textconv", "output-indicator-new", "output-indicator-old", "output-indicator-context"];
const DIFF_SHORT = "psuU:zM::C::B::DlS:G:O:RabwWX::";

const REVS = [
  "max-count=", "skip=", "since=", "after=", "until=", "before=", "author=", "committer=", "grep=", "grep-reflog=", "all-match",
  "invert-grep", "regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings", "perl-regexp", "remove-empty", "merges",
  "no-merges", "min-parents=", "max-parents=", "no-min-parents", "no-max-parents", "first-parent", "not", "all", "branches=?", "tags=?",
  "remotes=?", "glob=", "exclude=", "reflog", "walk-reflogs", "ignore-missing", "bisect", "cherry-mark", "cherry-pick", "left-only",
  "right-only", "cherry", "merge", "boundary", "simplify-by-decoration", "full-history", "dense", "sparse", "simplify-merges",
  "ancestry-path=?", "show-pulls", "topo-order", "date-order", "author-date-order", "reverse", "no-walk=?", "do-walk", "follow",
  "pretty=?", "format=", "oneline", "abbrev-commit", "no-abbrev-commit", "encoding=", "expand-tabs=?", "no-expand-tabs", "notes=?",
  "no-notes", "show-signature", "relative-date", "date=", "parents", "children", "left-right", "graph", "show-linear-break=?", "decorate=?",
  "no-decorate", "decorate-refs=", "decorate-refs-exclude=", "source", "mailmap", "no-mailmap", "use-mailmap", "no-use-mailmap", "log-size",
  "count", "timestamp", "objects", "objects-edge", "no-object-names", "single-worktree", "first-parent-only", "clear-decorations",
];
const REVS_SHORT = "n:iEFPgL:zmcrt";

function table(short: string, long: string[], unlisted: string[] = DIFF_UNLISTED): OptionTable {
  return optionTable(short, long, true, unlisted);
}

/** `git reflog`'s verbs that change refs or logs (`show` and `list` only print). */
const REFLOG_VERBS = new Set(["expire", "delete", "drop", "exists", "write"]);

interface Sub {
  table: OptionTable;
  /** The word right after the subcommand must be one of these (`git stash list`: `git stash -q list` pushes). */
  verbs?: readonly string[];
  /** Why the words after the subcommand (or its verb) are not known safe before parsing, or null. */
  words?(after: readonly Word[]): string | null;
  check?(p: Extract<Parsed, { ok: true }>): string | null;
  /** Options whose value names a file git reads (`git grep -f FILE`, `git blame --contents FILE`), judged like any read. */
  reads?: readonly string[];
  /** Operands that name files git reads: `git diff A B` compares two files when one is outside the repository. */
  operandReads?(p: Extract<Parsed, { ok: true }>): Word[];
}

/** git config's read actions and the most operands each takes (`--get NAME [VALUE-PATTERN]`, `--list`). */
const CONFIG_READS: Record<string, number> = { get: 2, "get-all": 2, "get-regexp": 2, "get-urlmatch": 2, "get-color": 2, "get-colorbool": 2, l: 0, list: 0 };

/**
 * `git config`: reading a key (`--get`, `git config NAME`) or listing (`-l`, `git config list`), never setting. git
 * config reads options only up to its first operand (the table stops there): `git config core.x VALUE --get` is no read
 * but `git config core.x VALUE` with `--get` as its value pattern, a write of .git/config.
 */
function configReads(p: Extract<Parsed, { ok: true }>): string | null {
  const actions = p.opts.filter((o) => o.name in CONFIG_READS);
  if (actions.length) {
    const most = Math.min(...actions.map((o) => CONFIG_READS[o.name]!));
    return p.operands.length <= most ? null : `git config ${actions[0]!.word.raw} takes at most ${most} operand${most === 1 ? "" : "s"}: more may set a value`;
  }
  const [first, ...rest] = p.operands.map((w) => w.value);
  if (first === "list" && rest.length === 0) return null;
  // A key is section.name; `git config edit` (an editor) and `git config NAME VALUE` (a write) are not reads.
  if (first !== undefined && rest.length === 0 && first.includes(".")) return null;
  return "git config without --get or --list before its first operand may set a value";
}

const GREP_LONG = [
  "text", "no-textconv", "ignore-case", "max-depth=", "recursive", "no-recursive", "word-regexp", "invert-match", "full-name", "extended-regexp",
  "basic-regexp", "perl-regexp", "fixed-strings", "line-number", "column", "files-with-matches", "name-only", "files-without-match", "null",
  "only-matching", "count", "color=?", "no-color", "break", "heading", "show-function", "context=", "after-context=", "before-context=",
  "function-context", "max-count=", "threads=", "and", "or", "not", "all-match", "quiet", "cached", "untracked", "no-index", "exclude-standard",
  "no-exclude-standard", "recurse-submodules", "parent-basename=",
];

const LOG = table(REVS_SHORT + DIFF_SHORT, [...REVS, ...DIFF]);
/** The diff options' `-O ORDERFILE`. */
const DIFF_READS = ["O"];

const SUBCOMMANDS: Record<string, Sub> = {
  status: {
    table: table("sbuz::vl", ["short", "branch", "porcelain=?", "long", "verbose", "untracked-files=?", "ignore-submodules=?", "ignored=?", "column=?", "no-column", "ahead-behind", "no-ahead-behind", "renames", "no-renames", "find-renames=?", "show-stash", "null"]),
  },
  // `git diff A B` compares the two files when either is outside the repository (as --no-index does).
  diff: { table: table(DIFF_SHORT + "123", [...DIFF, "cached", "staged", "merge-base", "no-index", "base", "ours", "theirs"]), reads: DIFF_READS, operandReads: (p) => p.operands },
  log: { table: LOG, reads: DIFF_READS },
  show: { table: LOG, reads: DIFF_READS },
  shortlog: { table: table(REVS_SHORT + "nsew::c", [...REVS, "numbered", "summary", "email", "committer", "group=", "format="]) },
  "rev-list": { table: LOG, reads: DIFF_READS },
  "ls-files": {
    reads: ["X", "exclude-from"],
    table: table("cdmoiskuvftzx:X:", ["cached", "deleted", "modified", "others", "ignored", "stage", "killed", "unmerged", "directory", "no-empty-directory", "eol", "full-name", "recurse-submodules", "abbrev=?", "exclude=", "exclude-from=", "exclude-per-directory=", "exclude-standard", "error-unmatch", "with-tree=", "deduplicate", "format=", "sparse", "debug", "resolve-undo"]),
  },
  "ls-tree": { table: table("drtlz", ["name-only", "name-status", "object-only", "full-name", "full-tree", "abbrev=?", "long", "format="]) },
  "rev-parse": {
    table: table("q", [
      "abbrev-ref=?", "short=?", "verify", "quiet", "show-toplevel", "show-prefix", "show-cdup", "git-dir", "git-common-dir", "absolute-git-dir",
      "is-inside-git-dir", "is-inside-work-tree", "is-bare-repository", "is-shallow-repository", "symbolic", "symbolic-full-name", "all",
      "branches=?", "tags=?", "remotes=?", "glob=", "exclude=", "local-env-vars", "show-object-format=?", "show-ref-format", "default=",
      "prefix=", "since=", "until=", "after=", "before=", "revs-only", "no-revs", "flags", "no-flags", "sq", "not", "path-format=", "git-path",
    ]),
  },
  blame: {
    reads: ["S", "contents", "ignore-revs-file"],
    table: table("bL:lstfnpwecM::C::S:", ["root", "show-stats", "incremental", "line-porcelain", "porcelain", "show-name", "show-number", "show-email", "minimal", "reverse=", "first-parent", "encoding=", "contents=", "date=", "progress", "no-progress", "abbrev=?", "ignore-rev=", "ignore-revs-file=", "color-lines", "color-by-age", "score-debug"]),
  },
  describe: { table: table("", ["all", "tags", "contains", "abbrev=?", "candidates=", "exact-match", "debug", "long", "match=", "exclude=", "always", "first-parent", "dirty=?", "broken=?"]) },
  "show-ref": { table: table("qsd", ["head", "verify", "dereference", "hash=?", "abbrev=?", "tags", "heads", "branches", "quiet", "exclude-existing=?", "exists"]) },
  "cat-file": { table: table("tspe", ["textconv-off", "allow-unknown-type", "use-mailmap", "no-use-mailmap"], ["textconv", "filters", "batch-command"]) },
  branch: {
    table: table("arvlq", ["list", "all", "remotes", "verbose", "format=", "sort=", "contains=?", "no-contains=?", "merged=?", "no-merged=?", "points-at=", "column=?", "no-column", "color=?", "no-color", "ignore-case", "show-current", "abbrev=?", "omit-empty", "quiet"]),
    // Listing only: an operand names a branch to create unless --list turns it into a pattern.
    check: (p) => (p.operands.length && !p.opts.some((o) => o.name === "l" || o.name === "list") ? "git branch NAME creates a branch" : null),
  },
  tag: {
    table: table("ln::", ["list", "sort=", "contains=?", "no-contains=?", "merged=?", "no-merged=?", "points-at=", "column=?", "no-column", "format=", "ignore-case", "color=?", "omit-empty"]),
    check: (p) => (p.operands.length && !p.opts.some((o) => o.name === "l" || o.name === "list") ? "git tag NAME creates a tag" : null),
  },
  remote: {
    table: table("v", ["verbose"]),
    check: (p) => (p.operands.length ? "git remote with a subcommand changes or reaches remotes" : null),
  },
  // `git reflog [show] [log options]` is git log -g; its other verbs (expire, delete, …) change refs.
  // The word right after `reflog` must be an option: any other may be a verb. Newer git looks for its verb past
  // options it does not know (`git reflog --grep expire`), so no word may be one, or one the guard cannot see.
  reflog: {
    table: LOG,
    reads: DIFF_READS,
    words: (after) => {
      const verb = after.find((w, i) => (i === 0 && !w.value.startsWith("-")) || w.dynamic || w.glob || REFLOG_VERBS.has(w.value));
      return verb ? `git reflog ${verb.raw} may be a verb that changes the repository (options first, or \`git reflog show\`)` : null;
    },
  },
  "reflog show": { table: LOG, reads: DIFF_READS },
  "merge-base": { table: table("a", ["all", "octopus", "independent", "is-ancestor", "fork-point"]) },
  // Its %(…) atoms only format what the refs hold; --shell/--perl/--python/--tcl only quote for that language.
  "for-each-ref": {
    table: table("s", ["count=", "sort=", "format=", "color=?", "shell", "perl", "python", "tcl", "points-at=", "merged=?", "no-merged=?", "contains=?", "no-contains=?", "ignore-case", "omit-empty", "exclude="]),
  },
  "count-objects": { table: table("vH", ["verbose", "human-readable"]) },
  "check-ignore": { table: table("qvnz", ["quiet", "verbose", "stdin", "non-matching", "no-index"]) },
  // `git notes` alone lists; its other verbs add, edit, copy, merge or remove notes.
  notes: { table: table("", []), verbs: ["list", "show"] },
  // `git remote get-url NAME` only prints what the configuration says: no network.
  "remote get-url": { table: table("", ["push", "all"]) },
  // log's options (no --output); `git stash` alone, or with any other verb, changes the work tree.
  stash: { table: LOG, reads: DIFF_READS, verbs: ["list", "show"] },
  worktree: { table: table("vz", ["porcelain", "verbose", "expire=", "z"]), verbs: ["list"] },
  submodule: { table: table("", ["cached", "recursive"]), verbs: ["status"] },
  config: {
    table: optionTable("lzf:", [
      "get", "get-all", "get-regexp", "get-urlmatch", "get-color", "get-colorbool", "list", "show-origin", "show-scope", "name-only", "null", "type=",
      "bool", "int", "bool-or-int", "path", "expiry-date", "default=", "global", "system", "local", "worktree", "file=", "blob=", "includes", "no-includes",
    ], false, ["add", "unset", "unset-all", "replace-all", "rename-section", "remove-section", "edit", "comment", "fixed-value", "value"], true),
    check: configReads,
    reads: ["f", "file"],
    // With a file (`-f cfg`, `--blob HEAD:cfg`) --includes also reads every file its include.path names.
    operandReads: (p) => {
      const file = p.opts.find((o) => o.name === "f" || o.name === "file" || o.name === "blob");
      const last = p.opts.filter((o) => o.name === "includes" || o.name === "no-includes").pop();
      return file?.value && last?.name === "includes" ? [filesListedIn(file.value)] : [];
    },
  },
  // -O/--open-files-in-pager runs a program and --textconv runs drivers: not listed.
  // Its pathspecs name files it reads (with --no-index, anywhere); the first operand is the pattern unless -e or -f gave one.
  grep: {
    table: table("aiIrwvhHEGPFnlLzocpWqA:B:C:m:e:f:", GREP_LONG, ["open-files-in-pager", "textconv"]),
    reads: ["f"],
    operandReads: (p) => (p.opts.some((o) => o.name === "e" || o.name === "f") ? p.operands : p.operands.slice(1)),
  },
};

/** Why `git ARGS` is not known safe, or null. */
export function gitUnsafe(args: readonly Word[]): string | null {
  return gitParse(args).unsafe;
}

/** The files `git ARGS` reads that its options or operands name (`git grep -f FILE`, `git diff --no-index A B`). */
export function gitReads(args: readonly Word[]): Word[] {
  return gitParse(args).reads;
}

function gitParse(args: readonly Word[]): { unsafe: string | null; reads: Word[] } {
  const unsafe = (why: string) => ({ unsafe: why, reads: [] });
  let i = 0;
  while (i < args.length && args[i]!.value.startsWith("-")) {
    if (!GLOBAL.has(args[i]!.value)) return unsafe(`the git option ${args[i]!.raw} is not one the guard knows to be safe`);
    i++;
  }
  const sub = args[i];
  // git's options end at the first --help or --version, which becomes the command: `git --help SUB` is `git help SUB`,
  // `git --help --help` is `git help --help` (man git-help), `git --version --help` is `git version --help`. They run
  // man (or a browser), and man-db runs the programs ~/.manpath names. `git --help` alone prints the usage.
  const stop = args.findIndex((w, k) => k < i && (w.value === "--help" || w.value === "--version"));
  if (stop >= 0 && stop < args.length - 1) return unsafe(`git ${args[stop]!.value} followed by more words runs \`git ${args[stop]!.value.slice(2)} …\`, which may run man to show a manual page; the guard does not allow that by itself`);
  if (!sub) return { unsafe: null, reads: [] }; // `git` alone, `git --version`
  const verb = args[i + 1];
  const spec = (verb && SUBCOMMANDS[`${sub.value} ${verb.value}`]) || SUBCOMMANDS[sub.value];
  if (!spec || sub.dynamic) return unsafe(`git ${sub.raw} is not a read-only subcommand the guard knows`);
  const named = spec !== SUBCOMMANDS[sub.value];
  if (spec.verbs && !(verb && !verb.dynamic && spec.verbs.includes(verb.value))) return unsafe(`git ${sub.value} without ${spec.verbs.join(" or ")} right after it changes the repository`);
  // Options end at `--` or at `--end-of-options` (after it a word is a revision even when it starts with `-`), except
  // in `git stash list`: it drops both and hands every other word to `git log` as options (git 2.39 runs
  // `git log --format=… -g --first-parent ARGS refs/stash --`), so `git stash list -- --output=F` writes F.
  const after = args.slice(named || spec.verbs ? i + 2 : i + 1);
  const early = spec.words?.(after);
  if (early) return unsafe(early);
  const stashList = sub.value === "stash" && verb!.value === "list";
  const rest = stashList ? after.filter((w) => w.value !== "--" && w.value !== "--end-of-options") : after;
  const end = rest.findIndex((w) => w.value === "--" || w.value === "--end-of-options");
  const options = end < 0 ? rest : rest.slice(0, end);
  const p = getopt(end >= 0 && rest[end]!.value === "--end-of-options" ? [...options, { ...rest[end]!, value: "--" }, ...rest.slice(end + 1)] : rest, spec.table);
  if (!p.ok) return unsafe(`the option ${p.unknown} of git ${sub.value} is not one the guard knows to be safe`);
  // `git log $(cat o)` with o holding `--output=/var/tmp/x`, `git branch -l $X` with X=`-D main`. An option's own
  // value (`git grep -e "$X"`) stays its value unless it may split.
  const taken = (w: Word) => !w.glob && !mayBeSeveral(w) && p.opts.some((o) => o.value === w);
  const hidden = options.find((w) => mayBeOption(w) && !taken(w));
  if (hidden) return unsafe(`\`${hidden.raw}\` may turn into an option of git ${sub.value} the guard cannot see (${stashList ? "git stash list passes every word to git log as an option, `--` too" : "after `--end-of-options` or `--` it cannot"})`);
  const reads = p.opts.filter((o) => o.value && spec.reads?.includes(o.name)).map((o) => o.value!);
  return { unsafe: spec.check?.(p) ?? null, reads: [...reads, ...(spec.operandReads?.(p) ?? [])] };
}

export const GIT: ProgramSpec = {
  names: ["git"],
  short: "",
  long: [],
  anyArguments: true,
  operands: ["text"],
  check: (p) => gitUnsafe(p.operands),
  files: (p) => ({ writes: [], reads: gitReads(p.operands) }),
  reason: "read-only git: status, diff, log, show, branch and tag listings, ls-files, rev-parse, blame, grep, stash and worktree listings, config reads, …",
  examples: [
    "git status", "git log --oneline -5", "git diff --stat HEAD~1", "git show HEAD:README.md", "git branch -a", "git --no-pager log -p",
    "git rev-parse --show-toplevel", "git ls-files -z", "git remote -v", "git log --form=%H", "git tag -l 'v*'", "git log -- \"$f\"",
    "git log --end-of-options \"$REV\"", "git diff -- $(cat files)", "xargs git log -- < list", "git stash list", "git stash show -p",
    "git worktree list", "git config --get user.name", "git config -l", "git config user.email", "git config --global --list", "git grep -n foo",
    "git grep -e a --and -e b -- src", "git remote get-url origin", "git submodule status",
  ],
  nearMisses: [
    "git -c core.pager=id log", "git -C /tmp/evil status", "git --git-dir=/tmp/x/.git log", "git log --output=/etc/x", "git diff --ext-diff",
    "git log --outp=x", "git branch -D old", "git branch new", "git --config-env=core.pager=X log", "git diff --textconv", "git push",
    "git --work-tree=/ status", "git --exec-path=/tmp log", "git log $(cat o)", "read X < o; git show $X", "git diff --no-index $(cat o) a b",
    "git branch -l $X", "git log HEAD~$N", "xargs git log < list", "git stash", "git stash -q list", "git stash pop", "git stash list --output=/tmp/x",
    "git --help log", "git --version --help", "git worktree add x", "git config user.name x", "git config --unset user.name", "git config edit", "git config --add a.b c", "git grep -O foo",
    "git grep --open-files-in-pager=vi foo", "git grep --textconv foo", "git remote add x y", "git submodule update", "git config -e",
  ],
};
