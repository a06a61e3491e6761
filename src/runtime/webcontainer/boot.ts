// Booting WebContainer once per page, never waiting forever.
//
// Facts (shared/research/webcontainer-and-jsh.md §1, and @webcontainer/api 1.6.4 dist/index.js):
// - boot() adds an iframe from https://stackblitz.com/headless and waits for its `init` message with no timeout: when
//   StackBlitz cannot be reached it never settles. We race it against WEBCONTAINER.bootTimeoutMs.
// - The API caches that iframe's promise and holds a lock while a boot runs, so after a slow or hung first boot every
//   later boot() waits on the same attempt. We never start a second one: a retry JOINS the boot in flight (with a new
//   time limit), and a boot that completes after its wait timed out is announced (pendingBoot), so the page can offer
//   a switch. Only a reload starts afresh. A boot that *rejected* (the iframe came but build() failed, e.g. storage
//   blocked) can be tried again.
// - Only one instance per page: a second boot() throws. The instance is kept on a module-level record and on
//   `import.meta.hot.data`, so that a hot reload of this module does not boot again.
// - The page must be cross-origin isolated (COOP same-origin + COEP require-corp/credentialless).

import { WEBCONTAINER } from "../../limits.ts";
import type { WcBootOptions, WcInstance, WebContainerApi } from "./api.ts";

export type WebContainerFailure =
  | "not-browser"
  | "not-isolated"
  | "unreachable"
  | "boot-timeout"
  | "boot-failed"
  /** It booted, but its shell failed the startup canary (webcontainer/canary.ts). */
  | "canary-failed";

/** Why WebContainer cannot serve; `message` is written for a person (status bar) and an agent (runtime.note). */
export class WebContainerUnavailableError extends Error {
  constructor(
    readonly kind: WebContainerFailure,
    message: string,
    /** True when only a reload of the page can make another attempt work (a hung boot is cached by the API). */
    readonly reloadNeeded: boolean,
  ) {
    super(message);
    this.name = "WebContainerUnavailableError";
  }
}

export type BootState = "idle" | "booting" | "ready" | "failed";

interface BootRecord {
  state: BootState;
  promise: Promise<WcInstance>;
  instance: WcInstance | null;
  error: unknown;
  startedAt: number;
  /** Set once a wait on this attempt timed out: the API will not start another until the page reloads. */
  timedOut: boolean;
}

// One record per API object (the real one, or a test's fake), kept across hot reloads of this module.
const hotData = import.meta.hot?.data as { sandshellWebContainerBoots?: WeakMap<object, BootRecord> } | undefined;
const records: WeakMap<object, BootRecord> = hotData?.sandshellWebContainerBoots ?? new WeakMap();
if (hotData) hotData.sandshellWebContainerBoots = records;

export interface BootStatus {
  state: BootState;
  /** A boot that has outlived a timeout: still pending inside the API (a retry joins it; a reload starts afresh). */
  hung: boolean;
  /** Whether only a reload can help (no longer the case for a slow boot: a retry joins it). */
  reloadNeeded: boolean;
  sinceMs: number | null;
}

export function bootStatus(api: object): BootStatus {
  const r = records.get(api);
  if (!r) return { state: "idle", hung: false, reloadNeeded: false, sinceMs: null };
  const hung = r.state === "booting" && r.timedOut;
  return { state: r.state, hung, reloadNeeded: false, sinceMs: Math.round(performance.now() - r.startedAt) };
}

/**
 * The boot in flight for `api` (one whose wait may already have timed out), or null when none is: resolves with the
 * instance when it completes, rejects when it fails. For "WebContainer is ready: switch?".
 */
export function pendingBoot(api: object): Promise<WcInstance> | null {
  const r = records.get(api);
  return r !== undefined && r.state === "booting" ? r.promise : null;
}

