// The OS sandbox's library (@anthropic-ai/sandbox-runtime), loaded on demand: why it cannot run here (platform,
// bubblewrap, socat, ripgrep, script, user namespaces), and its one SandboxManager per process, shared by every
// sandbox and reset when the last one closes.

import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { spawnSync } from "node:child_process";
import { NODE_SANDBOX } from "../../limits.ts";
import type { OsSandboxOptions } from "./sandbox.ts";

export type Srt = typeof import("@anthropic-ai/sandbox-runtime");

let srtModule: Promise<Srt> | null = null;
/** One SandboxManager per process: initialized by the first sandbox, reset when the last one closes. */
let users = 0;
let initialized: Promise<void> | null = null;

export function loadSrt(): Promise<Srt> {
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

export function which(name: string): string | null {
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
export async function unavailable(options: OsSandboxOptions): Promise<string | null> {
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

export async function acquireManager(srt: Srt, bwrapPath: string | undefined): Promise<void> {
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

export async function releaseManager(srt: Srt): Promise<void> {
  users = Math.max(0, users - 1);
  if (users > 0 || initialized === null) return;
  initialized = null;
  await srt.SandboxManager.reset().catch(() => undefined);
}
