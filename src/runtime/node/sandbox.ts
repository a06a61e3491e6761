// The node runtime's boundary: every process of the agent (the persistent bash and each background job) runs inside an
// OS sandbox (@anthropic-ai/sandbox-runtime: bubblewrap on Linux, sandbox-exec on macOS), with a clean environment
// and one private 0700 temporary directory per sandbox. This file builds the argv (the environment: clean-env.ts; the
// temp directory: private-dirs.ts; what is hidden and writable: sandbox-rules.ts; the library: sandbox-library.ts);
// src/runtime/node.ts spawns what it is given. See docs/sandbox.md.
//
// What the OS sandbox enforces (Linux, bubblewrap):
//   writes   only the workspace and the private temp directory, which is also the sandbox's /tmp (bwrap.ts);
//            everything else is a read-only bind of /
//   reads    everything but the host user's home (except the tool folders on PATH) and credential paths; the other
//            sandboxes' temp directories and default workspaces are hidden
//   network  none (own network namespace); domains the caller allows go through the library's filtering proxy
//
// The library runs the command in a new session without a controlling terminal (bubblewrap --new-session: no
// TIOCSTI into the host's terminal). An interactive bash needs one for readline, job control and C-c, so the shell
// runs under `script`, which opens a pseudo-terminal inside the sandbox and relays the outer one in raw mode.

import { randomBytes } from "node:crypto";
import { realpathSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname } from "node:path";
import { NODE_SANDBOX } from "../../limits.ts";
import { isInside } from "../../lib/paths.ts";
import { singleQuote } from "../../lib/text.ts";
import { presentTempAtTmp, readBwrapCommand } from "./bwrap.ts";
import { VARIABLE_NAME } from "./clean-env.ts";
import { NODE_FS_ACCESS, nodeFs } from "./fs.ts";
import { ensureGitFiles, planProtection, protectedWriteReason, type ProtectionPlan } from "./protect.ts";
import { RepoSweeper } from "./protect-sweep.ts";
import { acquireManager, loadSrt, releaseManager, unavailable, which } from "./sandbox-library.ts";
import { fsRules } from "./sandbox-rules.ts";
import type { Isolation } from "../types.ts";

export type { Isolation } from "../types.ts";

/** "auto" (default): sandboxed where the OS allows, else unsandboxed and said so; "required": else an error; "off". */
export type SandboxMode = "auto" | "required" | "off";

export interface OsSandboxOptions {
  /** Default "auto". */
  mode?: SandboxMode;
  /** Domains the shell may reach (`example.com`, `*.npmjs.org`, `host:443`). Default: no network at all. */
  network?: { allow: string[] };
  /** Linux: the bubblewrap binary (default: `bwrap` on PATH). Process-wide: the first sandbox's value applies. */
  bwrapPath?: string;
  /** The host user's home, whose credential paths are hidden (default os.homedir()). */
  hostHome?: string;
}

export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface OsSandbox {
  readonly isolation: Isolation;
  /** The argv and environment that run `bash` with `bashArgs` (inside the sandbox when there is one). */
  plan(bash: string, bashArgs: string[], env: Record<string, string>, interactive: boolean): Promise<SpawnPlan>;
  /** Unregisters the network list and releases the shared sandbox manager. */
  release(): Promise<void>;
  /** Inside the OS sandbox: why it keeps the shell from writing `path` (a real path), or null (protect.ts). */
  protectedWrite?(path: string): string | null;
  /** Inside the OS sandbox: at a command's end, removes what the shell may not leave (protect-sweep.ts). */
  afterCommand?(): void;
}

/** The folders of one sandbox: `commandDir` (long commands) is readable, never writable, inside the sandbox. */
export interface SandboxDirs {
  workspace: string;
  tempDir: string;
  commandDir?: string;
  /** Told when the sandbox undid something the shell did to the workspace's repository (protect.ts). */
  onNotice?: (message: string) => void;
}

function realTmp(): string | null {
  try {
    return realpathSync("/tmp");
  } catch {
    return null;
  }
}

