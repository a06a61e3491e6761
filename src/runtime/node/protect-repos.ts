// Repositories the shell makes that git on the host would later use (protect-sweep.ts acts on what this finds).
// Git takes a folder for a repository by what it holds, not by its name (setup.c's is_git_directory): a `HEAD` that is
// a valid ref or symref (refs.c's validate_headref), and `objects/` and `refs/` (or a `commondir` naming a folder
// with them). While it looks for the repository of the folder it runs in, git tries every folder on the way up as
// such a git folder itself before it tries that folder's `.git`. So a folder the shell fills with `HEAD`, `objects/`,
// `refs/` and a `config` (core.worktree, core.fsmonitor) hijacks the person's `git status` in every folder below it,
// and a repository made with `git init` runs its own config and hooks wherever the person uses git in it.
//
// Here: a bounded look for every git folder in the workspace (any depth, node_modules last), and two ways to make a
// repository the shell made harmless without losing data:
//   - a git folder not named `.git` (`src/` made a repository): its `HEAD` is renamed `HEAD.sandshell-disabled`, so
//     git no longer takes the folder for a repository (renaming it back undoes it);
//   - a `.git` folder (`git init sub`): kept usable; a config that sets anything but plain settings (remotes,
//     branches, identity, format) is moved to `config.sandshell-disabled` and a config with only those settings is
//     written, and a `hooks` folder holding anything but git's `*.sample` files is moved to `hooks.sandshell-disabled`.

import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { readdir } from "node:fs/promises";
import { NODE_SANDBOX } from "../../limits.ts";
import { joinPath, normalizePath, resolvePath } from "../../lib/paths.ts";

/** What the look found. */
export interface RepoLook {
  /** Folders git takes for a git folder: `.git` folders and others (a bare repository, a planted one). */
  gitDirs: string[];
  /** Folders not looked in because the look reached its bound (NODE_SANDBOX.maxSweepEntries), shallowest first. */
  notLooked: string[];
}

export const DISABLED = ".sandshell-disabled";

/** What is at `path`, not following a symlink; "other" is a FIFO, socket or device (reading one could block). */
function lkind(path: string): "dir" | "file" | "link" | "other" | null {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : s.isFile() ? "file" : "other";
  } catch {
    return null;
  }
}

/** The start of a regular file (never a FIFO or device the shell planted: reading one blocks the host). */
function readRegular(path: string, bytes: number): string | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after any check opens without waiting; fstat then says what was opened.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString("latin1");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** refs.c's validate_headref: a symlink to `refs/…`, a `ref: refs/…` symref, or an object id in hex. */
function validHead(path: string): boolean {
  const k = lkind(path);
  if (k === "link") {
    try {
      return readlinkSync(path).startsWith("refs/");
    } catch {
      return false;
    }
  }
  // A FIFO or device: git blocks reading it (and runs nothing), so it is no HEAD.
  const text = k === "file" ? readRegular(path, 255) : null;
  if (text === null) return false;
  if (text.startsWith("ref:")) return /^ref:\s*refs\//.test(text);
  return /^[0-9a-fA-F]{40}/.test(text);
}

function isDirFollowing(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether git takes `dir` for a git folder (setup.c's is_git_directory, without GIT_OBJECT_DIRECTORY): a valid HEAD,
 * and `objects/` and `refs/` in it or in the folder its `commondir` names (any `commondir` counts: erring towards yes).
 */
export function isGitDirectory(dir: string): boolean {
  if (!validHead(joinPath(dir, "HEAD"))) return false;
  if (lkind(joinPath(dir, "commondir")) !== null) return true;
  return isDirFollowing(joinPath(dir, "objects")) && isDirFollowing(joinPath(dir, "refs"));
}

/**
 * Every git folder in the workspace, found by a walk that stops once it has read `maxEntries` folder entries (it
 * reads a folder whole), shallower first and node_modules last, never following a symlink. A `.git` folder is checked, not walked; a git folder's own
 * `objects`, `refs` and `logs` are not walked.
 */
export async function findGitDirs(workspace: string, maxEntries: number): Promise<RepoLook> {
  const gitDirs: string[] = [];
  const queue: string[] = [workspace];
  const later: string[] = [];
  let read = 0;
  for (let i = 0; ; i++) {
    if (i >= queue.length) {
      if (later.length === 0) break;
      queue.push(...later.splice(0));
    }
    if (read >= maxEntries) return { gitDirs, notLooked: [...queue.slice(i), ...later] };
    const dir = queue[i]!;
    // One readdir a folder (an opendir loop costs 3 times as much on node_modules' many small folders).
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // gone, or not readable: nothing git would read there either
    }
    read += entries.length;
    const isGit = entries.some((e) => e.name === "HEAD") && isGitDirectory(dir);
    if (isGit) gitDirs.push(dir);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const child = joinPath(dir, entry.name);
      if (entry.name === ".git") {
        if (isGitDirectory(child)) gitDirs.push(child);
      } else if (isGit && (entry.name === "objects" || entry.name === "refs" || entry.name === "logs")) {
        // a repository's own data
      } else if (entry.name === "node_modules") later.push(child);
      else queue.push(child);
    }
  }
  return { gitDirs, notLooked: [] };
}

