// What git on the host reads from a repository besides its own data, and so what the OS sandbox keeps read-only in
// the workspace's repositories (protect.ts plans the mounts). Git runs code from a repository's configuration
// (`core.fsmonitor`, aliases, filters, `core.sshCommand`, …) and from its hooks, and it finds both in more places
// than `.git/config` and `.git/hooks`:
//   - `.git/config.worktree` (read when `extensions.worktreeConfig` is on), `.git/commondir` (sends git to another
//     folder's config and hooks), `.git/worktrees/*` and `.git/modules/*` (linked worktrees' and submodules' own
//     repositories: git run in one reads them), `.git/info` (attributes that pick the config's drivers);
//   - what the configuration names: `core.hooksPath` (husky and others keep hooks in a tracked folder), the files
//     `include.path` and `includeIf.*.path` pull in, and programs a value names by a path in the repository
//     (`core.fsmonitor = ./watch.sh`, `alias.x = !./scripts/x.sh`);
//   - a `.git` FILE, in any folder, which names the repository git uses there (`gitdir: …`).
//
// The configuration is read with git itself (`git config --file F --null --list`, never with the repository's own
// discovery), so what is found is what git on the host reads, whatever the spelling. Included files are followed
// whatever their condition (`includeIf`), so a file that applies only on the host is kept read-only too.

import { execFile } from "node:child_process";
import { lstatSync, readFileSync, statSync } from "node:fs";
import { NODE_SANDBOX } from "../../limits.ts";
import { baseName, isInside, normalizePath, parentOf, resolvePath } from "../../lib/paths.ts";

/**
 * Folders at the top of a git folder that hold other repositories git reads (linked worktrees', submodules'): read-only
 * inside; a missing one is stood in for by an empty read-only folder (protect.ts), so none can be made.
 */
export const GIT_DIR_FOLDERS = ["hooks", "modules", "worktrees"] as const;
/**
 * Names read-only where they exist, with no stand-in when missing: `config`'s is a stand-in anyway (the library's);
 * `commondir` (sends git to another folder's config and hooks) would stop git if stood in for (it reads one when there
 * is one), so a new one is removed instead (protect-sweep.ts); `info` (attributes that pick the config's
 * drivers), `remotes` and `branches` (old ways of naming remotes) are made by `git init` when at all.
 * `config.worktree` is read only with `extensions.worktreeConfig` on, which only the repository's config can turn on:
 * then it is stood in for too.
 */
export const GIT_DIR_NAMES_IF_PRESENT = ["config", "commondir", "config.worktree", "info", "remotes", "branches"] as const;

export type RefKind = "hooks" | "include" | "program";

/** A path the configuration names, absolute, and why. */
export interface ConfigRef {
  path: string;
  kind: RefKind;
  /** The config file that named it. */
  from: string;
}

export interface Entry {
  origin: string;
  key: string;
  value: string | null;
}

const cache = new Map<string, { stamp: string; entries: Entry[] }>();

function stampOf(file: string): string | null {
  try {
    const s = statSync(file);
    return s.isFile() ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : null;
  } catch {
    return null;
  }
}

/** git's reading of config entries from `git config … --null --list` (with `--show-origin` when `origin` is null). */
export function parseConfigList(text: string, origin: string | null): Entry[] {
  const out: Entry[] = [];
  const fields = text.split("\0");
  let from = origin ?? "";
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f === "") continue;
    if (origin === null && f.startsWith("file:")) {
      from = f.slice("file:".length);
      continue;
    }
    if (origin === null && /^(?:blob|command line|standard input):/.test(f)) continue;
    const nl = f.indexOf("\n");
    out.push({ origin: from, key: (nl < 0 ? f : f.slice(0, nl)).toLowerCase(), value: nl < 0 ? null : f.slice(nl + 1) });
  }
  return out;
}

function gitConfig(args: string[], hostHome: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["config", ...args, "--null", "--list"],
      {
        cwd: "/",
        timeout: NODE_SANDBOX.protectScanTimeoutMs,
        maxBuffer: 4 * 1024 * 1024,
        // No repository is discovered from "/"; HOME and XDG_CONFIG_HOME say where the host's user-wide config is.
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: hostHome,
          ...(process.env.XDG_CONFIG_HOME !== undefined ? { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } : {}),
          GIT_CEILING_DIRECTORIES: "/",
        },
      },
      // Not there, not a config file, or no git on the host: nothing it names.
      (_err, stdout) => resolve(String(stdout ?? "")),
    );
  });
}

