// The sandbox's private temp folder, presented at /tmp (Linux, bubblewrap).
//
// @anthropic-ai/sandbox-runtime renders one shell string, `bwrap <args> -- <shell> -c <command>` (its mounts on an
// unnamed file when the line gets long), in which /tmp is the host's: read-only, and shared by every sandbox and
// process on the machine. Agents, tools and programs expect a writable /tmp, and a shared one is a channel between
// sandboxes, so the node runtime reads that string back into words and puts `--bind <tempDir> /tmp` among the
// library's mounts (presentTempAtTmp says where and why), then runs bwrap with the words itself.
//
// Anything this file does not understand (a word it cannot read back, an option bubblewrap does not list, mounts in
// another order than the one it relies on) is an error, never a guess: the sandbox then does not start.

import { readFileSync } from "node:fs";
import { isInside, normalizePath } from "../../lib/paths.ts";

/** The library's quoting (utils/shell-quote.js): a bare word, or single quotes with `'"'"'` for a quote. */
const BARE = /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/;

export function quoteWords(words: readonly string[]): string {
  return words
    .map((w) => (w === "" ? "''" : BARE.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`))
    .join(" ");
}

/** The words of a string quoteWords made, or null when `s` is not exactly such a string. */
export function unquoteWords(s: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  while (i < s.length) {
    let word = "";
    if (s[i] === "'") {
      for (;;) {
        const end = s.indexOf("'", i + 1);
        if (end < 0) return null;
        word += s.slice(i + 1, end);
        i = end + 1;
        if (s.startsWith(`"'"'`, i)) {
          word += "'";
          i += 3;
          continue;
        }
        break;
      }
    } else {
      const end = s.indexOf(" ", i);
      word = s.slice(i, end < 0 ? s.length : end);
      i += word.length;
    }
    words.push(word);
    if (i < s.length) {
      if (s[i] !== " ") return null;
      i++;
      if (i === s.length) return null;
    }
  }
  return quoteWords(words) === s ? words : null;
}

/** bubblewrap 0.8's options and how many arguments each takes. */
const ARITY: Record<string, number> = {
  "--args": 1, "--unshare-all": 0, "--share-net": 0, "--unshare-user": 0, "--unshare-user-try": 0, "--unshare-ipc": 0,
  "--unshare-pid": 0, "--unshare-net": 0, "--unshare-uts": 0, "--unshare-cgroup": 0, "--unshare-cgroup-try": 0,
  "--userns": 1, "--userns2": 1, "--disable-userns": 0, "--assert-userns-disabled": 0, "--pidns": 1, "--uid": 1,
  "--gid": 1, "--hostname": 1, "--chdir": 1, "--clearenv": 0, "--setenv": 2, "--unsetenv": 1, "--lock-file": 1,
  "--sync-fd": 1, "--bind": 2, "--bind-try": 2, "--dev-bind": 2, "--dev-bind-try": 2, "--ro-bind": 2,
  "--ro-bind-try": 2, "--bind-fd": 2, "--ro-bind-fd": 2, "--remount-ro": 1, "--exec-label": 1, "--file-label": 1,
  "--proc": 1, "--dev": 1, "--tmpfs": 1, "--mqueue": 1, "--dir": 1, "--file": 2, "--bind-data": 2,
  "--ro-bind-data": 2, "--symlink": 2, "--seccomp": 1, "--add-seccomp-fd": 1, "--block-fd": 1, "--userns-block-fd": 1,
  "--info-fd": 1, "--json-status-fd": 1, "--new-session": 0, "--die-with-parent": 0, "--as-pid-1": 0, "--cap-add": 1,
  "--cap-drop": 1, "--perms": 1, "--size": 1, "--chmod": 2, "--overlay-src": 1, "--overlay": 3, "--tmp-overlay": 1,
  "--ro-overlay": 1, "--argv0": 1, "--level-prefix": 0,
};