/** A name next to `path` that is free: `path` + DISABLED, then with a number. */
function freeName(path: string): string {
  for (let n = 0; ; n++) {
    const candidate = `${path}${DISABLED}${n === 0 ? "" : `.${n}`}`;
    if (lkind(candidate) === null) return candidate;
  }
}

/** Renames `path` to a free name ending in DISABLED (a state folder: git then sees no operation in progress). */
export function moveAside(path: string): string | null {
  const to = freeName(path);
  try {
    renameSync(path, to);
    return to;
  } catch {
    return null;
  }
}

/** A git folder not named `.git`: its HEAD renamed, so git no longer takes it for one. The new name, or null. */
export function disableGitDir(dir: string): string | null {
  return moveAside(joinPath(dir, "HEAD"));
}

/**
 * Settings of a repository's config that run nothing (git reads them as plain data): kept when the config is rewritten.
 * Anything else (core.fsmonitor, core.pager, core.editor, core.sshCommand, core.hooksPath, core.worktree, alias.*,
 * filter.*, diff.*, credential.*, include.*, includeIf.*, remote.*.uploadpack, …) sends the config aside.
 */
const PLAIN_SETTINGS: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|checkstat|trustctime)$/,
  /^extensions\.(objectformat|refstorage|noop)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^remote\..+\.(url|pushurl|fetch|push|tagopt|mirror|prune)$/,
  /^branch\..+\.(remote|pushremote|merge|rebase|description)$/,
  /^(pull\.rebase|pull\.ff|push\.default|fetch\.prune)$/,
  /^submodule\..+\.(url|active|branch)$/,
];

