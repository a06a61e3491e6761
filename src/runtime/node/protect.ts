// Files in the workspace that configure what runs later OUTSIDE the sandbox: git hooks and a repository's config (the
// person's `git commit` or `git status` on the host runs a planted hook or `core.fsmonitor`), shell startup files,
// editor and agent settings (.vscode, .idea, .mcp.json, .claude/commands, .claude/settings.json), pre-commit's and
// direnv's and a dev container's commands. @anthropic-ai/sandbox-runtime keeps these
// read-only, but only under the HOST process's working directory (it resolves them against process.cwd()), never
// under the workspace Sandshell gives the shell. So the node runtime names them itself, resolved in the workspace, as
// denyWrite entries (sandbox.ts), and the file tools, which write from the host, refuse the same paths
// (protectedWriteReason). The lists are the library's (DANGEROUS_FILES, getDangerousDirectories: a test compares) and
// Sandshell's additions, in src/lib/protected.ts, which the guard reads too; for repositories, everything git on the host reads as
// configuration or runs as a hook (protect-git.ts).
//
// Each protected name is a mount (bubblewrap takes at most 9,000 arguments), so the list is bounded
// (NODE_SANDBOX.maxProtectMounts) and ranked: the workspace's own names and its repository's git files and what its
// config names first, then nested repositories, then nested names, shallower first. What does not fit is left
// writable and said (planProtection's `leftOut`); the sandbox always starts.
//
// A `.git` that `git init` or `git clone` makes in a running shell is not known when that shell started, so its hooks
// and config are writable from that shell until it is started again (a background job started later is covered); the
// file tools refuse them at once. docs/sandbox.md says what this costs honest git work.

import { execFile } from "node:child_process";
import { lstatSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { NODE_SANDBOX } from "../../limits.ts";
import { baseName, isInside, joinPath, normalizePath, parentOf } from "../../lib/paths.ts";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS } from "../../lib/protected.ts";
import { configRefs, GIT_DIR_FOLDERS, GIT_DIR_NAMES_IF_PRESENT, gitFileTarget, hostConfigEntries, repoConfigEntries } from "./protect-git.ts";
import type { RuntimeFs } from "../types.ts";

export { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS };

const FILES = new Set<string>(PROTECTED_FILES);
/**
 * Names in a `.git` folder that decide which config and hooks git runs (protect-git.ts): refused to the file
 * tools at any depth. `hooks`, `info`, `modules` and `worktrees` are folders.
 */
const GIT_FILES = new Set<string>(["config", "commondir", "config.worktree", "remotes", "branches"]);
const GIT_FOLDERS = new Set<string>(["hooks", "info", "modules", "worktrees"]);
const DIRS = PROTECTED_DIRS.map((d) => d.split("/"));
const PATHS = PROTECTED_PATHS.map((p) => p.split("/"));

/**
 * The protected part a workspace-relative path lies in, and the index of the component where its protected name
 * begins (`folder` for a name that protects a folder: .vscode, .git/hooks, …). Compared in lower case, as the library
 * does (a case-insensitive file system has one file for both spellings).
 */
function protectedPart(parts: string[]): { part: string; at: number; folder: boolean } | null {
  const lower = parts.map((p) => p.toLowerCase());
  const upTo = (at: number, n: number, folder: boolean) => ({ part: parts.slice(0, at + n).join("/"), at, folder });
  for (let i = 0; i < lower.length; i++) {
    for (const dir of DIRS) {
      if (dir.every((c, k) => lower[i + k] === c)) return upTo(i, dir.length, true);
    }
    if (lower[i] === ".git") {
      // `.git` itself (a file that names the repository git uses), its hooks, its config, and what sends git to
      // another config and hooks: `commondir`, a submodule's or a linked worktree's administrative folder.
      if (i === lower.length - 1) return upTo(i, 1, false);
      if (GIT_FOLDERS.has(lower[i + 1]!)) return upTo(i, 2, true);
      if (GIT_FILES.has(lower[i + 1]!)) return upTo(i, 2, true);
    }
  }
  const last = lower.length - 1;
  for (const path of PATHS) {
    const at = lower.length - path.length;
    if (at >= 0 && path.every((c, k) => lower[at + k] === c)) return upTo(at, path.length, false);
  }
  return last >= 0 && FILES.has(lower[last]!) ? upTo(last, 1, false) : null;
}

