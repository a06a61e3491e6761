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
// And repositories the shell made (protect-repos.ts), found by a bounded look at any depth at the same starts and
// at close: a git folder not named `.git` (a folder filled with HEAD, objects/ and refs/, which git on the host would
// use for every folder below it) is disabled at once (its HEAD renamed); a `.git` folder made during the session
// (`git init sub`) is left working for the session and, at close, has a config that runs programs and hooks moved
// aside. Repositories there when the sandbox opened are the person's: never touched, protected as mounts allow.

import { lstatSync, rmSync, watch, type FSWatcher } from "node:fs";
import { NODE_SANDBOX } from "../../limits.ts";
import { baseName, isInside, joinPath, parentOf } from "../../lib/paths.ts";
import { gitFileTarget } from "./protect-git.ts";
import { disableGitDir, disarmRepository, findGitDirs, moveAside, runnableFingerprint, SEQUENCER_STATES, todoRunsPrograms } from "./protect-repos.ts";
import type { ProtectionPlan } from "./protect.ts";

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A folder's device and inode (`?` when gone). */
function identity(path: string): string {
  try {
    const s = lstatSync(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return "?";
  }
}

export class RepoSweeper {
  /** Git folders seen, and whether each had a `commondir` when the sandbox opened (the person's: read-only inside). */
  private readonly gitDirs = new Map<string, boolean>();
  /** `.git` files there when the sandbox opened (its first look): the person's. */
  private knownGitFiles: Set<string> | null = null;
  private watcher: FSWatcher | null = null;
  /** Git folders (any name, any depth) there when the sandbox opened, or taken for the person's (see `look`). */
  private knownRepos: Map<string, string> | null = null;
  /** Whether the first look saw the whole workspace (else a repository it did not see is new only if made since). */
  private firstLookWhole = true;
  /** What could run programs in each repository of the first look (config, hooks), to tell a change at close. */
  private readonly fingerprints = new Map<string, string>();
  /** Those of them that were writable inside at some start (left out of the profile, or not found by a cut look). */
  private readonly exposed = new Set<string>();
  /** `.git` folders made during the session: disarmed at close (`disarmMade`). */
  private readonly madeRepos = new Set<string>();
  private readonly openedAt = Date.now();
  /** Rebase or cherry-pick states (`<git folder>/rebase-merge`, `…/sequencer`) there when the sandbox opened. */
  private readonly knownStates = new Set<string>();
  private toldNotLooked = "";

  constructor(
    private readonly workspace: string,
    private readonly writable: readonly string[],
    private readonly onRemoved: (path: string, why: string) => void,
    private readonly onNotice: (message: string) => void = () => undefined,
    private readonly maxEntries: number = NODE_SANDBOX.maxSweepEntries,
  ) {}

  /**
   * Looks for every git folder in the workspace (bounded: NODE_SANDBOX.maxSweepEntries entries). The first look
   * remembers them (the person's); later, a new one not named `.git` is disabled at once (its HEAD renamed: git would
   * use it for every folder below it), and a new `.git` folder is remembered for `disarmMade` at close. Returns the
   * git folders git may use (the person's and the session's `.git` folders), for planProtection to keep read-only.
   */
  async look(maxEntries: number = this.maxEntries): Promise<string[]> {
    const found = await findGitDirs(this.workspace, maxEntries);
    if (found.notLooked.length > 0) {
      const key = `${found.notLooked.length}:${found.notLooked[0]}`;
      if (key !== this.toldNotLooked) {
        this.toldNotLooked = key;
        const rel = (p: string) => (p === this.workspace ? "." : p.slice(this.workspace.length + 1));
        this.onNotice(
          `The look for repositories the shell made stopped after ${maxEntries} folder entries (its bound): ` +
            `${found.notLooked.length} folders were not looked in, e.g. ${found.notLooked.slice(0, 3).map(rel).join(", ")}. ` +
            "A repository there is neither protected nor checked; check it before running git in it on the host.",
        );
      }
    }
    if (this.knownRepos === null) {
      this.knownRepos = new Map(found.gitDirs.map((d) => [d, identity(d)]));
      for (const d of found.gitDirs) this.fingerprints.set(d, runnableFingerprint(d));
      this.firstLookWhole = found.notLooked.length === 0;
      return found.gitDirs;
    }
    const usable: string[] = [];
    const seen = new Set(found.gitDirs);
    for (const dir of this.fingerprints.keys()) if (!seen.has(dir)) this.exposed.add(dir);
    for (const dir of found.gitDirs) {
      // By path and by identity: a folder of the person's moved away and a new repository made in its place is new.
      if (this.knownRepos.get(dir) === identity(dir)) {
        usable.push(dir);
        continue;
      }
      if (!this.firstLookWhole && !this.madeSinceOpen(dir)) {
        this.knownRepos.set(dir, identity(dir)); // not seen by a cut first look, and older than the sandbox: the person's
        usable.push(dir);
        continue;
      }
      if (baseName(dir) === ".git") {
        this.madeRepos.add(dir);
        usable.push(dir);
        continue;
      }
      const to = disableGitDir(dir);
      if (to !== null) {
        this.onNotice(
          `Disabled ${dir}: it was made a repository inside the sandbox (HEAD, objects/ and refs/ in a folder not named .git), which git on the host would use in every folder below it; ` +
            `its HEAD was renamed ${baseName(to)} (rename it back to use it).`,
        );
      }
    }
    return usable;
  }

  /**
   * At close: every `.git` folder made during the session whose config sets anything that runs a program (or anything
   * but plain settings) has that config moved aside and rewritten with the plain settings, and a hooks folder with
   * hooks moved aside; each is said.
   */
  disarmMade(): void {
    const rel = (p: string) => p.slice(this.workspace.length + 1) || ".";
    const made = [...this.madeRepos].filter((d) => lstatSync(d, { throwIfNoEntry: false })?.isDirectory() === true);
    if (made.length > 0) {
      this.onNotice(
        `Repositories made inside the sandbox during this session: ${made.slice(0, 10).map(rel).join(", ")}${made.length > 10 ? ` and ${made.length - 10} more` : ""}. ` +
          "Anything in their config or hooks that could run a program was moved aside; treat them as the agent's work.",
      );
    }
    // The person's repositories whose config or hooks changed all the same (left out of the profile's mounts, or
    // past the look's bound at a start): what could run a program is moved aside, as for a repository made here.
    for (const [dir, before] of this.fingerprints) {
      if (!this.exposed.has(dir) || this.madeRepos.has(dir) || runnableFingerprint(dir) === before) continue;
      for (const [from, to] of disarmRepository(dir)) {
        this.onNotice(
          `Moved ${from} aside: the config or hooks of ${rel(dir)} changed while the sandbox ran (it was writable inside: not in the OS sandbox's profile) and could run programs in git on the host; moved to ${baseName(to)}.`,
        );
      }
    }
    for (const dir of this.madeRepos) {
      for (const [from, to] of disarmRepository(dir)) {
        this.onNotice(
          `Moved ${from} aside: the repository ${dir.slice(this.workspace.length + 1) || "."} was made inside the sandbox and its ${baseName(from)} could run programs in git on the host; ` +
            `moved to ${baseName(to)}${baseName(from) === "config" ? " (a config with its plain settings, such as remotes and branches, was written in its place)" : ""}.`,
        );
      }
    }
  }

  /**
   * At close: a rebase or cherry-pick left in progress that was not when the sandbox opened, whose todo list runs a
   * program (`exec` lines, which the person's `git rebase --continue` runs on the host), is moved aside; any other
   * such state is said.
   */
  checkStates(): void {
    for (const [dir] of this.gitDirs) {
      for (const [state, todo] of SEQUENCER_STATES) {
        const path = joinPath(dir, state);
        if (this.knownStates.has(path) || !exists(path)) continue;
        const where = path.slice(this.workspace.length + 1);
        if (todoRunsPrograms(dir, state, todo)) {
          const to = moveAside(path);
          if (to !== null) {
            this.onNotice(
              `Moved ${path} aside: a ${state === "sequencer" ? "cherry-pick or revert" : "rebase"} left in progress inside the sandbox has exec lines, which git on the host would run at --continue; moved to ${baseName(to)}.`,
            );
          }
        } else {
          this.onNotice(`A ${state === "sequencer" ? "cherry-pick or revert" : "rebase"} was left in progress inside the sandbox (${where}): check it before you continue it on the host.`);
        }
      }
    }
  }

  private madeSinceOpen(dir: string): boolean {
    for (const name of ["", "HEAD", "objects", "refs", "commondir", "config"]) {
      try {
        if (lstatSync(name === "" ? dir : joinPath(dir, name)).ctimeMs >= this.openedAt) return true;
      } catch {
        // not there
      }
    }
    return false;
  }

  /** Protected paths a start left writable (sandbox.ts): a person's repository among them is checked at close. */
  leftOut(paths: readonly string[]): void {
    for (const dir of this.fingerprints.keys()) {
      const config = joinPath(dir, "config");
      const hooks = joinPath(dir, "hooks");
      if (paths.some((p) => p === config || isInside(p, hooks) || p === joinPath(dir, "config.worktree"))) this.exposed.add(dir);
    }
  }

  /** Takes in a fresh look at the workspace (planProtection), removes new `.git` files, then sweeps. */
  learn(plan: ProtectionPlan): void {
    // A commondir counts as the person's only in a git folder of the first look (it is read-only inside then).
    const known = this.knownGitFiles;
    for (const dir of plan.gitDirs) {
      if (this.gitDirs.has(dir)) continue;
      this.gitDirs.set(dir, known === null && exists(joinPath(dir, "commondir")));
      if (known === null) for (const [state] of SEQUENCER_STATES) if (exists(joinPath(dir, state))) this.knownStates.add(joinPath(dir, state));
    }
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
      // A repository made during the session: its worktrees and modules are writable, so only a linked worktree's
      // own folder (checked at close: disarmRepository) or a submodule's repository counts.
      if (this.madeRepos.has(dir)) {
        if (parentOf(target) === joinPath(dir, "worktrees") || isInside(target, joinPath(dir, "modules"))) return true;
        continue;
      }
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