/** A key as git prints it: section and name in lower case, a subsection as written. */
const isPlain = (key: string): boolean => {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  const lower = first === last ? key.toLowerCase() : `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
  return PLAIN_SETTINGS.some((r) => r.test(lower));
};

const GIT_ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent", GIT_CEILING_DIRECTORIES: "/" };

/** The entries of one config file as git reads them (keys as printed), or null when git cannot read it. */
function configEntries(file: string): Array<{ key: string; value: string | null }> | null {
  let out: string;
  try {
    out = execFileSync("git", ["config", "--file", file, "--null", "--list"], {
      cwd: "/",
      env: GIT_ENV,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: NODE_SANDBOX.protectScanTimeoutMs,
      maxBuffer: 4 * 1024 * 1024,
    });
  } catch {
    return null;
  }
  return out
    .split("\0")
    .filter((f) => f !== "")
    .map((f) => {
      const nl = f.indexOf("\n");
      return { key: nl < 0 ? f : f.slice(0, nl), value: nl < 0 ? null : f.slice(nl + 1) };
    });
}

/**
 * A `.git` folder the shell made (and the submodules' repositories in its `modules`): a config that sets anything but
 * plain settings is moved aside and rewritten with the plain ones; a hooks folder with anything but `*.sample` is
 * moved aside. What was moved, as [from, to].
 */
export function disarmRepository(gitDir: string, depth = 0): Array<[string, string]> {
  const moved: Array<[string, string]> = [];
  const move = (path: string): string | null => {
    const to = moveAside(path);
    if (to !== null) moved.push([path, to]);
    return to;
  };
  const config = joinPath(gitDir, "config");
  const ck = lkind(config);
  if (ck !== null) {
    // Read only when a regular file (git config on a planted FIFO would block the host).
    const entries = ck === "file" ? configEntries(config) : null;
    const empty = ck === "file" && statSync(config).size === 0;
    if (ck !== "file" || (!empty && (entries === null || entries.some((e) => !isPlain(e.key))))) {
      if (move(config) !== null) {
        const keep = (entries ?? []).filter((e) => isPlain(e.key));
        try {
          writeFileSync(config, "", { flag: "wx", mode: 0o644 });
          for (const e of keep) {
            execFileSync("git", ["config", "--file", config, "--add", e.key, e.value ?? "true"], { cwd: "/", env: GIT_ENV, stdio: "ignore", timeout: NODE_SANDBOX.protectScanTimeoutMs });
          }
        } catch {
          // made meanwhile, or a setting git will not write back: what was written stays, the rest is in the moved file
        }
      }
    }
  }
  const hooks = joinPath(gitDir, "hooks");
  const hk = lkind(hooks);
  if (hk !== null && hk !== "dir") move(hooks);
  else if (hk === "dir") {
    let names: string[] = [];
    try {
      names = readdirSync(hooks);
    } catch {
      // unreadable: git cannot run from it either
    }
    if (names.some((n) => !n.endsWith(".sample")) && move(hooks) !== null) {
      try {
        mkdirSync(hooks, { mode: 0o755 });
      } catch {
        // made meanwhile
      }
    }
  }
  // A submodule's repository has no commondir of its own (one would send git to a config nobody checked).
  if (depth > 0 && lkind(joinPath(gitDir, "commondir")) !== null) move(joinPath(gitDir, "commondir"));
  // A linked worktree's folder: its commondir must name this repository (the config just checked); one naming another
  // folder (objects/, refs/ and a config, no HEAD needed) is moved aside whole, so a .git file into it leads nowhere.
  const worktrees = joinPath(gitDir, "worktrees");
  if (lkind(worktrees) === "dir") {
    let names: string[] = [];
    try {
      names = readdirSync(worktrees);
    } catch {
      // unreadable: git cannot use it either
    }
    for (const name of names) {
      if (name.includes(DISABLED)) continue;
      const wt = joinPath(worktrees, name);
      // None (git would take the worktree's folder itself for the common one), or not a regular file: moved aside.
      const text = readRegular(joinPath(wt, "commondir"), 4096);
      const common = text === null ? null : resolvePath(text.replace(/\r?\n$/, ""), wt);
      if (lkind(wt) !== "dir" || common === null || normalizePath(common) !== normalizePath(gitDir)) move(wt);
    }
  }
  // Submodules' repositories (git run in a submodule reads its own config and hooks there), a few levels down.
  if (depth < 4) {
    const modules = joinPath(gitDir, "modules");
    const stack = lkind(modules) === "dir" ? [modules] : [];
    for (let n = 0; stack.length > 0 && n < 256; n++) {
      const dir = stack.pop()!;
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const child = joinPath(dir, name);
        if (lkind(child) !== "dir") continue;
        if (isGitDirectory(child)) moved.push(...disarmRepository(child, depth + 1));
        else stack.push(child);
      }
    }
  }
  return moved;
}

/** Where git keeps a rebase, cherry-pick or revert in progress, and the list of what it does next there. */
export const SEQUENCER_STATES = [
  ["rebase-merge", "git-rebase-todo"],
  ["sequencer", "todo"],
] as const;

/**
 * Whether a todo list runs a program when the person continues (`exec`/`x` lines: `git rebase --continue` runs them on
 * the host). Read as git reads it: one command a line, comments and blank lines aside.
 */
export function todoRunsPrograms(gitDir: string, state: string, todo: string): boolean {
  const text = readRegular(joinPath(joinPath(gitDir, state), todo), 1024 * 1024);
  return text !== null && text.split(/\r?\n/).some((line) => /^\s*(exec|x)(\s|$)/.test(line));
}

/**
 * A fingerprint of what in a git folder runs programs: its config, a non-empty config.worktree, and the hooks folder's
 * entries (name, inode, size, times). The OS sandbox's own stand-ins (an empty config.worktree, a missing hooks
 * folder's placeholder) do not count. Two equal fingerprints: nothing there changed.
 */
export function runnableFingerprint(gitDir: string): string {
  const stamp = (path: string): string => {
    try {
      const s = lstatSync(path);
      return `${s.mode}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      return "-";
    }
  };
  const worktree = joinPath(gitDir, "config.worktree");
  const parts = [stamp(joinPath(gitDir, "config")), lkind(worktree) === "file" && statSync(worktree).size === 0 ? "-" : stamp(worktree)];
  const hooks = joinPath(gitDir, "hooks");
  const hk = lkind(hooks);
  if (hk !== "dir" && hk !== null) parts.push(`hooks=${stamp(hooks)}`);
  try {
    for (const name of readdirSync(hooks).sort()) if (!name.startsWith(".sandshell-")) parts.push(`${name}=${stamp(joinPath(hooks, name))}`);
  } catch {
    // no hooks folder
  }
  return parts.join("|");
}