/**
 * A name inside a missing git folder (`.git/worktrees`, `.git/modules`, `.git/hooks`) that is protected so that the
 * library stands an empty read-only folder in for the folder (it does for a name with a protected name inside).
 */
const STAND_IN_CHILD = ".sandshell-read-only";

const rel = (workspace: string, path: string): string => path.slice(workspace.length + (workspace.endsWith("/") ? 0 : 1));

/**
 * Why a write to `path` (a real path) is refused because the OS sandbox keeps it read-only, or null. At any depth in
 * the workspace, and whether or not the file or its repository exists yet: the file tools run on the host, outside
 * the sandbox, and must not write what the shell may not.
 */
export function protectedWriteReason(workspace: string, path: string, named: readonly string[] = []): string | null {
  const p = normalizePath(path);
  if (p === workspace || !isInside(p, workspace)) return null;
  const r = rel(workspace, p);
  const lower = r.toLowerCase();
  // What a repository's configuration names (a hooks folder, an included file, a program), compared as protectedPart
  // compares: in lower case.
  const hit = named.find((n) => isInside(lower, rel(workspace, n).toLowerCase()) || lower === rel(workspace, n).toLowerCase());
  const found = hit !== undefined ? { part: rel(workspace, hit) } : protectedPart(r.split("/"));
  if (found === null) return null;
  return (
    `${found.part} configures what runs outside the sandbox (git hooks and a repository's config, shell startup files, ` +
    "editor and agent settings), so the OS sandbox keeps it read-only: the shell cannot write it either. " +
    "A person can change it on the host."
  );
}

