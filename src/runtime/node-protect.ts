// Files in the workspace that configure what runs later OUTSIDE the sandbox: git hooks and a repository's config (the
// person's `git commit` or `git status` on the host runs a planted hook or `core.fsmonitor`), shell startup files,
// editor and agent settings (.vscode, .idea, .mcp.json, .claude/commands, .claude/settings.json), pre-commit's and
// direnv's and a dev container's commands. @anthropic-ai/sandbox-runtime keeps these
// read-only, but only under the HOST process's working directory (it resolves them against process.cwd()), never
// under the workspace Sandshell gives the shell. So the node runtime names them itself, resolved in the workspace, as
// denyWrite entries (node-sandbox.ts), and the file tools, which write from the host, refuse the same paths
// (protectedWriteReason). The lists are the library's (DANGEROUS_FILES, getDangerousDirectories: a test compares) and
// Sandshell's additions, in src/lib/protected.ts, which the guard reads too.
//
// A `.git` that `git init` or `git clone` makes in a running shell is not known when that shell started, so its hooks
// and config are writable from that shell until it is started again (a background job started later is covered); the
// file tools refuse them at once. docs/sandbox.md says what this costs honest git work.

import { execFile } from "node:child_process";
import { lstatSync, rmSync, watch, type FSWatcher } from "node:fs";
import { NODE_SANDBOX } from "../limits.ts";
import { isInside, joinPath, normalizePath } from "../lib/paths.ts";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS } from "../lib/protected.ts";
import type { RuntimeFs } from "./types.ts";

export { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS };

const FILES = new Set<string>(PROTECTED_FILES);
/**
 * Files in a `.git` folder that decide which config and hooks git runs: `config`; `commondir`, which sends git to
 * another folder's config and hooks (a linked worktree's, or one the agent made: the library leaves it writable);
 * `config.worktree`.
 */
const GIT_FILES = new Set(["config", "commondir", "config.worktree"]);
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
      if (lower[i + 1] === "hooks" || lower[i + 1] === "modules" || lower[i + 1] === "worktrees") return upTo(i, 2, true);
      if (GIT_FILES.has(lower[i + 1]!) && i + 2 === lower.length) return upTo(i, 2, true);
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
 * Why a write to `path` (a real path) is refused because the OS sandbox keeps it read-only, or null. At any depth in
 * the workspace, and whether or not the file or its repository exists yet: the file tools run on the host, outside
 * the sandbox, and must not write what the shell may not.
 */
export function protectedWriteReason(workspace: string, path: string): string | null {
  const p = normalizePath(path);
  if (p === workspace || !isInside(p, workspace)) return null;
  const found = protectedPart(p.slice(workspace.length + (workspace.endsWith("/") ? 0 : 1)).split("/"));
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

/** ripgrep's listing of the workspace's protected names, relative, down to `depth` folders (as the library scans). */
function scan(workspace: string, depth: number): Promise<string[]> {
  const globs: string[] = [];
  for (const f of PROTECTED_FILES) globs.push("--iglob", f);
  for (const f of PROTECTED_PATHS) globs.push("--iglob", `**/${f}`);
  for (const d of PROTECTED_DIRS) globs.push("--iglob", `**/${d}/**`);
  globs.push("--iglob", "**/.git/hooks/**", "--iglob", "**/.git/HEAD", "--iglob", "**/.git/config");
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

/**
 * The workspace's paths the OS sandbox keeps read-only (absolute; a missing one is made uncreatable by the library):
 * the protected files and folders at its top, its repository's hooks and config (or a `.git` file), and those of
 * nested repositories and folders ripgrep finds down to NODE_SANDBOX.protectScanDepth, as the library does for its
 * working directory. `.git/config` is protected, as the library does by default (allowGitConfig false).
 */
export async function protectedWritePaths(workspace: string, depth: number = NODE_SANDBOX.protectScanDepth): Promise<string[]> {
  const out = new Set<string>();
  for (const f of [...PROTECTED_FILES, ...PROTECTED_PATHS]) out.add(joinPath(workspace, f));
  for (const d of PROTECTED_DIRS) out.add(joinPath(workspace, d));
  const git = joinPath(workspace, ".git");
  const gitKind = kind(git);
  if (gitKind === "file") out.add(git);
  if (gitKind === "dir") {
    out.add(joinPath(git, "hooks"));
    out.add(joinPath(git, "config"));
    // Only where they exist: a stand-in for a missing `commondir` would stop git from reading the repository (it
    // reads the file when there is one), on the host too. A missing one is removed when it appears (watchCommondir).
    for (const name of ["commondir", "config.worktree"]) if (kind(joinPath(git, name)) !== null) out.add(joinPath(git, name));
    // Submodules' and linked worktrees' folders: their config, hooks and pointers are those of repositories too.
    for (const admin of ["modules", "worktrees"]) if (kind(joinPath(git, admin)) === "dir") out.add(joinPath(git, admin));
  }
  for (const match of await scan(workspace, depth)) {
    const parts = match.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.some((p) => p === "..")) continue;
    // A repository is known by its HEAD: its hooks are protected before there are any.
    const head = parts.length >= 2 && parts.at(-1)!.toLowerCase() === "head" && parts.at(-2)!.toLowerCase() === ".git";
    const found = protectedPart(head ? [...parts.slice(0, -1), "hooks"] : parts);
    // As deep as the library goes: a folder-wide name one level less deep than a file (each costs mounts).
    if (found === null || found.at > depth - (found.folder ? 2 : 1)) continue;
    out.add(joinPath(workspace, found.part));
    if (found.part.toLowerCase().endsWith(".git/hooks")) out.add(joinPath(workspace, `${found.part.slice(0, -"hooks".length)}config`));
  }
  return [...out];
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

/**
 * A `.git/commondir` file sends git to another folder for its config and hooks, so a shell that writes one (the
 * folder is writable: git writes its objects, refs and index there) would make the person's next `git status` on the
 * host run a config the agent wrote. A stand-in for it would stop git from reading the repository at all, so instead
 * the workspace's repository is watched: a `commondir` there (never part of a repository's own `.git` folder) is
 * removed at once, and `onRemoved` told. Also one found when watching starts. Returns the way to stop watching.
 */
export function watchCommondir(workspace: string, onRemoved: (path: string) => void): () => void {
  const git = joinPath(workspace, ".git");
  if (kind(git) !== "dir") return () => undefined;
  const target = joinPath(git, "commondir");
  const sweep = (): void => {
    if (kind(target) === null) return;
    try {
      rmSync(target, { recursive: true, force: true });
      onRemoved(target);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  };
  sweep();
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(git, { persistent: false }, (_event, name) => {
      if (name === null || String(name) === "commondir") sweep();
    });
    watcher.on("error", () => undefined);
  } catch {
    // cannot watch (no inotify left): the sweep at each start still runs
  }
  return () => watcher?.close();
}
