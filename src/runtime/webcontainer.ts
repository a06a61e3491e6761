// The webcontainer runtime: StackBlitz's WebContainer, with `jsh --osc` as the agent's shell.
//
// - Boot once per page, never waiting forever (webcontainer/boot.ts); refuse at once when the page is not
//   cross-origin isolated, naming the missing headers. The API is injectable (`options.api`), so everything around
//   the boot is tested in Node with a scripted fake (test/runtime/webcontainer*.test.ts); the boot itself only by the
//   opt-in live test (`npm run test:live`).
// - The agent's shell: `jsh --osc` on a wide terminal. jsh prints `interactive`, `prompt` and `exit=A:B` (B is the
//   exit code; A is not a nonce, so markerNonce is null and a command that prints a marker itself can end its call
//   early). webcontainer/jsh-stream.ts adds `start` (end of the echo), `cwd` (read from the prompt) and holds a
//   `prompt` back until the prompt's text has passed.
// - ONE reader on process.output, ONE writer on process.input, chunks passed on as they come (webcontainer/process.ts).
//   WebContainer decodes every output chunk with a shared TextDecoder WITHOUT `stream: true`, so a UTF-8 character
//   split across chunks reaches us already as U+FFFD (one or more): the bytes are gone before the adapter sees them,
//   and nothing here can restore them. Markers are ASCII and are never damaged by this.
// - Background jobs: a separate `jsh -c COMMAND` process each, with cwd (relative to the workdir) and env.
// - Files: wc.fs mapped onto RuntimeFs, with a `node -e` helper for paths outside the workdir (webcontainer/fs.ts).
// - Events: `server-ready` (a dev server's URL) and `error` become RuntimeEvents.
// - Capabilities: probed after boot (webcontainer/probe.ts), one `jsh -c` per probe.

import { WEBCONTAINER, WORKSPACE } from "../limits.ts";
import { Listeners } from "../lib/listeners.ts";
import type {
  Capabilities,
  JobSpawnOptions,
  Runtime,
  RuntimeEvent,
  ShellSpawnOptions,
  TerminalProcess,
} from "./types.ts";
import { loadWebContainerApi, type WcInstance, type WebContainerApi } from "./webcontainer/api.ts";
import { bootWebContainer, isolationProblem, WebContainerUnavailableError, type IsolationCheck } from "./webcontainer/boot.ts";
import { createWcFs } from "./webcontainer/fs.ts";
import { JshOutputShaper } from "./webcontainer/jsh-stream.ts";
import { normalizePath } from "../lib/paths.ts";
import { WcTerminalProcess } from "./webcontainer/process.ts";
import { probeCapabilities, unprobedCapabilities, type ProbeResult } from "./webcontainer/probe.ts";

export type { WebContainerApi, WcBootOptions, WcInstance, WcProcess, WcSpawnOptions, WcFileSystem, WcDirEnt } from "./webcontainer/api.ts";
export { bootStatus, bootFrameUrl, isolationProblem, reachabilityProblem, WebContainerUnavailableError } from "./webcontainer/boot.ts";
export type { BootStatus, WebContainerFailure } from "./webcontainer/boot.ts";
export type { ProbeResult } from "./webcontainer/probe.ts";
export { HELPER_SCRIPT as FS_HELPER_SCRIPT } from "./webcontainer/fs.ts";

export interface WebContainerRuntimeOptions {
  /** Folder name of the workdir (/home/NAME). Default: the last part of WORKSPACE ("project"). */
  workdirName?: string;
  /** Give up waiting for boot after this long. Default WEBCONTAINER.bootTimeoutMs. */
  bootTimeoutMs?: number;
  /** The WebContainer API (its `WebContainer` class), or a loader. Default: a dynamic import of @webcontainer/api. */
  api?: WebContainerApi | (() => Promise<WebContainerApi>);
  /** Must match the page's COEP header. Default "require-corp" (what vite.config.ts serves). */
  coep?: "require-corp" | "credentialless";
  /** Overrides for the cross-origin isolation check (tests). */
  isolation?: IsolationCheck;
  /** Probe the shell's capabilities after boot (default true). */
  probe?: boolean;
  probeTimeoutMs?: number;
  /** Extra environment for the agent's shell and jobs. */
  env?: Record<string, string>;
  /** Progress for a status bar ("Booting WebContainer…"). */
  onProgress?: (message: string) => void;
  /** Timing knobs (tests). */
  promptHoldMs?: number;
  exitDrainMs?: number;
  killExitMs?: number;
  fsHelperTimeoutMs?: number;
}