/** Where each file system operation acts inside the sandbox: the index of that argument. */
const DEST: Record<string, number> = {
  "--bind": 1, "--bind-try": 1, "--dev-bind": 1, "--dev-bind-try": 1, "--ro-bind": 1, "--ro-bind-try": 1,
  "--remount-ro": 0, "--proc": 0, "--dev": 0, "--tmpfs": 0, "--mqueue": 0, "--dir": 0, "--symlink": 1, "--chmod": 1,
  // These take a file descriptor, read once: they cannot be made twice.
  "--bind-fd": 1, "--ro-bind-fd": 1, "--file": 1, "--bind-data": 1, "--ro-bind-data": 1,
  "--overlay": 2, "--tmp-overlay": 0, "--ro-overlay": 0,
};
const ONCE = new Set(["--bind-fd", "--ro-bind-fd", "--file", "--bind-data", "--ro-bind-data", "--overlay", "--tmp-overlay", "--ro-overlay"]);
/** Options that change the next operation. */
const MODIFIERS = new Set(["--perms", "--size", "--overlay-src"]);

export interface BwrapCommand {
  /** The bwrap binary as the library named it. */
  bwrap: string;
  /** Options, with an `--args` profile read in. */
  options: string[];
  /** After `--`: the command bwrap runs. */
  command: string[];
}

function refuse(what: string): never {
  throw new Error(
    `The OS sandbox library (@anthropic-ai/sandbox-runtime) rendered a bubblewrap command Sandshell cannot rewrite (${what}); ` +
      "the sandbox was not started. Pin the version in Sandshell's package.json, or run with sandbox: \"off\".",
  );
}

/** The profile the library hands over on an unnamed file (`exec 9<"$1" && shift && exec "$@"`, then `--args 9`). */
const ARGS_LAUNCHER = /^exec (\d+)<"\$1" && shift && exec "\$@"$/;

/**
 * The bwrap command inside the string the library made. `readProfile` reads the `/proc/<pid>/fd/N` file the long form
 * names (this process's own descriptor).
 */
export function readBwrapCommand(line: string, readProfile: (path: string) => string = (p) => readFileSync(p, "utf8")): BwrapCommand {
  const words = unquoteWords(line);
  if (words === null) refuse("its quoting");
  let bwrap: string;
  let rest: string[];
  let profile: string[] | null = null;
  const launcher = words[0] === "/bin/sh" && words[1] === "-c" && words[3] === "srt-args" ? ARGS_LAUNCHER.exec(words[2] ?? "") : null;
  if (launcher !== null) {
    const path = words[4];
    if (path === undefined || !/^\/proc\/\d+\/fd\/\d+$/.test(path)) refuse("the profile's path");
    const text = readProfile(path);
    if (!text.endsWith("\0")) refuse("the profile's end");
    profile = text.slice(0, -1).split("\0");
    bwrap = words[5] ?? refuse("no bwrap");
    rest = words.slice(6);
  } else {
    bwrap = words[0] ?? refuse("an empty line");
    rest = words.slice(1);
  }
  const options: string[] = [];
  let i = 0;
  for (; i < rest.length; ) {
    const opt = rest[i]!;
    if (opt === "--") break;
    const n = ARITY[opt];
    if (n === undefined) refuse(`the option ${JSON.stringify(opt)}`);
    if (i + n >= rest.length) refuse(`${opt} without its arguments`);
    if (opt === "--args") {
      if (profile === null || rest[i + 1] !== launcher?.[1]) refuse("an --args it did not announce");
      options.push(...profile);
      profile = null;
    } else {
      options.push(...rest.slice(i, i + 1 + n));
    }
    i += 1 + n;
  }
  if (rest[i] !== "--" || i + 1 >= rest.length) refuse("no command after --");
  if (profile !== null) refuse("a profile it never read");
  return { bwrap, options, command: rest.slice(i + 1) };
}