function start(api: WebContainerApi, options: WcBootOptions): BootRecord {
  const record: BootRecord = {
    state: "booting",
    promise: Promise.resolve().then(() => api.boot(options)),
    instance: null,
    error: null,
    startedAt: performance.now(),
    timedOut: false,
  };
  record.promise.then(
    (instance) => {
      record.state = "ready";
      record.instance = instance;
    },
    (err: unknown) => {
      record.state = "failed";
      record.error = err;
    },
  );
  records.set(api, record);
  return record;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The booted instance: boots at most once per API object; gives up waiting after `timeoutMs`. */
export async function bootWebContainer(
  api: WebContainerApi,
  options: WcBootOptions & { timeoutMs?: number } = {},
): Promise<WcInstance> {
  const { timeoutMs = WEBCONTAINER.bootTimeoutMs, ...bootOptions } = options;
  let record = records.get(api);
  if (record?.state === "ready" && record.instance) return record.instance;
  if (!record || record.state === "failed") record = start(api, bootOptions);
  const rec = record;
  const wasHung = rec.timedOut;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      rec.promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          rec.timedOut = true;
          reject(
            new WebContainerUnavailableError(
              "boot-timeout",
              `WebContainer did not boot within ${Math.round(timeoutMs / 1000)} s` +
                (wasHung ? " (this retry joined the first attempt, which is still booting)" : "") +
                ": StackBlitz (https://stackblitz.com) may be slow or unreachable, or blocked by a content blocker, a " +
                "Content Security Policy, or blocked third-party cookies and storage. The attempt goes on in the " +
                "background: if it completes, a switch is offered; a retry waits for this same attempt, and only a " +
                "reload of the page starts afresh.",
              false,
            ),
          );
        }, timeoutMs);
      }),
    ]);
  } catch (err) {
    if (err instanceof WebContainerUnavailableError) throw err;
    const text = message(err);
    const single = /single WebContainer instance/i.test(text);
    throw new WebContainerUnavailableError(
      "boot-failed",
      single
        ? `WebContainer failed to boot: another WebContainer instance is already running on this page (${text}); reload the page.`
        : `WebContainer failed to boot: ${text}. StackBlitz answered, so this is often the browser blocking ` +
          "third-party cookies or storage for stackblitz.com; allow them, then try again.",
      single,
    );
  } finally {
    clearTimeout(timer);
  }
}

// ------------------------------------------------------------------------------------------------------------
// Preflight checks.

type FetchLike = (input: string, init?: RequestInit) => Promise<Pick<Response, "headers" | "ok" | "status">>;

export interface IsolationCheck {
  /** Default: globalThis.crossOriginIsolated === true. */
  isolated?: boolean;
  /** For reading the page's own response headers. Default: globalThis.fetch. */
  fetch?: FetchLike;
  /** Default: location.href. */
  pageUrl?: string;
  /** Default: whether this window is framed. */
  framed?: boolean;
  timeoutMs?: number;
}

function isFramed(): boolean {
  try {
    return typeof window !== "undefined" && window.top !== window.self;
  } catch {
    return true; // a cross-origin parent
  }
}

const NEEDED = "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (or credentialless)";

