// The node runtime's boundary: every process of the agent (the persistent bash and each background job) runs inside an
// OS sandbox (@anthropic-ai/sandbox-runtime: bubblewrap on Linux, sandbox-exec on macOS), with a clean environment
// and one private 0700 temporary directory per sandbox. This file builds the argv, the environment and the temp
// directory; src/runtime/node.ts spawns what it is given. See docs/sandbox.md.
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
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir, tmpdir, userInfo } from "node:os";
import { delimiter, dirname, join, sep } from "node:path";
import { spawnSync } from "node:child_process";
import { NODE_SANDBOX } from "../../limits.ts";
import { isInside } from "../../lib/paths.ts";
import { presentTempAtTmp, readBwrapCommand } from "./bwrap.ts";
import { NODE_FS_ACCESS, nodeFs } from "./fs.ts";
import { ensureGitFiles, planProtection, protectedWriteReason, type ProtectionPlan } from "./protect.ts";
import { RepoSweeper } from "./protect-sweep.ts";
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

// ------------------------------------------------------------------------------------------------ temp directory

/** The folder holding every sandbox's temp directory and default workspace on this host (hidden from each sandbox). */
export function sandboxesRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join(tmpdir(), `sandshell-u${uid}`);
}

async function ensureRoot(): Promise<string> {
  const root = sandboxesRoot();
  await fsp.mkdir(root, { recursive: true, mode: 0o700 });
  const st = await fsp.lstat(root);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid) throw new Error(`${root} is not a folder of this user; remove it and try again`);
  if ((st.mode & 0o077) !== 0) await fsp.chmod(root, 0o700);
  return fsp.realpath(root);
}

/** A fresh 0700 directory under sandboxesRoot(), by its real path. */
export async function makePrivateDir(prefix: "rt" | "ws" | "cmd"): Promise<string> {
  const root = await ensureRoot();
  const dir = await fsp.mkdtemp(join(root, `${prefix}-`)); // mkdtemp: 0700
  return fsp.realpath(dir);
}

// ------------------------------------------------------------------------------------------------ environment

