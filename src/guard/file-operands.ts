// Which operands a program writes, reads or deletes, and whether it recurses: from the program's option spec
// row where it has one (options/), else from what is known here of rm, cp, mv, tar, rsync, curl, git's work
// tree and the tools that only read. Layer 2 judges these paths against the workspace.

import type { Word } from "./facts.ts";
import { judgeEffective } from "./options/index.ts";
import { gitSubcommand, literalWord, parseArgs } from "./argv.ts";
import { findRoots } from "./find-exec.ts";
import type { Effective } from "./wrappers.ts";

export interface FileOperands {
  writes: Word[];
  reads: Word[];
  /** The command deletes what it writes (rm, find -delete, …). */
  deletes: boolean;
  /** It recurses into directories (rm -r, chmod -R, …). */
  recursive: boolean;
}

const NONE: FileOperands = { writes: [], reads: [], deletes: false, recursive: false };

/** Tools that only read the operands they are given (after a pattern or script, where they take one). */
const READERS: Record<string, "all" | "after-first"> = {
  cat: "all", head: "all", tail: "all", less: "all", more: "all", wc: "all", nl: "all", tac: "all", rev: "all",
  diff: "all", cmp: "all", comm: "all", file: "all", stat: "all", du: "all", ls: "all", tree: "all", od: "all",
  xxd: "all", hexdump: "all", strings: "all", md5sum: "all", sha1sum: "all", sha256sum: "all", sha512sum: "all",
  cksum: "all", base64: "all", cut: "all", paste: "all", column: "all", fold: "all", readlink: "all", realpath: "all",
  sort: "all", uniq: "all", source: "all", ".": "all", cp: "all",
  grep: "after-first", egrep: "after-first", fgrep: "after-first", rg: "after-first", sed: "after-first",
  awk: "after-first", jq: "after-first",
};

