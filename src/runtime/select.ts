// Which runtime serves: the caller's choice, or "auto".
//
// "auto" in a browser tries WebContainer and falls back to the embedded shell, saying why in runtime.note:
//   1. the page is not cross-origin isolated            → at once (the reason names the missing headers);
//   2. StackBlitz does not answer a no-cors fetch of the boot iframe's address within
//      WEBCONTAINER.unreachableFallbackMs (3 s, counted from the start) → at once, no boot attempted (so a later
//      retry works without a reload);
//   3. otherwise boot, up to WEBCONTAINER.bootTimeoutMs (60 s); a slower boot also falls back, but goes on: a retry
//      joins it, and when it completes, whenWebContainerBoots() tells the page, which offers a switch (never made
//      under a running agent);
//   4. booted: the startup canary (webcontainer/canary.ts) runs known commands through a real shell session and
//      compares each result exactly; a wrong or hanging jsh falls back too, the note naming the check and what came back.
// "auto" in Node uses the node runtime (bash on node-pty), or the embedded one when node-pty cannot load.
// "webcontainer" does the same checks but throws WebContainerUnavailableError instead of falling back.
// "node" only in Node: it is imported through a specifier the bundler does not follow, so the browser bundle never
// pulls node-pty. The embedded runtime (src/runtime/embedded/index.ts) is imported on demand.

import { WEBCONTAINER } from "../limits.ts";
import type { EmbeddedRuntimeOptions } from "./embedded/index.ts";
import type { NodeRuntimeOptions } from "./node.ts";
import type { Runtime, RuntimeKind } from "./types.ts";
import { loadWebContainerApi, type WebContainerApi } from "./webcontainer/api.ts";
import {
  bootStatus,
  isolationProblem,
  pendingBoot,
  reachabilityProblem,
  WebContainerUnavailableError,
  type BootStatus,
} from "./webcontainer/boot.ts";
import { createWebContainerRuntime, type WebContainerRuntime, type WebContainerRuntimeOptions } from "./webcontainer.ts";
import { canaryMessage, runCanary, type CanaryReport, type CanarySessionFactory } from "./webcontainer/canary.ts";

/** A runtime kind, or "auto" (see the top of this file). */
export type RuntimeKindOrAuto = "auto" | RuntimeKind;