/** The library's folder (its seccomp helper and proxy agent live there): kept visible when it is under /tmp. */
function srtPackageDir(): string | null {
  try {
    return dirname(dirname(createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime")));
  } catch {
    return null;
  }
}

/** Inside the sandbox: keep only `keep` (plus, with network, the proxy settings), then set TMPDIR and run. */
function innerCommand(bash: string, bashArgs: string[], keep: string[], tmp: string, network: boolean, interactive: boolean): string {
  const proxy = network ? "|*_PROXY|*_proxy|RSYNC_PROXY|GIT_SSH_COMMAND|GIT_CONFIG_PARAMETERS|CLOUDSDK_PROXY_*|JAVA_TOOL_OPTIONS" : "";
  const names = keep.filter((k) => VARIABLE_NAME.test(k));
  const filter =
    `for __ss_v in $(compgen -e); do case "$__ss_v" in ${names.join("|")}|SANDBOX_RUNTIME${proxy}) ;; ` +
    `*) unset "$__ss_v" ;; esac; done; unset __ss_v; export TMPDIR=${singleQuote(tmp)}; ` +
    // git's user-wide config: the workspace's .gitconfig (HOME is the workspace) is kept read-only (protect.ts),
    // so `git config --global` writes to the private temp folder instead, and git does not read the stand-in (unless
    // the caller passed a GIT_CONFIG_GLOBAL of its own).
    `[ -n "\${GIT_CONFIG_GLOBAL-}" ] || export GIT_CONFIG_GLOBAL=${singleQuote(`${tmp}/.gitconfig`)}; `;
  const argv = [bash, ...bashArgs].map(singleQuote).join(" ");
  // Linux: `script` gives the interactive shell a terminal of its own (see the top of this file); -e passes its exit
  // code on. sandbox-exec (macOS) keeps the terminal, so the shell runs directly there.
  return interactive && process.platform === "linux" ? `${filter}exec script -qefc ${singleQuote(argv)} /dev/null` : `${filter}exec ${argv}`;
}

/** Protected names never left out to fit the profile: the workspace's own (protect.ts ranks them first). */
const PROTECTED_FLOOR = 32;

export async function openOsSandbox(options: OsSandboxOptions, p: SandboxDirs): Promise<OsSandbox> {
  const mode = options.mode ?? "auto";
  if (mode !== "auto" && mode !== "required" && mode !== "off") {
    throw new TypeError(`sandbox must be "auto", "required" or "off", not ${JSON.stringify(mode)}`);
  }
  const allow = [...(options.network?.allow ?? [])];
  if (!allow.every((d) => typeof d === "string" && d.trim() !== "")) {
    throw new TypeError('network.allow is a list of domains, e.g. ["registry.npmjs.org", "*.github.com"]');
  }
  const direct = (state: "unsandboxed" | "off", reason: string): OsSandbox => ({
    isolation: { state, reason, network: allow, tempDir: p.tempDir, tmp: "host", files: NODE_FS_ACCESS },
    async plan(bash, bashArgs, env) {
      return { file: bash, args: bashArgs, env };
    },
    async release() {},
  });
  if (mode === "off") return direct("off", "the OS sandbox was turned off (sandbox: \"off\"): the shell runs as the host user");

  const why = await unavailable(options);
  if (why !== null) {
    if (mode === "required") throw new Error(`The OS sandbox is required (sandbox: "required") but cannot run here: ${why}.`);
    return direct("unsandboxed", `unsandboxed: ${why}; the shell runs as the host user`);
  }
  const srt = await loadSrt();
  try {
    await acquireManager(srt, options.bwrapPath);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (mode === "required") throw new Error(`The OS sandbox is required (sandbox: "required") but could not start: ${msg}`);
    return direct("unsandboxed", `unsandboxed: the OS sandbox could not start (${msg}); the shell runs as the host user`);
  }
  // 128 random bits: the proxy learns from it which allow list a connection of this sandbox gets.
  const commandId = randomBytes(16).toString("base64url");
  if (allow.length > 0) srt.SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: allow });
  const hostHome = options.hostHome ?? homedir();
  let released = false;
  const linux = process.platform === "linux";
  // Linux: the private temp folder is the sandbox's /tmp (bwrap.ts). Not where /tmp is not a plain folder, or
  // where the workspace is /tmp or holds it (the workspace's bind wins there).
  const privateTmp = linux && realTmp() === "/tmp" && !isInside("/tmp", p.workspace);
  const bwrap = linux ? (options.bwrapPath ?? which("bwrap")) : null;
  const what = linux ? "bubblewrap" : "sandbox-exec (macOS; not tested by Sandshell's CI)";
  // What the sandbox cannot keep read-only in the workspace's repositories, removed instead (protect-sweep.ts).
  const sweeper = new RepoSweeper(
    p.workspace,
    [p.workspace, p.tempDir],
    (path, why) => p.onNotice?.(`Removed ${path}: ${why}.`),
    (message) => p.onNotice?.(message),
  );
  sweeper.watch();
  /** What the repositories' configuration named at the last start (the file tools refuse it too). */
  let named: string[] = [];
  /** Empty files planProtection made on the host (removed at close when still empty). */
  const created = new Set<string>();
  let toldLeftOut = "";
  const tellLeftOut = (plan: ProtectionPlan, kept: number): void => {
    const left = [...plan.paths.slice(kept), ...plan.leftOut];
    sweeper.leftOut(left);
    const key = `${left.length}:${left[0] ?? ""}`;
    if (left.length === 0 || key === toldLeftOut) return;
    toldLeftOut = key;
    p.onNotice?.(
      `${left.length} protected names in the workspace did not fit in the OS sandbox's profile (at most ` +
        `${NODE_SANDBOX.maxProtectMounts} mounts) and are writable inside: the deepest first left out, e.g. ` +
        `${left.slice(0, 3).map((x) => x.slice(p.workspace.length + 1)).join(", ")}. The workspace's own names and its repositories' git files are kept.`,
    );
  };
  return {
    isolation: {
      state: "sandboxed",
      reason:
        `OS sandbox (${what}, @anthropic-ai/sandbox-runtime): writes only to the workspace and ` +
        `${privateTmp ? `/tmp, which is the sandbox's own folder ${p.tempDir}` : `${p.tempDir} ($TMPDIR; /tmp is read-only)`}; ` +
        `credential paths hidden; ${allow.length === 0 ? "no network" : `network only to ${allow.join(", ")}`}`,
      network: allow,
      tempDir: p.tempDir,
      tmp: privateTmp ? "private" : "read-only",
      files: NODE_FS_ACCESS,
    },
    protectedWrite: (path) => protectedWriteReason(p.workspace, path, named),
    afterCommand: () => sweeper.sweep(),
    async plan(bash, bashArgs, env, interactive) {
      // Repositories at any depth: one the shell made that git would take from a folder not named .git is disabled;
      // the rest are protected after the ones the ranked look finds (protect-repos.ts).
      const repos = await sweeper.look();
      const protection = await planProtection(p.workspace, { hostHome, repos });
      sweeper.learn(protection);
      named = protection.named;
      for (const f of protection.created) created.add(f);
      const innerTemp = privateTmp ? "/tmp" : p.tempDir;
      await ensureGitFiles(nodeFs, p.tempDir, innerTemp, p.commandDir);
      const inner = innerCommand(bash, bashArgs, Object.keys(env), innerTemp, allow.length > 0, interactive);
      // The protected list is bounded (NODE_SANDBOX.maxProtectMounts); should the profile still pass bubblewrap's
      // limit (a host environment or home with many entries), the deepest protected names are left out, half at a
      // time: the sandbox starts with the most dangerous ones kept, never without a sandbox.
      let kept = protection.paths.length;
      let wrapped: { argv: string[] };
      for (;;) {
        const rules = fsRules({ ...p, hostHome, path: env.PATH ?? "", protect: protection.paths.slice(0, kept) });
        try {
          wrapped = await srt.SandboxManager.wrapWithSandboxArgv(
            inner,
            "/bin/bash",
            // macOS: the shell and its jobs run on a pseudo-terminal, for which the library's profile needs allowPty
            // (its documented setting; it also lets the shell open the user's other /dev/ttys*). Not tested here.
            { filesystem: rules, ...(linux ? {} : { allowPty: true }) },
            undefined,
            p.workspace,
            { commandId, commandText: `${bash} ${bashArgs.join(" ")}` },
          );
          break;
        } catch (err) {
          if ((err as { code?: unknown }).code !== "too_many_arguments" || kept <= PROTECTED_FLOOR) {
            throw new Error(`The OS sandbox could not be set up: ${err instanceof Error ? err.message : String(err)}`);
          }
          kept = Math.max(PROTECTED_FLOOR, Math.floor(kept / 2));
        }
      }
      tellLeftOut(protection, kept);
      if (!linux) return { file: wrapped.argv[0]!, args: wrapped.argv.slice(1), env };
      // Linux: run bwrap itself, with the library's options read back and /tmp presented (see bwrap.ts).
      if (wrapped.argv.length !== 3 || wrapped.argv[1] !== "-c") throw new Error("The OS sandbox library returned a command Sandshell cannot read.");
      const cmd = readBwrapCommand(wrapped.argv[2]!);
      const keep = [srtPackageDir(), bash, ...(env.PATH ?? "").split(delimiter)].filter((d): d is string => d !== null && d.startsWith("/"));
      const args = privateTmp ? presentTempAtTmp(cmd.options, p.tempDir, [p.workspace, p.tempDir], keep) : cmd.options;
      return { file: bwrap ?? cmd.bwrap, args: [...args, "--", ...cmd.command], env };
    },
    async release() {
      if (released) return;
      released = true;
      // A last look, once every process of the shell has ended: nothing it planted stays for the person's git.
      const repos = await sweeper.look(NODE_SANDBOX.maxSweepEntriesAtClose).catch(() => []);
      const last = await planProtection(p.workspace, { hostHome, repos }).catch(() => null);
      if (last !== null) sweeper.learn(last);
      sweeper.disarmMade();
      sweeper.checkStates();
      sweeper.stop();
      for (const f of [...created, ...(last?.created ?? [])]) {
        if (statSync(f, { throwIfNoEntry: false })?.size === 0) rmSync(f, { force: true });
      }
      if (allow.length > 0) srt.SandboxManager.unregisterCommandNetworkLists(commandId);
      await releaseManager(srt);
    },
  };
}