/** The entries of one config file (cached by the file's identity, size and times). */
export async function fileEntries(file: string, hostHome: string): Promise<Entry[]> {
  const stamp = stampOf(file);
  if (stamp === null) return [];
  const hit = cache.get(file);
  if (hit !== undefined && hit.stamp === stamp) return hit.entries;
  const entries = parseConfigList(await gitConfig(["--file", file], hostHome), file);
  if (cache.size > 256) cache.clear();
  cache.set(file, { stamp, entries });
  return entries;
}

/** The host's user-wide and system config (what applies to every repository the person has). */
export async function hostConfigEntries(hostHome: string): Promise<Entry[]> {
  const [global, system] = await Promise.all([gitConfig(["--global", "--show-origin"], hostHome), gitConfig(["--system", "--show-origin"], hostHome)]);
  return [...parseConfigList(system, null), ...parseConfigList(global, null)];
}

/** `~/x` on the host, or a path relative to `base`. */
function expand(path: string, base: string, hostHome: string): string | null {
  if (path === "") return null;
  if (path === "~" || path.startsWith("~/")) return normalizePath(hostHome + path.slice(1));
  if (path.startsWith("~") || path.startsWith("%(prefix)/")) return null; // another user's home; git's install prefix
  return resolvePath(path, base);
}

/** Words of a value that could be a program or file in the repository: those with a `/`, quotes and a leading `!` off. */
function pathWords(value: string): string[] {
  const out: string[] = [];
  for (const raw of value.replace(/^!/, "").split(/[\s;&|()<>`]+/)) {
    const w = raw.replace(/^["']+|["']+$/g, "");
    if (w.includes("/") && !w.includes("://") && !/^[\w.-]+@[\w.-]+:/.test(w)) out.push(w);
  }
  return out;
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * What the config entries name for a repository whose top is `root`: hooks folders (and, for husky's `…/_`, the
 * folder above it, whose files its hooks run), included files (followed, whatever their condition: up to
 * NODE_SANDBOX.maxConfigFiles files), and existing files named by a path in any value.
 */
export async function configRefs(entries: Entry[], root: string, hostHome: string, seen: Set<string> = new Set()): Promise<ConfigRef[]> {
  const refs: ConfigRef[] = [];
  const queue: Entry[] = [...entries];
  while (queue.length > 0) {
    const e = queue.shift()!;
    if (e.value === null) continue;
    if (e.key === "core.hookspath") {
      const dir = expand(e.value, root, hostHome);
      if (dir === null) continue;
      refs.push({ path: dir, kind: "hooks", from: e.origin });
      // husky 9: hooksPath `.husky/_`, whose generated hooks run `.husky/<hook>`; the files that really run.
      if (baseName(dir) === "_") refs.push({ path: parentOf(dir), kind: "hooks", from: e.origin });
      continue;
    }
    if (e.key === "include.path" || (e.key.startsWith("includeif.") && e.key.endsWith(".path"))) {
      const file = expand(e.value, parentOf(e.origin || root), hostHome);
      if (file === null) continue;
      refs.push({ path: file, kind: "include", from: e.origin });
      if (!seen.has(file) && seen.size < NODE_SANDBOX.maxConfigFiles) {
        seen.add(file);
        queue.push(...(await fileEntries(file, hostHome)));
      }
      continue;
    }
    for (const word of pathWords(e.value)) {
      const file = expand(word, root, hostHome);
      if (file !== null && isFile(file)) refs.push({ path: file, kind: "program", from: e.origin });
    }
  }
  return refs;
}

/** The config entries of the repository whose git folder is `gitDir`: its config and config.worktree. */
export async function repoConfigEntries(gitDir: string, hostHome: string): Promise<Entry[]> {
  const [config, worktree] = await Promise.all([fileEntries(`${gitDir}/config`, hostHome), fileEntries(`${gitDir}/config.worktree`, hostHome)]);
  return [...config, ...worktree];
}

/** The git folder a `.git` file names (`gitdir: …`, relative to the file's folder), or null. */
export function gitFileTarget(file: string): string | null {
  let text: string;
  try {
    if (!lstatSync(file).isFile()) return null;
    text = readFileSync(file, "utf8").slice(0, 4096);
  } catch {
    return null;
  }
  const m = /^gitdir: *(.+?)\s*$/m.exec(text);
  return m === null ? null : resolvePath(m[1]!, parentOf(file));
}

/** Whether `path` is inside one of `dirs`. */
export function insideAny(path: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => isInside(path, d));
}