export interface RuntimeProgress {
  phase: "checking" | "booting" | "probing" | "falling-back" | "ready";
  runtime: RuntimeKind;
  /** One line for a status bar. */
  message: string;
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Pick<Response, "headers" | "ok" | "status">>;

export interface SelectRuntimeOptions {
  onProgress?: (progress: RuntimeProgress) => void;
  webcontainer?: WebContainerRuntimeOptions;
  /** Passed to createEmbeddedRuntime. */
  embedded?: EmbeddedRuntimeOptions;
  node?: NodeRuntimeOptions;
  /** Used for the StackBlitz reachability check. Default: globalThis.fetch. */
  fetch?: FetchLike;
  /** Whether this is a browser page. Default: `window` and `document` exist. */
  browser?: boolean;
  /** Default WEBCONTAINER.unreachableFallbackMs. */
  unreachableFallbackMs?: number;
  /**
   * The startup canary on a booted WebContainer (webcontainer/canary.ts): the session factory its checks run through,
   * src/shell's createShellSession (the sandbox and the playground pass it in: the runtime layer never imports the
   * shell above it). false skips it (tests of other things only). Without one a booted WebContainer is not trusted:
   * "auto" falls back, saying so.
   */
  canary?: CanarySessionFactory | false;
  /** The canary's time limits (default WEBCONTAINER.canaryCommandMs and canaryStartMs). */
  canaryLimits?: { commandMs?: number; startMs?: number };
  /** Told the canary's report (pass or fail), for logs and the live test. */
  onCanary?: (report: CanaryReport) => void;
  /** Factories (tests; defaults import the runtimes). */
  createEmbedded?: (options?: EmbeddedRuntimeOptions) => Promise<Runtime>;
  createNode?: (options?: NodeRuntimeOptions) => Promise<Runtime>;
}

interface EmbeddedModule {
  createEmbeddedRuntime(options?: EmbeddedRuntimeOptions): Promise<Runtime>;
}

// Under Vite (dev, build, Vitest) the glob makes the embedded runtime its own chunk, and is empty while the module
// does not exist yet; elsewhere (tsx, plain Node) a runtime import does the same.
const embeddedLoaders: Record<string, () => Promise<EmbeddedModule>> | null = import.meta.env
  ? import.meta.glob<EmbeddedModule>("./embedded/index.ts")
  : null;

async function importEmbedded(): Promise<EmbeddedModule> {
  const loader = embeddedLoaders?.["./embedded/index.ts"];
  if (loader) return loader();
  if (embeddedLoaders !== null) throw new Error("The embedded runtime (src/runtime/embedded/index.ts) is not part of this build");
  const spec = "./embedded/index.ts";
  return (await import(/* @vite-ignore */ spec)) as EmbeddedModule;
}

async function defaultCreateEmbedded(options?: EmbeddedRuntimeOptions): Promise<Runtime> {
  return (await importEmbedded()).createEmbeddedRuntime(options);
}

async function defaultCreateNode(options?: NodeRuntimeOptions): Promise<Runtime> {
  const spec = "./node.ts"; // not a literal: bundlers must not follow it into node-pty
  const mod = (await import(/* @vite-ignore */ spec)) as typeof import("./node.ts");
  return mod.createNodeRuntime(options);
}

function isBrowser(options: SelectRuntimeOptions): boolean {
  return options.browser ?? (typeof window !== "undefined" && typeof document !== "undefined");
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runtime with `note` set (on the object itself when it allows, else through a thin proxy). */
function withNote(runtime: Runtime, note: string): Runtime {
  try {
    Object.defineProperty(runtime, "note", { value: note, configurable: true, enumerable: true });
    if (runtime.note === note) return runtime;
  } catch {
    // frozen or a getter without a setter: proxy below
  }
  return new Proxy(runtime, {
    get(target, prop) {
      if (prop === "note") return note;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Runs the canary on a booted WebContainer; disposes it and throws the reason when a check fails. */
async function checkShell(runtime: Runtime, options: SelectRuntimeOptions, report: (message: string) => void): Promise<void> {
  if (options.canary === false) return;
  if (options.canary === undefined) {
    await runtime.dispose().catch(() => undefined);
    throw new WebContainerUnavailableError(
      "canary-failed",
      "The WebContainer shell could not be checked: no session factory was given for the startup canary (pass canary: createShellSession).",
      false,
    );
  }
  report("Checking the WebContainer shell (echo, exit codes, cd, a pipe)…");
  const typed = runtime as Partial<WebContainerRuntime>;
  const result = await runCanary(runtime, options.canary, {
    ...options.canaryLimits,
    multiLine: runtime.capabilities.heredocs && typeof typed.confirmMultiLine === "function",
  });
  if (result.multiLine !== null) typed.confirmMultiLine?.(result.multiLine);
  try {
    options.onCanary?.(result);
  } catch {
    // not ours
  }
  if (result.failure === null) return;
  await runtime.dispose().catch(() => undefined);
  throw new WebContainerUnavailableError("canary-failed", canaryMessage(result.failure), false);
}

async function resolveApi(options: SelectRuntimeOptions): Promise<WebContainerApi> {
  const api = options.webcontainer?.api;
  if (api === undefined) return loadWebContainerApi();
  return typeof api === "function" ? api() : api;
}

/** WebContainer with every preflight; throws WebContainerUnavailableError with the reason. */
async function tryWebContainer(options: SelectRuntimeOptions): Promise<Runtime> {
  const t0 = performance.now();
  const budget = options.unreachableFallbackMs ?? WEBCONTAINER.unreachableFallbackMs;
  const report = (phase: RuntimeProgress["phase"], message: string): void => {
    try {
      options.onProgress?.({ phase, runtime: "webcontainer", message });
    } catch {
      // not ours
    }
  };
  const wcOptions = options.webcontainer ?? {};
  if (wcOptions.api === undefined && !isBrowser(options)) {
    throw new WebContainerUnavailableError("not-browser", "WebContainer runs only in a browser page.", false);
  }
  report("checking", "Checking that WebContainer can run here…");
  const isolation = await isolationProblem({
    ...wcOptions.isolation,
    timeoutMs: Math.min(wcOptions.isolation?.timeoutMs ?? WEBCONTAINER.isolationCheckMs, budget),
  });
  if (isolation !== null) throw new WebContainerUnavailableError("not-isolated", isolation, false);

  const api = await resolveApi(options);
  const status = bootStatus(api);
  // A boot in flight (also one whose wait timed out) is joined, not refused: the API would not start another anyway.
  if (status.state !== "ready" && status.state !== "booting") {
    const remaining = budget - (performance.now() - t0);
    const unreachable = await reachabilityProblem({ fetch: options.fetch, timeoutMs: remaining, coep: wcOptions.coep ?? "require-corp" });
    if (unreachable !== null) {
      throw new WebContainerUnavailableError(
        "unreachable",
        `${unreachable}; no boot was attempted.`,
        false,
      );
    }
  }
  let ready = "";
  const runtime = await createWebContainerRuntime({
    ...wcOptions,
    api,
    isolation: { ...wcOptions.isolation, isolated: true }, // checked above
    onProgress: (message) => {
      if (/ready/i.test(message)) ready = message; // said once the canary has passed
      else report(/^Probing/.test(message) ? "probing" : "booting", message);
      wcOptions.onProgress?.(message);
    },
  });
  await checkShell(runtime, options, (message) => report("probing", message));
  report("ready", ready || "WebContainer is ready.");
  return runtime;
}

/**
 * The runtime for `kind`. "auto" never throws for WebContainer trouble: it falls back (see the top of this file) and
 * says why in runtime.note. The other kinds throw when their runtime cannot start.
 */
export async function selectRuntime(kind: RuntimeKindOrAuto, options: SelectRuntimeOptions = {}): Promise<Runtime> {
  const createEmbedded = options.createEmbedded ?? defaultCreateEmbedded;
  const createNode = options.createNode ?? defaultCreateNode;
  const report = (phase: RuntimeProgress["phase"], runtime: RuntimeKind, message: string): void => {
    try {
      options.onProgress?.({ phase, runtime, message });
    } catch {
      // not ours
    }
  };

  switch (kind) {
    case "embedded": {
      const rt = await createEmbedded(options.embedded);
      report("ready", "embedded", "The embedded shell is ready.");
      return rt;
    }
    case "node": {
      if (isBrowser(options)) throw new Error("The node runtime runs only in Node, not in a browser page.");
      const rt = await createNode(options.node);
      report("ready", "node", "bash (node runtime) is ready.");
      return rt;
    }
    case "webcontainer":
      return tryWebContainer(options);
    case "auto":
      break;
    default:
      throw new Error(`Unknown runtime "${String(kind)}": use auto, webcontainer, embedded or node.`);
  }

  if (!isBrowser(options)) {
    try {
      const rt = await createNode(options.node);
      report("ready", "node", "bash (node runtime) is ready.");
      return rt;
    } catch (err) {
      const reason = `The node runtime could not start: ${reasonOf(err)}`;
      report("falling-back", "embedded", `${reason}; falling back to the embedded shell.`);
      const rt = await createEmbedded(options.embedded);
      report("ready", "embedded", "The embedded shell is ready.");
      return withNote(rt, `${reason}. The embedded shell serves instead.`);
    }
  }

  try {
    return await tryWebContainer(options);
  } catch (err) {
    const reason = reasonOf(err);
    const reloadNeeded = err instanceof WebContainerUnavailableError && err.reloadNeeded;
    report("falling-back", "embedded", `Falling back to the embedded shell: ${reason}`);
    const rt = await createEmbedded(options.embedded);
    report("ready", "embedded", "The embedded shell is ready (WebContainer is unavailable).");
    return withNote(
      rt,
      `WebContainer could not be used: ${reason} The embedded shell serves instead` +
        (reloadNeeded ? "; to try WebContainer again, reload the page." : "; WebContainer can be tried again (retry) without a reload."),
    );
  }
}

/**
 * For the status bar's retry button: WebContainer again, with the same checks. Resolves with the runtime, or rejects
 * with WebContainerUnavailableError (`reloadNeeded` true when only a reload can help: the API keeps a hung boot).
 */
export function retryWebContainer(options: SelectRuntimeOptions = {}): Promise<Runtime> {
  return tryWebContainer(options);
}

/**
 * For "WebContainer is ready: switch?": resolves true when a boot that was still in flight (its wait timed out and
 * "auto" fell back) completes, false when it fails or when no boot is in flight.
 */
export async function whenWebContainerBoots(options: SelectRuntimeOptions = {}): Promise<boolean> {
  if (options.webcontainer?.api === undefined && !isBrowser(options)) return false;
  const pending = pendingBoot(await resolveApi(options));
  if (pending === null) return false;
  return pending.then(
    () => true,
    () => false,
  );
}

/** Whether a retry can work now, or a reload is needed first. */
export async function webContainerStatus(options: SelectRuntimeOptions = {}): Promise<BootStatus> {
  if (options.webcontainer?.api === undefined && !isBrowser(options)) {
    return { state: "idle", hung: false, reloadNeeded: false, sinceMs: null };
  }
  return bootStatus(await resolveApi(options));
}

export { WebContainerUnavailableError };
