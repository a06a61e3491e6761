// What a command reads, as the strict rows of layer 2 see it: every file with the place it names, or null when the
// guard cannot resolve it; and the few computed reads that are still provably inside the workspace (names xargs
// or a substitution takes from a `find` there, or from `git ls-files`).

import { DYN, type Command, type Word } from "../facts.ts";
import type { Effective } from "../wrappers.ts";
import { parseArgs, programName } from "../argv.ts";
import { globRegex } from "../options/find.ts";
import { isInside } from "../paths.ts";
import { inDirectory, redirectReads, resolveWord, type RuleEnv } from "./row.ts";

const READABLE_DEVICES = /^\/dev\/(?:null|zero|stdin|tty|random|urandom|fd\/\d+)$|^\/proc\/self\//;

/**
 * The files a command reads, for the strict rows: its input redirects, its program's reads (where a wrapper moved
 * it: `env -C DIR`) and its wrappers'; each with the absolute path it names, or null when the guard cannot
 * resolve it. A static directory prefix is no proof: `src/$X` with X=../../etc/passwd is /etc/passwd. Devices that
 * read no file (`/dev/null`, a process substitution's pipe) are left out.
 */
export function strictReads(cmd: Command, eff: Effective, env: RuleEnv): Array<{ word: Word; path: string | null }> {
  const dir = eff.chdir;
  const own = dir ? env.files(cmd).reads.map((w) => ({ ...inDirectory(w, dir), raw: w.value.startsWith("/") ? w.raw : `${dir.raw}/${w.raw}` })) : env.files(cmd).reads;
  const out: Array<{ word: Word; path: string | null }> = [];
  for (const word of [...redirectReads(cmd), ...own, ...(eff.wrapperReads ?? [])]) {
    if (pipe(word)) continue;
    const r = resolveWord(atPwd(word, cmd.cwd), cmd.cwd);
    if (r.kind === "path") {
      if (!READABLE_DEVICES.test(r.path)) out.push({ word, path: r.path });
    } else if (r.prefix !== null && !isInside(r.prefix, env.workspace) && !isInside(r.prefix, "/tmp")) {
      // `/etc/$X`: outside whatever X holds (as far as the read-outside row is concerned)
      out.push({ word, path: r.prefix });
    } else out.push({ word, path: null });
  }
  return out;
}

/**
 * `` `pwd`/x ``, `"$(pwd)/x"`: the substitution prints the working directory (a function named pwd is refused by
 * layer 3). Unquoted, only when that directory holds no blank or glob character to split or expand.
 */