/** Null when the page is cross-origin isolated; otherwise why not, naming the headers that are missing. */
export async function isolationProblem(check: IsolationCheck = {}): Promise<string | null> {
  const isolated = check.isolated ?? (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  if (isolated) return null;
  const head = "This page is not cross-origin isolated, which WebContainer needs (SharedArrayBuffer)";
  const fetchImpl = check.fetch ?? (typeof fetch === "function" ? (fetch as FetchLike) : undefined);
  const url = check.pageUrl ?? (typeof location !== "undefined" ? location.href : undefined);
  if (!fetchImpl || !url) return `${head}: the page must be served with ${NEEDED}.`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), check.timeoutMs ?? WEBCONTAINER.isolationCheckMs);
  let headers: Pick<Headers, "get">;
  try {
    headers = (await fetchImpl(url, { method: "HEAD", cache: "no-store", signal: controller.signal })).headers;
  } catch (err) {
    return `${head}: it must be served with ${NEEDED} (which of them are missing could not be checked: ${message(err)}).`;
  } finally {
    clearTimeout(timer);
  }
  const coop = (headers.get("cross-origin-opener-policy") ?? "").split(";")[0]!.trim().toLowerCase();
  const coep = (headers.get("cross-origin-embedder-policy") ?? "").split(";")[0]!.trim().toLowerCase();
  const wrong: string[] = [];
  if (coop !== "same-origin") {
    wrong.push(
      coop === ""
        ? "Cross-Origin-Opener-Policy: same-origin is missing"
        : `Cross-Origin-Opener-Policy is "${coop}" (needs same-origin)`,
    );
  }
  if (coep !== "require-corp" && coep !== "credentialless") {
    wrong.push(
      coep === ""
        ? "Cross-Origin-Embedder-Policy: require-corp (or credentialless) is missing"
        : `Cross-Origin-Embedder-Policy is "${coep}" (needs require-corp or credentialless)`,
    );
  }
  if (wrong.length > 0) return `${head}: in its response headers, ${wrong.join(", and ")}.`;
  const framed = check.framed ?? isFramed();
  return framed
    ? `${head}: its headers are right (${NEEDED}), but it runs in a frame whose parent page is not isolated or does ` +
        'not allow it (the iframe needs allow="cross-origin-isolated" and the parent the same headers). Open it in its own tab.'
    : `${head}, although its headers are right (${NEEDED}): the browser may have used a cached response without ` +
        "them (reload without the cache), or does not support cross-origin isolation.";
}

/** The @webcontainer/api version installed (its boot frame URL carries it; a test checks it against package.json). */
export const WEBCONTAINER_API_VERSION = "1.6.4";

/**
 * Exactly the address the boot iframe loads, built as @webcontainer/api 1.6.4 builds it (dist/internal/iframe-url.js):
 * the origin of `WEBCONTAINER_API_IFRAME_URL` (or https://stackblitz.com), path /headless, `coep`, then `version`.
 * Under COEP require-corp a no-cors fetch of another address (bare /headless) may be blocked where the frame loads.
 */
export function bootFrameUrl(coep: WcBootOptions["coep"] = "require-corp"): string {
  const override = (globalThis as { WEBCONTAINER_API_IFRAME_URL?: unknown }).WEBCONTAINER_API_IFRAME_URL;
  let origin = "https://stackblitz.com";
  if (typeof override === "string" && override !== "") {
    try {
      origin = new URL(override).origin;
    } catch {
      // the API would throw on it too; check the default
    }
  }
  const url = new URL(origin);
  url.pathname = "/headless";
  if (coep) url.searchParams.set("coep", coep);
  url.searchParams.set("version", WEBCONTAINER_API_VERSION);
  return url.href;
}

/**
 * Whether StackBlitz answers at all: a no-cors fetch of the boot iframe's address. Resolves null when it answered
 * within `timeoutMs`, else the reason. (An opaque answer is enough: nothing is read from it.)
 */
export async function reachabilityProblem(options: {
  fetch?: FetchLike;
  timeoutMs: number;
  url?: string;
  coep?: WcBootOptions["coep"];
}): Promise<string | null> {
  const url = options.url ?? bootFrameUrl(options.coep);
  const fetchImpl = options.fetch ?? (typeof fetch === "function" ? (fetch as FetchLike) : undefined);
  if (!fetchImpl) return `StackBlitz could not be checked (no fetch here)`;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(`StackBlitz (${url}) did not answer within ${(options.timeoutMs / 1000).toFixed(1).replace(/\.0$/, "")} s`);
    }, Math.max(0, options.timeoutMs));
  });
  const attempt = fetchImpl(url, { mode: "no-cors", cache: "no-store", credentials: "omit", signal: controller.signal }).then(
    () => null,
    (err: unknown) => `StackBlitz (${url}) could not be reached: ${message(err)}`,
  );
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
