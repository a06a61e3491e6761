// What the OS sandbox cannot keep read-only, removed instead. Two files send git on the host to another repository's
// config and hooks, and neither can be stood in for by a read-only placeholder:
//   - `commondir` in a git folder (git reads one when it is there, so a placeholder would stop git, on the host too);
//   - a `.git` FILE (`gitdir: …`) in any folder: git run in that folder uses the repository it names, and it may be
//     made in any folder at any time.
// So a `commondir` that appears in a git folder that had none, and a `.git` file that was not there when the sandbox
// opened and names a git folder the shell can write, are removed, and `onRemoved` says so. When:
//   - a watcher on the workspace's `.git` folder removes a `commondir` there at once (the fast path; inotify can drop
//     events when its queue overflows, so it is not the only one);
//   - every command's end (`sweep`, a few `lstat`s) removes a `commondir` in every git folder known;
//   - every start of a shell or job, and the sandbox's close (`learn` with a fresh look at the workspace), also remove
//     new `.git` files (finding them takes ripgrep's look, too slow for every command).

import { lstatSync, rmSync, watch, type FSWatcher } from "node:fs";
import { isInside, joinPath } from "../lib/paths.ts";
import { gitFileTarget } from "./node-protect-git.ts";
import type { ProtectionPlan } from "./node-protect.ts";

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export class RepoSweeper {
  /** Git folders seen, and whether each had a `commondir` when the sandbox opened (the person's: read-only inside). */
  private readonly gitDirs = new Map<string, boolean>();
  /** `.git` files there when the sandbox opened (its first look): the person's. */
  private knownGitFiles: Set<string> | null = null;
  private watcher: FSWatcher | null = null;

  constructor(
    private readonly workspace: string,
    private readonly writable: readonly string[],
    private readonly onRemoved: (path: string, why: string) => void,
  ) {}

  /** Takes in a fresh look at the workspace (planProtection), removes new `.git` files, then sweeps. */
  learn(plan: ProtectionPlan): void {
    // A commondir counts as the person's only in a git folder of the first look (it is read-only inside then).
    const known = this.knownGitFiles;
    for (const dir of plan.gitDirs) if (!this.gitDirs.has(dir)) this.gitDirs.set(dir, known === null && exists(joinPath(dir, "commondir")));
    if (known === null) {
      this.knownGitFiles = new Set(plan.gitFiles);
    } else {
      for (const file of plan.gitFiles) if (!known.has(file) && !this.leadsWhereShellCannotWrite(file)) this.remove(file, "gitfile");
    }
    this.sweep();
  }

  /** Removes a `commondir` that appeared in a git folder that had none. Cheap (an lstat per git folder). */
  sweep(): void {
    for (const [dir, had] of this.gitDirs) {
      if (had) continue;
      const target = joinPath(dir, "commondir");
      if (exists(target)) this.remove(target, "commondir");
    }
  }

  /** Watches the workspace's own `.git` folder for a new `commondir` (the fast path). */
  watch(): void {
    const git = joinPath(this.workspace, ".git");
    let isDir = false;
    try {
      isDir = lstatSync(git).isDirectory();
    } catch {
      // no repository at the top
    }
    if (!isDir || this.watcher !== null) return;
    if (!this.gitDirs.has(git)) this.gitDirs.set(git, exists(joinPath(git, "commondir")));
    try {
      this.watcher = watch(git, { persistent: false }, (_event, name) => {
        if (name === null || String(name) === "commondir") this.sweep();
      });
      this.watcher.on("error", () => undefined);
    } catch {
      // cannot watch (no inotify left): the sweeps at every command's end still run
    }
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  /**
   * A new `.git` file is left alone only when the git folder it names is one the shell cannot write: outside the
   * workspace and the sandbox's temp folder, or a linked worktree's or submodule's folder in a repository the sandbox
   * knew (`.git/worktrees`, `.git/modules`: read-only inside).
   */
  private leadsWhereShellCannotWrite(file: string): boolean {
    const target = gitFileTarget(file);
    if (target === null) return false;
    if (!this.writable.some((d) => isInside(target, d))) return true;
    for (const [dir] of this.gitDirs) {
      if (isInside(target, joinPath(dir, "worktrees")) || isInside(target, joinPath(dir, "modules"))) return true;
    }
    return false;
  }

  private remove(path: string, why: "commondir" | "gitfile"): void {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      return; // gone meanwhile, or not ours to remove
    }
    this.onRemoved(
      path,
      why === "commondir"
        ? "a .git/commondir file would make git on the host read another folder's config and hooks"
        : "a .git file made inside the sandbox would make git on the host, in that folder, use a repository whose config and hooks the shell wrote",
    );
  }
}