function atPwd(word: Word, cwd: string | null): Word {
  if (cwd === null || !word.value.startsWith(DYN) || word.value.includes(DYN, 1)) return word;
  const m = /^("?)(?:\$\(pwd\)|`pwd`)/.exec(word.raw);
  if (!m || (!m[1] && /[\s*?[\]]/.test(cwd))) return word;
  const value = cwd + word.value.slice(1);
  return { ...word, value, dynamic: false };
}

/** `<(cmd)` as a whole word: bash puts /dev/fd/N, a pipe, in its place. */
function pipe(word: Word): boolean {
  return word.value === DYN && /^[<>]\(/.test(word.raw) && word.raw.endsWith(")");
}

/** A word xargs fills from its input: appended, or the whole of an argument that is its replace string (`-I{} cat {}`). */
export function fromInput(word: Word, eff: Effective): boolean {
  if (!eff.stdinArgs || eff.replace === undefined || word.value !== DYN) return false;
  const r = eff.replace || "{}";
  return word.raw === r || word.raw === `"${r}"` || word.raw === `'${r}'`;
}

/** find's actions that print something other than the names it found, or run a program that may; and its list of starting points. */
const FIND_OTHER_OUTPUT = new Set(["-printf", "-fprintf", "-ls", "-fls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-files0-from"]);

/** A glob may expand to one of `words` (find's globRegex: any bracket expression as one character). */
function globMayMatch(glob: string, words: Iterable<string>): boolean {
  const re = globRegex(glob);
  for (const w of words) if (re.test(w)) return true;
  return false;
}

/**
 * Its errors and warnings never join what it prints: no redirect but of fd 2 to a file (`2>/dev/null`, `2>>log`), not
 * to a device or /proc that is its output (`2>/dev/stdout`, `2>/dev/fd/1`), and no `|&`. `find -D tree` writes its
 * expression to stderr: `find -D tree . -name '/etc/passwd x' 2>/dev/stdout | xargs cat` read /etc/passwd in real bash.
 */
function errorsStayOut(cmd: Command): boolean {
  if (cmd.pipeline?.stderr) return false;
  return cmd.redirects.every((r) => {
    if (r.fd !== 2 || (r.op !== ">" && r.op !== ">>") || !r.target) return false;
    const t = resolveWord(r.target, cmd.cwd);
    return t.kind === "path" && (t.path === "/dev/null" || !/^\/(?:dev|proc)\//.test(t.path));
  });
}

/**
 * `find ROOT…` printing only the names it found (-print, -print0; its errors to a file, never into its output), every
 * ROOT inside the workspace or /tmp: each line it prints is a path under a ROOT. (A word cut at a blank in such a
 * name is still a path under ROOT or a name in the working directory, unless the workspace holds names built to
 * steer the cut: like a link planted there, that is outside what the guard sees.)
 */
function findPrintsInside(find: Command, env: RuleEnv): boolean {
  const eff = env.effective(find);
  if (eff.name !== "find" || eff.wrappers.length || find.cwd === null || !errorsStayOut(find)) return false;
  const words = eff.argv.slice(1);
  if (words.some((w) => w.dynamic || FIND_OTHER_OUTPUT.has(w.value) || (w.glob && globMayMatch(w.value, FIND_OTHER_OUTPUT)))) return false;
  let i = 0;
  for (; i < words.length && /^-(?:[HLPD]|O\d)$/.test(words[i]!.value); i++) if (words[i]!.value === "-D") i++;
  const roots: Word[] = [];
  for (; i < words.length && !/^[-(!),]/.test(words[i]!.value); i++) roots.push(words[i]!);
  return (roots.length ? roots : [{ raw: ".", value: ".", dynamic: false, glob: false }]).every((root) => {
    const r = resolveWord(root, find.cwd);
    return r.kind === "path" && !r.climbs && (isInside(r.path, env.workspace) || isInside(r.path, "/tmp"));
  });
}

/**
 * `git ls-files` with no pathspec and options that only choose which files: the paths it prints are the repository's
 * files under the working directory, relative to it. Not `--full-name` (from the top, which may be above the workspace).
 */
function listsTrackedFiles(cmd: Command, env: RuleEnv): boolean {
  const eff = env.effective(cmd);
  if (eff.name !== "git" || eff.wrappers.length || cmd.cwd === null || !(isInside(cmd.cwd, env.workspace) || isInside(cmd.cwd, "/tmp"))) return false;
  if (!errorsStayOut(cmd)) return false;
  const [sub, ...rest] = eff.argv.slice(1);
  return sub?.value === "ls-files" && !sub.dynamic && rest.every((w) => !w.dynamic && /^-[zcmodk]+$|^--(?:cached|modified|others|deleted|killed|exclude-standard)$/.test(w.value));
}

/** Filters that pass on some of their input lines unchanged (reorder, select, cut at a line), reading no file. */
function keepsLines(cmd: Command, env: RuleEnv): boolean {
  const eff = env.effective(cmd);
  if (eff.wrappers.length || cmd.redirects.some((r) => r.fd === null || r.fd === 0 || r.fd === 1)) return false;
  const f = env.files(cmd);
  if (f.reads.length || f.writes.length) return false;
  const args = eff.argv.slice(1);
  if (args.some((w) => w.dynamic)) return false;
  switch (eff.name) {
    case "grep":
    case "egrep":
    case "fgrep": {
      // a pattern, and options that choose lines; not -o (part of a line), -n/-b/-c/-H/-l (more text), -r (files)
      let pattern = false;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === "-e" || v === "--regexp") i++;
        else if (/^-[viEFGPwxzZsa]+$/.test(v) || /^--(?:invert-match|ignore-case|extended-regexp|fixed-strings|basic-regexp|perl-regexp|word-regexp|line-regexp|null-data|null|no-messages|text|regexp=.*)$/.test(v)) continue;
        else if (v.startsWith("-") || pattern) return false;
        else pattern = true;
      }
      return true;
    }
    case "sort":
      return true;
    case "tac":
      // not `tac -s SEP`, `-r`, `-b`: records cut elsewhere than at a line's end
      return args.length === 0;
    case "head":
    case "tail":
      // whole lines only (`-n 5`, `-5`, `--lines=+2`), never bytes (`-c 20` cuts a path anywhere: /home/x/etc/passwd)
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === "-n" || v === "--lines") {
          if (!/^[+-]?\d+$/.test(args[++i]?.value ?? "")) return false;
        } else if (!/^-n?[+-]?\d+$|^--lines=[+-]?\d+$/.test(v)) return false;
      }
      return true;
    default:
      return false;
  }
}