/** Host variables the agent's shell keeps (the positive list); HOME, TMPDIR, SHELL and the runtime's own are set. */
const PASSED_ENV = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TERM|USER|LOGNAME|TZ)$/;
/** Variables that change how the shell starts or behaves: never passed, not even from the caller. */
const DROPPED_ENV = new Set(["PROMPT_COMMAND", "PS0", "PS1", "PS2", "BASH_ENV", "ENV", "HISTFILE", "SHELLOPTS", "BASHOPTS", "CDPATH"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The clean environment: the positive list from the host, the runtime's settings, then what the caller passes. */
export function cleanEnv(
  host: NodeJS.ProcessEnv,
  p: { workspace: string; tempDir: string; bash: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(host)) if (value !== undefined && PASSED_ENV.test(key)) env[key] = value;
  if (env.USER === undefined) {
    try {
      env.USER = userInfo().username;
    } catch {
      // no passwd entry: no USER
    }
  }
  Object.assign(env, {
    HOME: p.workspace,
    TMPDIR: p.tempDir,
    SHELL: p.bash,
    TERM: "xterm-256color",
    PAGER: "cat",
    GIT_PAGER: "cat",
    NO_COLOR: "1",
    GIT_TERMINAL_PROMPT: "0",
    npm_config_yes: "true",
  });
  if (env.LANG === undefined && env.LC_ALL === undefined) env.LANG = "C.UTF-8";
  for (const [key, value] of Object.entries(extra)) {
    if (NAME.test(key) && !DROPPED_ENV.has(key) && typeof value === "string") env[key] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}

// ------------------------------------------------------------------------------------------------ the library

type Srt = typeof import("@anthropic-ai/sandbox-runtime");

let srtModule: Promise<Srt> | null = null;
/** One SandboxManager per process: initialized by the first sandbox, reset when the last one closes. */
let users = 0;
let initialized: Promise<void> | null = null;

function loadSrt(): Promise<Srt> {
  const spec = "@anthropic-ai/sandbox-runtime"; // not a literal: bundlers must not follow it
  srtModule ??= (import(/* @vite-ignore */ spec) as Promise<Srt>).catch((err: unknown) => {
    srtModule = null;
    throw err;
  });
  return srtModule;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && isExecutable(join(dir, name))) return join(dir, name);
  }
  return null;
}

const userNamespaceProbes = new Map<string, string | null>();

/** null when bubblewrap can make a user and network namespace here; else its first line of complaint. */
function probeNamespaces(bwrap: string): string | null {
  const cached = userNamespaceProbes.get(bwrap);
  if (cached !== undefined) return cached;
  const r = spawnSync(bwrap, ["--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "true"], {
    timeout: NODE_SANDBOX.probeTimeoutMs,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  const refusal =
    r.error === undefined && r.status === 0
      ? null
      : (r.stderr ?? "").split("\n").map((l) => l.trim()).find((l) => l !== "") ?? String(r.error ?? `exit ${r.status}`);
  userNamespaceProbes.set(bwrap, refusal);
  return refusal;
}

/**
 * The OS sandbox's package and the version Sandshell is tested with: an optional peer dependency (package.json), as
 * node-pty is, because only the node runtime needs it (and it declares Node >= 22.12, which Sandshell's range does
 * not require; it is tested here on Node 20).
 */
export const SANDBOX_RUNTIME_PACKAGE = { name: "@anthropic-ai/sandbox-runtime", version: "0.0.83" } as const;

/** Loads the library, or says how to add it: a missing package is an install step, never a quiet "unsandboxed". */
async function requireSrt(): Promise<Srt> {
  try {
    return await loadSrt();
  } catch (err) {
    const { name, version } = SANDBOX_RUNTIME_PACKAGE;
    throw new Error(
      `The node runtime's OS sandbox needs the optional package ${name}, which could not be loaded ` +
        `(${err instanceof Error ? err.message : String(err)}). Add it with \`npm install ${name}@${version}\`, ` +
        'or pass sandbox: "off" to run the shell unsandboxed, as the host user.',
    );
  }
}

/** Why the OS sandbox cannot run here, or null when it can. */
async function unavailable(options: OsSandboxOptions): Promise<string | null> {
  if (process.platform === "win32") return "the OS sandbox does not run on Windows";
  if (process.platform !== "linux" && process.platform !== "darwin") return `the OS sandbox does not run on ${process.platform}`;
  const srt = await requireSrt();
  if (!srt.SandboxManager.isSupportedPlatform()) return `@anthropic-ai/sandbox-runtime does not support this platform`;
  if (process.platform === "linux") {
    const bwrap = options.bwrapPath ?? which("bwrap");
    if (bwrap === null) return "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)";
    if (!isExecutable(bwrap)) return `bubblewrap (bwrap) is not executable at ${bwrap}`;
    if (which("socat") === null) return "socat is not installed (apt-get install socat)";
    if (which("rg") === null) return "ripgrep (rg) is not installed (apt-get install ripgrep)";
    if (!existsSync("/usr/bin/script") && which("script") === null) return "script (util-linux) is not installed";
    const refusal = probeNamespaces(bwrap);
    if (refusal !== null) return `bubblewrap cannot create user namespaces here: ${refusal}`;
  }
  const deps = srt.SandboxManager.checkDependencies();
  if (deps.errors.length > 0) return deps.errors.join("; ");
  return null;
}

async function acquireManager(srt: Srt, bwrapPath: string | undefined): Promise<void> {
  users++;
  initialized ??= srt.SandboxManager.initialize({
    // Process-wide: the first sandbox's bwrapPath applies to all.
    ...(bwrapPath !== undefined ? { bwrapPath } : {}),
    // Per sandbox: the file system rules come with each wrap (customConfig), the allowed domains with its command id.
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    // The library's own look for protected names is under the host process's working directory; Sandshell's, bounded
    // and ranked (protect.ts), covers the workspace. Kept shallow, so a host run from inside a workspace with
    // thousands of nested names cannot push every profile past bubblewrap's argument limit.
    mandatoryDenySearchDepth: 1,
  }).catch((err: unknown) => {
    initialized = null;
    throw err;
  });
  try {
    await initialized;
  } catch (err) {
    users--;
    throw err;
  }
}

async function releaseManager(srt: Srt): Promise<void> {
  users = Math.max(0, users - 1);
  if (users > 0 || initialized === null) return;
  initialized = null;
  await srt.SandboxManager.reset().catch(() => undefined);
}

// ------------------------------------------------------------------------------------------------ file system rules

/**
 * Credential paths under the host user's home, always hidden: also when an allowRead re-opens the folder they are in
 * (the rest of the home is hidden too, except the top folders of programs on PATH such as ~/.cargo or ~/.local).
 */
export const CREDENTIAL_PATHS = [
  ".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".docker", ".kube", ".gnupg",
  ".netrc", ".npmrc", ".yarnrc", ".pypirc", ".git-credentials", ".cargo/credentials", ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json", ".vault-token", ".pgpass", ".my.cnf",
] as const;

/**
 * Root-owned secrets of the host, hidden where they exist. When the host process runs as root, the sandbox's uid 0
 * is the host's root, so file modes alone do not keep these from the shell (bubblewrap maps only that one uid, so
 * files of other users keep their modes). `~root` is hidden like the host user's home.
 */
export const HOST_SECRETS = [
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd", "/etc/sudoers", "/etc/sudoers.d",
  "/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt", "/etc/krb5.keytab", "/etc/ipsec.secrets", "/etc/wireguard",
  "/etc/NetworkManager/system-connections", "/var/lib/sss", "/root",
] as const;

/** The host's secret paths that exist now, the ssh host keys (`/etc/ssh/ssh_host_*_key`) among them. */
function hostSecrets(): string[] {
  const found: string[] = HOST_SECRETS.filter((path) => existsSync(path));
  try {
    for (const name of readdirSync("/etc/ssh")) if (/^ssh_host_.*_key$/.test(name)) found.push(`/etc/ssh/${name}`);
  } catch {
    // no /etc/ssh
  }
  return found;
}

/** The file system part of the library's config for one sandbox. */
function fsRules(p: SandboxDirs & { hostHome: string; path: string; protect: string[] }): {
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
} {
  const own = [p.workspace, p.tempDir];
  const denyRead: string[] = [sandboxesRoot()];
  // The command folder: read, never written (it is in no allowWrite).
  const allowRead: string[] = [...own, ...(p.commandDir !== undefined ? [p.commandDir] : [])];
  const home = p.hostHome;
  if (home !== "/" && home !== "" && !own.some((d) => isInside(home, d))) {
    // The host user's home is hidden, except the top folders that hold programs on PATH (~/.cargo, ~/.local, …).
    denyRead.push(home);
    for (const dir of p.path.split(delimiter)) {
      if (!dir.startsWith(home + sep)) continue;
      const top = join(home, dir.slice(home.length + 1).split(sep)[0]!);
      if (!allowRead.includes(top)) allowRead.push(top);
    }
  }
  // Named too: a deny more specific than an allowRead still holds.
  for (const rel of CREDENTIAL_PATHS) {
    const abs = join(home, rel);
    if (existsSync(abs) && !own.some((d) => isInside(abs, d))) denyRead.push(abs);
  }
  for (const secret of hostSecrets()) if (!own.some((d) => isInside(d, secret) || isInside(secret, d))) denyRead.push(secret);
  // The library's own default write path, shared by every sandbox on the host: not a channel between them. Then the
  // workspace's files that configure what runs outside the sandbox (protect.ts).
  return { allowWrite: own, denyWrite: ["/tmp/claude", ...p.protect], denyRead, allowRead };
}

// ------------------------------------------------------------------------------------------------ the sandbox

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

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Inside the sandbox: keep only `keep` (plus, with network, the proxy settings), then set TMPDIR and run. */
function innerCommand(bash: string, bashArgs: string[], keep: string[], tmp: string, network: boolean, interactive: boolean): string {
  const proxy = network ? "|*_PROXY|*_proxy|RSYNC_PROXY|GIT_SSH_COMMAND|GIT_CONFIG_PARAMETERS|CLOUDSDK_PROXY_*|JAVA_TOOL_OPTIONS" : "";
  const names = keep.filter((k) => NAME.test(k));
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

/**
 * After a resize of the outer terminal: `script` inside the sandbox copies the new size to the shell's terminal when
 * it gets SIGWINCH, which the kernel sends only to the outer terminal's own session. Linux: found through /proc.
 */
export function relayResize(rootPid: number): void {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return;
  }
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const pid = Number(entry);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      names.set(pid, stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
      const list = children.get(ppid) ?? [];
      list.push(pid);
      children.set(ppid, list);
    } catch {
      // ended meanwhile
    }
  }
  const queue = [rootPid];
  for (let i = 0; i < queue.length && i < 64; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (names.get(child) === "script") {
        try {
          process.kill(child, "SIGWINCH");
        } catch {
          // gone
        }
      } else queue.push(child);
    }
  }
}

/** For tests: the folders under sandboxesRoot() (to check that close removes its own). */
export function listPrivateDirs(): string[] {
  try {
    return readdirSync(sandboxesRoot());
  } catch {
    return [];
  }
}