export interface WebContainerRuntime extends Runtime {
  readonly kind: "webcontainer";
  /** Each capability probe: command, exit code, output (for logs and the live test). */
  readonly probes: readonly ProbeResult[];
  /** The booted instance (one per page; dispose() does not tear it down). */
  readonly container: WcInstance;
  /**
   * The startup canary's verdict on multi-line commands typed as the session types them (a brace group): false
   * turns `heredocs` off, so the tools refuse multi-line commands with the write_file hint. (A `jsh -c` heredoc probe
   * alone does not prove the typed form.)
   */
  confirmMultiLine(ok: boolean): void;
}

/** The agent's environment: no pagers, no prompts that would wait forever, no colour. */
export const WEBCONTAINER_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  npm_config_yes: "true",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

function basename(path: string): string {
  const parts = path.split("/").filter((p) => p !== "");
  return parts[parts.length - 1] ?? "project";
}

/** Relative path from `from` to `to` (both absolute, normalised). */
function relativePath(from: string, to: string): string {
  const a = from.split("/").filter(Boolean);
  const b = to.split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
}

export async function createWebContainerRuntime(options: WebContainerRuntimeOptions = {}): Promise<WebContainerRuntime> {
  const progress = (message: string): void => {
    try {
      options.onProgress?.(message);
    } catch {
      // a status bar's trouble is not ours
    }
  };
  const usesRealApi = options.api === undefined;
  if (usesRealApi && (typeof window === "undefined" || typeof document === "undefined")) {
    throw new WebContainerUnavailableError("not-browser", "WebContainer runs only in a browser page.", false);
  }
  const problem = await isolationProblem(options.isolation);
  if (problem !== null) throw new WebContainerUnavailableError("not-isolated", problem, false);

  const api = typeof options.api === "function" ? await options.api() : (options.api ?? (await loadWebContainerApi()));
  const bootTimeoutMs = options.bootTimeoutMs ?? WEBCONTAINER.bootTimeoutMs;
  progress(`Booting WebContainer (up to ${Math.round(bootTimeoutMs / 1000)} s)…`);
  const wc = await bootWebContainer(api, {
    coep: options.coep ?? "require-corp",
    workdirName: options.workdirName ?? basename(WORKSPACE),
    timeoutMs: bootTimeoutMs,
  });

  const workspace = normalizePath(wc.workdir);
  const fs = createWcFs(wc, { helperTimeoutMs: options.fsHelperTimeoutMs });
  const baseEnv: Record<string, string> = { ...WEBCONTAINER_ENV, ...(options.env ?? {}) };
  const drainMs = options.exitDrainMs ?? WEBCONTAINER.exitDrainMs;
  const drainMaxMs = WEBCONTAINER.exitDrainMaxMs;
  const killExitMs = options.killExitMs ?? WEBCONTAINER.killExitMs;
  const holdMs = options.promptHoldMs ?? WEBCONTAINER.promptHoldMs;

  const listeners = new Listeners<RuntimeEvent>("runtime");
  const emit = (event: RuntimeEvent): void => listeners.emit(event);
  const unsubs: Array<() => void> = [
    wc.on("server-ready", (port, url) => emit({ type: "server-ready", port, url })),
    wc.on("error", (error) => emit({ type: "error", message: String(error?.message ?? error) })),
  ];

  let capabilities: Capabilities = unprobedCapabilities();
  let probes: ProbeResult[] = [];
  if (options.probe !== false) {
    progress("Probing what this jsh supports…");
    const found = await probeCapabilities(wc, { timeoutMs: options.probeTimeoutMs, env: baseEnv });
    capabilities = found.capabilities;
    probes = found.probes;
  }

  const live = new Set<WcTerminalProcess>();
  let disposed = false;
  const checkOpen = (): void => {
    if (disposed) throw new Error("The webcontainer runtime has been disposed");
  };

  /** A start directory that exists, as an absolute path (the workspace when `cwd` is missing or gone). */
  async function startDir(cwd: string | undefined): Promise<string> {
    if (cwd === undefined || cwd === "") return workspace;
    const absolute = normalizePath(cwd.startsWith("/") ? cwd : `${workspace}/${cwd}`);
    if (absolute === workspace) return workspace;
    const st = await fs.stat(absolute).catch(() => null);
    return st?.type === "dir" ? absolute : workspace;
  }

  /** SpawnOptions.cwd is relative to the workdir; undefined means the workdir. */
  const spawnCwd = (absolute: string): string | undefined =>
    absolute === workspace ? undefined : relativePath(workspace, absolute);

  const runtime: WebContainerRuntime = {
    kind: "webcontainer",
    workspace,
    get capabilities() {
      return capabilities;
    },
    get probes() {
      return probes;
    },
    markerNonce: null,
    container: wc,

    confirmMultiLine(ok: boolean) {
      if (!ok && capabilities.heredocs) capabilities = { ...capabilities, heredocs: false };
    },

    async spawnShell(opts: ShellSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const cwd = await startDir(opts.cwd);
      const cols = Math.max(Math.floor(opts.cols) || 0, WEBCONTAINER.agentCols);
      const rows = Math.max(1, Math.floor(opts.rows) || WEBCONTAINER.agentRows);
      // Outside the workdir (a respawn after `cd /tmp && exit`): start in the workdir, then the shaper types the `cd`.
      const outside = relativePath(workspace, cwd).startsWith("..");
      const proc = await wc.spawn("jsh", ["--osc"], {
        cwd: outside ? undefined : spawnCwd(cwd),
        env: { ...baseEnv, ...(opts.env ?? {}) },
        terminal: { cols, rows },
      });
      let target: WcTerminalProcess | null = null;
      const shaper = new JshOutputShaper({
        startCwd: outside ? workspace : cwd,
        ...(outside ? { initialCd: cwd, writeRaw: (data: string) => target?.writeUnshaped(data) } : {}),
        home: normalizePath(`${workspace}/..`), // /home for /home/project, confirmed by the first prompt
        holdMs,
        startupPromptMs: WEBCONTAINER.startupPromptMs,
        promptAfterExitMs: WEBCONTAINER.promptAfterExitMs,
        emit: (chunk) => target?.emit(chunk),
      });
      const tp: WcTerminalProcess = new WcTerminalProcess(proc, {
        shaper,
        drainMs,
        drainMaxMs,
        killExitMs,
        minCols: WEBCONTAINER.agentCols,
        onEnd: () => live.delete(tp),
      });
      target = tp;
      live.add(tp);
      return tp;
    },

    async spawnJob(command: string, opts: JobSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const cwd = await startDir(opts.cwd);
      const proc = await wc.spawn("jsh", ["-c", command], {
        cwd: spawnCwd(cwd),
        env: { ...baseEnv, ...(opts.env ?? {}) },
        terminal: { cols: WEBCONTAINER.agentCols, rows: WEBCONTAINER.agentRows },
      });
      const tp: WcTerminalProcess = new WcTerminalProcess(proc, { drainMs, drainMaxMs, killExitMs, onEnd: () => live.delete(tp) });
      live.add(tp);
      return tp;
    },

    fs,

    on: (listener) => listeners.add(listener),

    async dispose() {
      if (disposed) return;
      disposed = true;
      const ending = [...live].map((proc) => {
        proc.kill();
        return proc.exited;
      });
      await Promise.all(ending);
      for (const off of unsubs) {
        try {
          off();
        } catch {
          // torn down already
        }
      }
      listeners.clear();
      // The instance stays booted: one per page, and another runtime (a retry, a new sandbox) reuses it.
    },
  };
  progress("WebContainer is ready.");
  return runtime;
}