/**
 * xargs cuts its input at blanks and line ends (or, with -0, NULs), never at another delimiter: `xargs -d r` cuts
 * `./docker/etc/hosts` into `./docke` and `/etc/hosts` (real bash printed /etc/hosts from find -print0 that way).
 */
function cutsAtLines(cmd: Command): boolean {
  const at = cmd.argv.findIndex((w) => programName(w) === "xargs");
  if (at < 0) return false;
  const args = cmd.argv.slice(at + 1);
  const p = parseArgs(args, "ILnPsdEa", ["max-args", "max-procs", "max-chars", "delimiter", "arg-file", "process-slot-var"], true);
  const own = args.slice(0, args.length - p.rest.length);
  for (let i = 0; i < own.length; i++) {
    const v = own[i]!.value;
    let delimiter: string | undefined;
    const long = /^--(d[a-z]*)(?:=([^]*))?$/.exec(v);
    if (long && "delimiter".startsWith(long[1]!)) delimiter = long[2] ?? own[++i]?.value;
    else if (/^-[^-]/.test(v)) {
      // a bundle of short options: after d, the rest of the word (or the next word) is its value
      for (let j = 1; j < v.length; j++) {
        if ("ILnPsEa".includes(v[j]!)) break;
        if (v[j] === "d") {
          delimiter = v.slice(j + 1) || own[++i]?.value;
          break;
        }
      }
    }
    if (delimiter !== undefined && !["\\n", "\\0", "\n"].includes(delimiter)) return false;
  }
  return true;
}

/**
 * Its input may not be the pipe: its own input redirect, or one on a group, subshell or loop around it
 * (`find . | { xargs cat; } < list`; the guard keeps such a redirect as a command without words whose text holds it).
 */
function otherInput(cmd: Command, env: RuleEnv): boolean {
  const input = (c: Command) => c.redirects.some((r) => (r.fd === null || r.fd === 0) && r.op.startsWith("<"));
  return input(cmd) || env.script.commands.some((c) => c !== cmd && c.argv.length === 0 && input(c) && c.text.includes(cmd.text));
}

/** The one command at stage `index` of pipeline `id`, or null (none, or a group of several). */
function stage(env: RuleEnv, of: Command, id: number, index: number): Command | null {
  const at = env.script.commands.filter((c) => c.pipeline?.id === id && c.pipeline.index === index && c.owner === of.owner);
  return at.length === 1 ? at[0]! : null;
}

/**
 * xargs reads its words from a `find` that prints names inside the workspace (findPrintsInside), directly or through
 * filters that keep whole lines (`find . | grep -v test | sort | xargs wc -l`): each word is a path inside, as in `cat src/*`.
 */
export function foundInside(cmd: Command, env: RuleEnv): boolean {
  const p = cmd.pipeline;
  if (!p || stage(env, cmd, p.id, p.index) !== cmd || otherInput(cmd, env) || !cutsAtLines(cmd)) return false;
  // `xargs -a FILE` (`-0a FILE`, `--arg=FILE`) reads its words from FILE instead: a wrapper's read
  if (env.effective(cmd).wrapperReads?.length) return false;
  for (let i = p.index - 1; i >= 0; i--) {
    const c = stage(env, cmd, p.id, i);
    if (!c || otherInput(c, env)) return false;
    if (findPrintsInside(c, env) || listsTrackedFiles(c, env)) return true;
    if (!keepsLines(c, env)) return false;
  }
  return false;
}

/** `$(find …)` or `` `find …` `` as a whole word, the only command substituted into `cmd`, printing names inside. */
export function substitutedFind(word: Word, cmd: Command, env: RuleEnv): boolean {
  if (word.value !== DYN || !/^(?:\$\([^]*\)|`[^`]*`)$/.test(word.raw)) return false;
  const owned = env.owned(cmd);
  return owned.length === 1 && findPrintsInside(owned[0]!, env);
}