export function fileOperands(eff: Effective): FileOperands {
  const name = eff.name;
  if (name === null) return NONE;
  // git's work tree elsewhere (-C, --work-tree) is written by the subcommands that write it, whatever the spec says.
  if (name === "git") {
    const tree = gitWrites(eff);
    if (tree !== NONE) return tree;
  }
  // A program with an option spec: its row says which options and operands are files it writes.
  const judged = judgeEffective(eff);
  if (judged?.parsed) return { writes: judged.writes, reads: judged.reads, deletes: false, recursive: false };
  const args = eff.argv.slice(1);
  switch (name) {
    case "rm": {
      const p = parseArgs(args);
      return { writes: p.operands, reads: [], deletes: true, recursive: p.flags.has("r") || p.flags.has("R") || p.flags.has("recursive") };
    }
    case "rmdir":
    case "unlink":
      return { writes: parseArgs(args).operands, reads: [], deletes: true, recursive: false };
    case "shred": {
      const p = parseArgs(args, "ns", ["iterations", "size", "random-source"]);
      return { writes: p.operands, reads: [], deletes: p.flags.has("u") || p.flags.has("remove"), recursive: false };
    }
    case "mkdir":
      return { writes: parseArgs(args, "m", ["mode", "context"]).operands, reads: [], deletes: false, recursive: false };
    case "touch":
      return { writes: parseArgs(args, "drt", ["date", "reference"]).operands, reads: [], deletes: false, recursive: false };
    case "truncate":
      return { writes: parseArgs(args, "sr", ["size", "reference"]).operands, reads: [], deletes: false, recursive: false };
    case "chmod":
    case "chown":
    case "chgrp": {
      const p = parseArgs(args);
      const hasRef = [...p.flags].some((f) => f === "reference");
      return { writes: hasRef ? p.operands : p.operands.slice(1), reads: [], deletes: false, recursive: p.flags.has("R") || p.flags.has("recursive") };
    }
    case "cp":
    case "install": {
      const p = parseArgs(args, "tSmogZ", ["target-directory", "suffix", "mode", "owner", "group", "context"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      if (name === "install" && p.flags.has("d")) return { writes: p.operands, reads: [], deletes: false, recursive: false };
      if (dir) return { writes: [dir], reads: p.operands, deletes: false, recursive: false };
      return { writes: p.operands.slice(-1), reads: p.operands.slice(0, -1), deletes: false, recursive: p.flags.has("r") || p.flags.has("R") || p.flags.has("a") };
    }
    case "mv": {
      // A move removes its sources: they count as written too.
      const p = parseArgs(args, "tS", ["target-directory", "suffix"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      return { writes: dir ? [dir, ...p.operands] : p.operands, reads: [], deletes: false, recursive: false };
    }
    case "ln": {
      const p = parseArgs(args, "tS", ["target-directory", "suffix"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      if (dir) return { writes: [dir], reads: [], deletes: false, recursive: false };
      return { writes: p.operands.length >= 2 ? p.operands.slice(-1) : [literalWord(".")], reads: [], deletes: false, recursive: false };
    }
    case "tee":
      return { writes: parseArgs(args, "", ["output-error"]).operands, reads: [], deletes: false, recursive: false };
    case "sed": {
      const p = parseArgs(args, "efl", ["expression", "file", "line-length"]);
      if (!p.flags.has("i") && !p.flags.has("in-place")) return { ...NONE, reads: p.values.has("e") || p.values.has("f") || p.values.has("expression") || p.values.has("file") ? p.operands : p.operands.slice(1) };
      const files = p.values.has("e") || p.values.has("f") || p.values.has("expression") || p.values.has("file") ? p.operands : p.operands.slice(1);
      return { writes: files, reads: [], deletes: false, recursive: false };
    }
    case "dd": {
      const writes: Word[] = [];
      const reads: Word[] = [];
      for (const w of args) {
        if (w.value.startsWith("of=")) writes.push({ ...w, value: w.value.slice(3) });
        if (w.value.startsWith("if=")) reads.push({ ...w, value: w.value.slice(3) });
      }
      return { writes, reads, deletes: false, recursive: false };
    }
    case "tar": {
      const p = parseArgs(tarArgs(args), "fCbHKLNTVX", ["file", "directory", "exclude", "transform", "owner", "group", "mode"]);
      const extract = p.flags.has("x") || p.flags.has("extract") || p.flags.has("get");
      const create = p.flags.has("c") || p.flags.has("create") || p.flags.has("r") || p.flags.has("u") || p.flags.has("append") || p.flags.has("update");
      const archive = p.values.get("f") ?? p.values.get("file");
      const dir = p.values.get("C") ?? p.values.get("directory");
      if (extract) return { writes: [dir ?? literalWord(".")], reads: archive ? [archive] : [], deletes: false, recursive: true };
      if (create) return { writes: archive && archive.value !== "-" ? [archive] : [], reads: p.operands, deletes: false, recursive: false };
      return { ...NONE, reads: archive ? [archive] : [] };
    }
    case "unzip": {
      const p = parseArgs(args, "dxP", []);
      return { writes: [p.values.get("d") ?? literalWord(".")], reads: p.operands.slice(0, 1), deletes: false, recursive: true };
    }
    case "curl": {
      const p = parseArgs(args, "oHdXuAeEFKrTwxzbcDmyYC", ["output", "output-dir", "header", "data", "data-raw", "data-binary", "request", "user", "user-agent", "referer", "form", "config", "upload-file", "write-out", "proxy", "cookie", "cookie-jar", "dump-header", "max-time", "retry"]);
      const writes: Word[] = [];
      const out = p.values.get("o") ?? p.values.get("output");
      if (out && out.value !== "-") writes.push(out);
      for (const k of ["c", "cookie-jar", "D", "dump-header"]) {
        const v = p.values.get(k);
        if (v && v.value !== "-") writes.push(v);
      }
      if (p.flags.has("O") || p.flags.has("remote-name")) writes.push(p.values.get("output-dir") ?? literalWord("."));
      return { writes, reads: [], deletes: false, recursive: false };
    }
    case "less": {
      // `less -o FILE` / `--log-file` copies what it shows into FILE (-O, --LOG-FILE: overwriting).
      const p = parseArgs(args, "oObhjkpPtTxyz#", ["log-file", "LOG-FILE", "tag", "tag-file", "pattern", "prompt", "tabs", "shift", "window"]);
      const writes = ["o", "O", "log-file", "LOG-FILE"].map((k) => p.values.get(k)).filter((w): w is Word => w !== undefined);
      return { writes, reads: p.operands, deletes: false, recursive: false };
    }
    case "rsync": {
      // The last operand is the destination (unless it is on another host, `host:path`); --delete removes in it.
      const p = parseArgs(args, "eBfTM", ["rsh", "rsync-path", "backup-dir", "temp-dir", "partial-dir", "compare-dest", "copy-dest", "link-dest", "filter", "exclude", "include", "exclude-from", "include-from", "files-from", "log-file", "write-batch", "only-write-batch", "read-batch", "password-file", "chmod", "chown", "usermap", "groupmap", "suffix", "max-size", "min-size", "timeout", "port", "address", "sockopts", "out-format", "info", "debug"]);
      const dest = p.operands.length >= 2 ? p.operands[p.operands.length - 1]! : null;
      const local = (w: Word) => !/^[^/]*:/.test(w.value);
      const writes = [dest, p.values.get("backup-dir"), p.values.get("log-file"), p.values.get("write-batch"), p.values.get("only-write-batch")].filter((w): w is Word => w !== undefined && w !== null && local(w));
      const sources = p.operands.slice(0, -1).filter(local);
      // `-n`/`--dry-run` and `--list-only` only show what would be copied.
      if (p.flags.has("n") || p.flags.has("dry-run") || p.flags.has("list-only")) return { ...NONE, reads: sources };
      const removes = p.flags.has("remove-source-files");
      return { writes: removes ? [...writes, ...sources] : writes, reads: sources, deletes: [...p.flags].some((f) => f.startsWith("delete")), recursive: true };
    }
    case "wget": {
      const p = parseArgs(args, "OPoaeUtTwiB", ["output-document", "directory-prefix", "output-file", "append-output", "execute", "user-agent", "tries", "timeout", "wait", "input-file", "base"]);
      const doc = p.values.get("O") ?? p.values.get("output-document");
      if (doc) return { writes: doc.value === "-" ? [] : [doc], reads: [], deletes: false, recursive: false };
      return { writes: [p.values.get("P") ?? p.values.get("directory-prefix") ?? literalWord(".")], reads: [], deletes: false, recursive: false };
    }
  }
  if (name === "git") return gitWrites(eff);
  if (name === "sudoedit") return { writes: parseArgs(args, "ugCDhprtTU", ["user", "group", "close-from", "chdir", "host", "prompt"]).operands, reads: [], deletes: false, recursive: false };
  if (name === "sort") {
    const p = parseArgs(args, "oktSTz", ["output", "key", "field-separator", "buffer-size", "temporary-directory"]);
    const out = p.values.get("o") ?? p.values.get("output");
    return { writes: out ? [out] : [], reads: p.operands, deletes: false, recursive: false };
  }
  if (name === "uniq") {
    const p = parseArgs(args, "fsw", ["skip-fields", "skip-chars", "check-chars"]);
    return { writes: p.operands.slice(1, 2), reads: p.operands.slice(0, 1), deletes: false, recursive: false };
  }
  if (name === "find") {
    const deletes = eff.argv.some((w) => w.value === "-delete");
    const writes = eff.argv.flatMap((w, i) => (/^-fprint0?$|^-fprintf$|^-fls$/.test(w.value) && eff.argv[i + 1] ? [eff.argv[i + 1]!] : []));
    return { writes: deletes ? [...findRoots(eff), ...writes] : writes, reads: findRoots(eff), deletes, recursive: deletes };
  }
  const kind = READERS[name];
  if (kind) {
    const short = name === "grep" || name === "egrep" || name === "fgrep" || name === "rg" ? "efmABCd" : name === "head" || name === "tail" ? "nc" : name === "cut" ? "bcdf" : name === "awk" ? "fvF" : "";
    const p = parseArgs(args, short, ["regexp", "file", "max-count", "lines", "bytes", "delimiter", "fields", "context", "after-context", "before-context"]);
    const explicitScript = p.values.has("e") || p.values.has("regexp") || (p.values.has("f") && name !== "cut");
    return { ...NONE, reads: kind === "after-first" && !explicitScript ? p.operands.slice(1) : p.operands };
  }
  return NONE;
}

/** Short options of GNU tar that take a value. */
const TAR_VALUED = "bCfFgHIKLNTVX";

/**
 * tar's arguments with an old-style first word spelled as options: in `tar xfC a.tar /` each letter that
 * takes a value takes the next word, in order (`-x -f a.tar -C /`), unlike `-xfC`, where C is f's value.
 */
export function tarArgs(args: readonly Word[]): Word[] {
  const first = args[0];
  if (!first || first.value.startsWith("-") || first.dynamic) return [...args];
  const out: Word[] = [];
  let next = 1;
  for (const c of first.value) {
    out.push({ ...first, value: "-" + c });
    if (TAR_VALUED.includes(c) && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

/** Git subcommands that write (or delete in) the work tree. */
const GIT_WORKTREE_WRITERS = new Set(["clean", "checkout", "switch", "restore", "reset", "stash", "merge", "pull", "rebase", "cherry-pick", "revert", "am", "apply", "rm", "mv", "init"]);

/**
 * Files a git subcommand writes by name (relative to where git runs): `--output FILE` (diff, log, show,
 * format-patch), `archive -o`, `format-patch -o DIR`, `bundle create FILE`, `worktree add DIR`,
 * `init DIR`, `clone REPO DIR`, `--separate-git-dir DIR`.
 */
function gitFiles(args: readonly Word[]): Word[] {
  const sub = args[0]?.value;
  const out: Word[] = [];
  const operands: Word[] = [];
  for (let i = 1; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    const long = /^--(out[a-z-]*|separate-git-dir)(?:=(.*))?$/s.exec(v);
    if (long && ("output-directory".startsWith(long[1]!) || long[1] === "separate-git-dir")) {
      const value = long[2] !== undefined ? { ...w, value: long[2] } : args[++i];
      if (value) out.push(value);
    } else if ((sub === "archive" || sub === "format-patch") && /^-o/.test(v)) {
      const value = v.length > 2 ? { ...w, value: v.slice(2) } : args[++i];
      if (value) out.push(value);
    } else if (!v.startsWith("-")) operands.push(w);
  }
  if (sub === "bundle" && operands[0]?.value === "create" && operands[1]) out.push(operands[1]);
  if (sub === "worktree" && operands[0]?.value === "add" && operands[1]) out.push(operands[1]);
  if (sub === "init" && operands[0]) out.push(operands[0]);
  if (sub === "clone" && operands[1]) out.push(operands[1]);
  return out;
}


/**
 * `git -C DIR` / `git --work-tree=DIR` with a subcommand that writes the work tree: DIR is written
 * (`git --work-tree=/ clean -fdx` deletes under /). Without either, git works in the workspace: nothing to add.
 */
function gitWrites(eff: Effective): FileOperands {
  const argv = eff.argv;
  const sub = gitSubcommand(argv);
  if (sub < 0) return NONE;
  const files = gitFiles(argv.slice(sub));
  if (!GIT_WORKTREE_WRITERS.has(argv[sub]!.value) && !files.length) return NONE;
  let dir: string | null = null;
  let tree: Word | null = null;
  let dynamic = false;
  for (let i = 1; i < sub; i++) {
    const v = argv[i]!.value;
    const next = argv[i + 1];
    if (v === "-C" && next) {
      dir = dir === null || next.value.startsWith("/") ? next.value : `${dir}/${next.value}`;
      dynamic ||= next.dynamic;
      i++;
    } else if (v === "--work-tree" && next) {
      tree = next;
      i++;
    } else if (v.startsWith("--work-tree=")) tree = { ...argv[i]!, value: v.slice(12) };
  }
  // Files named relative to where git runs: after -C, relative to that directory.
  const named = files.map((w) => (dir !== null && !w.value.startsWith("/") ? { ...w, value: `${dir}/${w.value}`, dynamic: w.dynamic || dynamic } : w));
  if ((dir === null && tree === null) || !GIT_WORKTREE_WRITERS.has(argv[sub]!.value)) return named.length ? { writes: named, reads: [], deletes: false, recursive: false } : NONE;
  // --work-tree is relative to the directory -C moved to.
  let target: Word;
  if (tree && (tree.value.startsWith("/") || dir === null)) target = tree;
  else if (tree) target = { ...tree, value: `${dir}/${tree.value}`, dynamic: tree.dynamic || dynamic };
  else target = { raw: dir!, value: dir!, dynamic, glob: false };
  const clean = argv[sub]!.value === "clean";
  const rest = parseArgs(argv.slice(sub + 1));
  return { writes: [target, ...named], reads: [], deletes: clean, recursive: clean && rest.flags.has("d") };
}