/** One option with its arguments (a mount and the modifiers before it). */
interface Op {
  opt: string;
  words: string[];
  dest: string | null;
}

function ops(options: string[]): Op[] {
  const out: Op[] = [];
  let pending: string[] = [];
  for (let i = 0; i < options.length; ) {
    const opt = options[i]!;
    const n = ARITY[opt];
    if (n === undefined || i + n >= options.length) refuse(`the option ${JSON.stringify(opt)}`);
    const words = options.slice(i, i + 1 + n);
    i += 1 + n;
    if (MODIFIERS.has(opt)) {
      pending.push(...words);
      continue;
    }
    const d = DEST[opt];
    out.push({ opt, words: [...pending, ...words], dest: d === undefined ? null : normalizePath(words[1 + d]!) });
    pending = [];
  }
  if (pending.length > 0) refuse("a modifier with nothing after it");
  return out;
}

/** The library's default write folder, shared by every sandbox on the host; no part of a private /tmp. */
const LIBRARY_SHARED = "/tmp/claude";

const isReadOnlyBind = (op: Op): boolean => op.opt === "--ro-bind" || op.opt === "--ro-bind-try";

/**
 * The options with `tempDir` presented at /tmp. The library starts its file system with a read-only bind of /, then
 * pins (read-only self-binds that keep the folders above a deny from being renamed), then its allow binds, denies and
 * hidden folders. The new /tmp goes right after the pins, with read-only binds of `keep` (host paths under /tmp the
 * shell needs) and, again, what the library had mounted under /tmp before its bind of / (its proxy sockets). So:
 *   - everything the library mounts after the pins lands on the new /tmp, in its order: the workspace and temp folder
 *     binds (a default workspace lives under the host's /tmp), the tmpfs that hides other sandboxes, the denies;
 *   - the pins stay on the host's folders, where the kernel's rename checks find them (covered or not);
 *   - nothing is mounted twice, so the argument count stays the library's (bubblewrap takes at most 9,000).
 * `ownRoots` (the workspace and the temp folder) must be bound after the new /tmp when they are under it: otherwise
 * the library's order is not the one described here, and this refuses rather than hide them.
 */
export function presentTempAtTmp(options: string[], tempDir: string, ownRoots: readonly string[], keep: readonly string[] = []): string[] {
  const list = ops(options);
  const roots = list.flatMap((op, i) => (isReadOnlyBind(op) && op.dest === "/" && op.words.at(-2) === "/" ? [i] : []));
  if (roots.length !== 1) refuse(`${roots.length} read-only binds of / where one was expected`);
  const root = roots[0]!;
  let at = root + 1;
  while (at < list.length && isReadOnlyBind(list[at]!)) at++;
  const under = (op: Op): boolean => op.dest !== null && isInside(op.dest, "/tmp");
  const before = list.slice(0, root).filter(under);
  for (const op of before) {
    if (op.dest === "/tmp") refuse(`${op.opt} on /tmp itself`);
    if (ONCE.has(op.opt)) refuse(`${op.opt} under /tmp, which cannot be made twice`);
  }
  const after = list.slice(at).filter((op) => !(op.dest !== null && isInside(op.dest, LIBRARY_SHARED)));
  for (const own of ownRoots) {
    const dir = normalizePath(own);
    if (isInside(dir, "/tmp") && !after.some((op) => op.opt === "--bind" && op.dest === dir)) refuse(`no bind of ${dir} after its pins`);
  }
  const kept: string[] = [];
  for (const path of keep) {
    const p = normalizePath(path);
    if (p !== "/tmp" && isInside(p, "/tmp") && !ownRoots.some((own) => isInside(p, normalizePath(own)))) kept.push("--ro-bind-try", p, p);
  }
  return [
    ...list.slice(0, at).flatMap((op) => op.words),
    "--bind", tempDir, "/tmp",
    ...kept,
    ...before.flatMap((op) => op.words),
    ...after.flatMap((op) => op.words),
  ];
}