function kind(path: string): "dir" | "file" | null {
  try {
    return lstatSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/**
 * ripgrep's listing of the workspace's protected names, relative, down to `depth` folders (as the library scans), and
 * of its repositories: a git folder by its HEAD, a `.git` file by its name.
 */
function scan(workspace: string, depth: number): Promise<string[]> {
  const globs: string[] = [];
  for (const f of PROTECTED_FILES) globs.push("--iglob", f);
  for (const f of PROTECTED_PATHS) globs.push("--iglob", `**/${f}`);
  for (const d of PROTECTED_DIRS) globs.push("--iglob", `**/${d}/**`);
  globs.push("--iglob", "**/.git/hooks/**", "--iglob", "**/.git/HEAD", "--iglob", "**/.git/config", "--iglob", "**/.git");
  const args = ["--files", "--hidden", "--no-ignore", "--no-config", "--max-depth", String(depth + 1), ...globs, "-g", "!**/node_modules/**"];
  return new Promise((resolve) => {
    execFile(
      "rg",
      args,
      { cwd: workspace, timeout: NODE_SANDBOX.protectScanTimeoutMs, maxBuffer: 16 * 1024 * 1024, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      // Exit 1: nothing found; exit 2 (a folder it could not read) or a timeout: what it listed still counts.
      (_err, stdout) => resolve(String(stdout ?? "").split("\n").filter((l) => l !== "")),
    );
  });
}

/** What the OS sandbox keeps read-only for one shell or job, and what the sweeps look after (protect-sweep.ts). */
export interface ProtectionPlan {
  /** Absolute paths for the library's denyWrite, most dangerous first, within NODE_SANDBOX.maxProtectMounts. */
  paths: string[];
  /** Protected paths that did not fit, most dangerous first: writable inside this shell or job. */
  leftOut: string[];
  /** The workspace's git folders that were found (its own and nested repositories'), by path. */
  gitDirs: string[];
  /** `.git` files that were found (each names the repository git uses in its folder). */
  gitFiles: string[];
  /** Paths a repository's configuration names (hooks folders, included files, programs): the file tools refuse them. */
  named: string[];
  /** Empty files made on the host to be kept read-only (a missing `config.worktree` git reads). */
  created: string[];
}

interface Candidate {
  path: string;
  /**
   * 0: the workspace's own names and git files; 1: what its config names; 2: nested repositories the look found;
   * 3: nested names; 4: repositories deeper or under node_modules (protect-repos.ts).
   */
  rank: number;
  depth: number;
}

/**
 * The workspace's paths the OS sandbox keeps read-only (absolute; a missing one is made uncreatable by the library):
 * the protected files and folders at its top, its repositories' git files (protect-git.ts: config, hooks,
 * config.worktree, info, modules, worktrees, an existing commondir; a `.git` file) and what their configuration names,
 * and the protected names of nested folders ripgrep finds down to `depth` (NODE_SANDBOX.protectScanDepth), as the
 * library does for its working directory. Bounded by `maxMounts`, the most dangerous first (see the top of the file).
 */
export async function planProtection(
  workspace: string,
  opts: { depth?: number; maxMounts?: number; hostHome?: string; repos?: readonly string[] } = {},
): Promise<ProtectionPlan> {
  const depth = opts.depth ?? NODE_SANDBOX.protectScanDepth;
  const hostHome = opts.hostHome ?? homedir();
  const candidates: Candidate[] = [];
  const add = (path: string, rank: number): void => {
    const p = normalizePath(path);
    if (p !== workspace && isInside(p, workspace)) candidates.push({ path: p, rank, depth: rel(workspace, p).split("/").length });
  };
  for (const f of [...PROTECTED_FILES, ...PROTECTED_PATHS]) add(joinPath(workspace, f), 0);
  for (const d of PROTECTED_DIRS) add(joinPath(workspace, d), 0);

  // Repositories: the workspace's own, nested ones (a git folder by its HEAD), and `.git` files anywhere the look goes.
  const found = await scan(workspace, depth);
  /** Each git folder, with the top of its working tree (where git runs hooks and resolves a relative hooksPath). */
  const gitDirs = new Map<string, string | null>();
  const gitFiles = new Set<string>();
  const top = joinPath(workspace, ".git");
  const topKind = kind(top);
  if (topKind === "dir") gitDirs.set(top, workspace);
  if (topKind === "file") gitFiles.add(top);
  const nestedNames: Candidate[] = [];
  for (const match of found) {
    const parts = match.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.some((p) => p === "..")) continue;
    const dotGit = parts.findIndex((p) => p.toLowerCase() === ".git");
    if (dotGit >= 0) {
      const path = joinPath(workspace, parts.slice(0, dotGit + 1).join("/"));
      if (dotGit === parts.length - 1) gitFiles.add(path);
      else if (kind(path) === "dir") gitDirs.set(path, parentOf(path));
      continue;
    }
    const part = protectedPart(parts);
    // As deep as the library goes: a folder-wide name one level less deep than a file (each costs mounts).
    if (part === null || part.at > depth - (part.folder ? 2 : 1)) continue;
    const path = joinPath(workspace, part.part);
    nestedNames.push({ path, rank: 3, depth: part.at + 1 });
  }

  // Git folders found at any depth (protect-repos.ts: deeper than the look, under node_modules, not named .git),
  // ranked after the ones the look found.
  const deep = new Set<string>();
  for (const dir of opts.repos ?? []) {
    const path = normalizePath(dir);
    if (gitDirs.has(path) || !isInside(path, workspace) || kind(path) !== "dir") continue;
    gitDirs.set(path, baseName(path) === ".git" ? parentOf(path) : path);
    deep.add(path);
  }

  // A `.git` file's repository, when it lies in the workspace outside the git folders already known, is one too.
  for (const file of gitFiles) {
    add(file, file === top ? 0 : 2);
    const target = gitFileTarget(file);
    const known = [...gitDirs.keys()];
    if (target !== null && isInside(target, workspace) && !known.some((g) => isInside(target, g)) && kind(target) === "dir") gitDirs.set(target, parentOf(file));
  }

  const hostEntries = await hostConfigEntries(hostHome);
  const named: string[] = [];
  const created: string[] = [];
  const dirs = [...gitDirs.keys()].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  await Promise.all(
    dirs.map(async (gitDir) => {
      const isTop = gitDirs.get(gitDir) === workspace && baseName(gitDir) === ".git";
      const rank = isTop ? 0 : deep.has(gitDir) ? 4 : 2;
      // `config` always (the library's stand-in when missing); the folders always (a missing one as an empty
      // read-only folder: the library makes one for a name that has a protected name inside it).
      add(joinPath(gitDir, "config"), rank);
      for (const name of GIT_DIR_FOLDERS) add(joinPath(gitDir, kind(joinPath(gitDir, name)) === null ? `${name}/${STAND_IN_CHILD}` : name), rank);
      for (const name of GIT_DIR_NAMES_IF_PRESENT) if (kind(joinPath(gitDir, name)) !== null) add(joinPath(gitDir, name), rank);
      const own = await repoConfigEntries(gitDir, hostHome);
      // Set at all and not plainly off: git reads config.worktree. The library's stand-in for a missing file is
      // unreadable, which stops git ("unable to access"), so a missing one is made empty (no setting: what git reads
      // when there is none) and kept read-only; `created` says so, for removal at close when still empty.
      if (own.some((e) => e.key === "extensions.worktreeconfig" && !/^(false|no|off|0+)$/i.test(e.value ?? "true"))) {
        const file = joinPath(gitDir, "config.worktree");
        if (kind(file) === null) {
          try {
            writeFileSync(file, "", { flag: "wx", mode: 0o644 }); // O_EXCL: never through a link planted there
            created.push(file);
          } catch {
            // made meanwhile, or not ours to make: protected as found
          }
        }
        add(file, rank);
      }
      const root = gitDirs.get(gitDir) ?? gitDir;
      const entries = [...hostEntries, ...own];
      for (const ref of await configRefs(entries, root, hostHome)) {
        if (!isInside(ref.path, workspace) || ref.path === workspace) continue;
        named.push(ref.path);
        add(ref.path, isTop ? 1 : rank);
      }
    }),
  );
  candidates.push(...nestedNames);

  // Ranked, then shallower first; each costs its own mount and one for every folder above it that is not yet pinned.
  candidates.sort((a, b) => a.rank - b.rank || a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const budget = opts.maxMounts ?? NODE_SANDBOX.maxProtectMounts;
  const chosen = new Set<string>();
  const pinned = new Set<string>();
  const leftOut: string[] = [];
  let mounts = 0;
  for (const c of candidates) {
    if (chosen.has(c.path)) continue;
    const above: string[] = [];
    for (let d = parentOf(c.path); d !== workspace && isInside(d, workspace) && !pinned.has(d); d = parentOf(d)) above.push(d);
    if (mounts + 1 + above.length > budget) {
      leftOut.push(c.path);
      continue;
    }
    mounts += 1 + above.length;
    chosen.add(c.path);
    for (const d of above) pinned.add(d);
  }
  return { paths: [...chosen], leftOut: [...new Set(leftOut)].filter((p) => !chosen.has(p)), gitDirs: dirs, gitFiles: [...gitFiles], named: [...new Set(named)], created };
}

/** The paths alone (as planProtection gives them). */
export async function protectedWritePaths(workspace: string, depth: number = NODE_SANDBOX.protectScanDepth): Promise<string[]> {
  return (await planProtection(workspace, { depth })).paths;
}

/**
 * git's user-wide files for the sandboxed shell, in its private temp folder (`GIT_CONFIG_GLOBAL`, set inside the
 * sandbox): HOME is the workspace, whose `.gitconfig` is kept read-only, so `git config --global` writes here. And
 * where a protected name was missing, the library stands an unreadable placeholder in for it while the shell runs
 * (a character device git cannot add: `git add -A` would fail on it), so the excludes file names them, anchored at a
 * repository's top (the workspace, when it is one). The config is made once (the shell may change it); the excludes
 * file lies in `readOnlyDir`, which the shell reads by the same path and cannot write, when there is one.
 */
export async function ensureGitFiles(fs: RuntimeFs, tempDir: string, innerTemp: string, readOnlyDir?: string): Promise<void> {
  const config = joinPath(tempDir, ".gitconfig");
  const excludes = readOnlyDir !== undefined ? joinPath(readOnlyDir, ".gitignore-placeholders") : joinPath(tempDir, ".gitignore-placeholders");
  const innerExcludes = readOnlyDir !== undefined ? excludes : joinPath(innerTemp, ".gitignore-placeholders");
  if ((await fs.stat(excludes)) === null) {
    const names = [...PROTECTED_FILES, ...[...PROTECTED_PATHS, ...PROTECTED_DIRS].map((d) => d.split("/")[0]!)];
    await fs.writeFile(excludes, [...new Set(names)].map((n) => `/${n}\n`).join(""), { mode: 0o600 });
  }
  if ((await fs.stat(config)) === null) {
    await fs.writeFile(config, `[core]\n\texcludesFile = ${innerExcludes}\n`, { mode: 0o600 });
  }
}
