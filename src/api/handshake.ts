// The postMessage handshake (fixed in shared/ARCHITECTURE.md):
//   1. the sandbox, when framed, posts READY to its parent (target "*": it carries nothing secret), and
//      answers any window's { type: "sandshell:hello" } with READY, so a late host still connects;
//   2. the host posts { type: "sandshell:connect" } with a MessagePort transferred;
//   3. the sandbox accepts only allowed origins (its own; exact origins from the `origins` URL parameter;
//      any origin only when `origins=*` was asked for, with a warning). A refused origin gets
//      { type: "sandshell:rejected", reason } on the port, which then closes;
//   4. everything after that is MCP on the port (src/api/server.ts), and a goodbye before either end closes
//      it (src/api/transport.ts).
//
// The decisions are pure functions (parseOrigins, decideOrigin, classify); listenForConnections does the
// DOM wiring and nothing else.

import { MESSAGES } from "../limits.ts";
import { callListener } from "../lib/listeners.ts";
import { CONNECT_TYPE, HELLO_TYPE, READY, READY_TYPE, REJECTED_TYPE } from "./protocol.ts";
import type { PortLike } from "./transport.ts";

export { CONNECT_TYPE, HELLO_TYPE, READY, READY_TYPE, REJECTED_TYPE };

export interface OriginPolicy {
  /** The sandbox page's own origin (always allowed, unless it is the opaque "null"). */
  self: string;
  /** Exact origins also allowed. */
  origins: readonly string[];
  /** Every origin is allowed (`origins=*`): only when asked for explicitly. */
  allowAny: boolean;
}

export interface ParsedOrigins {
  origins: string[];
  allowAny: boolean;
  /** Entries that are not an origin (`scheme://host[:port]`), ignored; worth a warning. */
  invalid: string[];
}

/** `https://Example.com:443/` → `https://example.com`; null for anything that is not exactly an origin. */
export function normalizeOrigin(text: string): string | null {
  const t = text.trim();
  // No patterns: "https://*.example.com" parses as a URL but would only ever match itself.
  if (t === "" || t === "null" || t.includes("*")) return null;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return null;
  }
  if (url.origin === "null") return null; // file:, data:, blob: … have no origin to match
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null; // a page, not an origin
  return url.origin;
}

/** The `origins` URL parameter: comma-separated exact origins; `*` alone (or among them) allows any. */
export function parseOrigins(param: string | null | undefined): ParsedOrigins {
  const out: ParsedOrigins = { origins: [], allowAny: false, invalid: [] };
  if (param === null || param === undefined) return out;
  for (const part of param.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    if (entry === "*") {
      out.allowAny = true;
      continue;
    }
    const origin = normalizeOrigin(entry);
    if (origin === null) out.invalid.push(entry);
    else if (!out.origins.includes(origin)) out.origins.push(origin);
  }
  return out;
}

export type OriginDecision =
  | { allowed: true; why: "own origin" | "listed" | "any origin (origins=*)" }
  | { allowed: false; reason: string };

/** May a page of `origin` connect? */
export function decideOrigin(origin: string, policy: OriginPolicy): OriginDecision {
  if (origin !== "null" && origin === policy.self) return { allowed: true, why: "own origin" };
  if (origin !== "null" && policy.origins.includes(origin)) return { allowed: true, why: "listed" };
  if (policy.allowAny) return { allowed: true, why: "any origin (origins=*)" };
  const how =
    origin === "null"
      ? "Pages without an origin (file:, sandboxed frames) can connect only when the sandbox is opened with origins=*."
      : `To allow it, open the sandbox with ?origins=${encodeURIComponent(origin)} in its URL.`;
  return { allowed: false, reason: `The origin ${origin} is not allowed to use this sandbox. ${how}` };
}

/** The warning shown when any origin may connect. */
export function anyOriginWarning(): string {
  return "origins=* : any web page that frames this sandbox can run commands in it. Use an exact list of origins unless this is a test.";
}

export type WindowMessage = "hello" | "connect" | "ready" | "rejected" | "sandshell-other" | "json-rpc" | "other";

/** What kind of message arrived on the window (not a port). */
export function classify(data: unknown): WindowMessage {
  if (typeof data !== "object" || data === null) return "other";
  const d = data as Record<string, unknown>;
  if (typeof d.type === "string") {
    if (d.type === HELLO_TYPE) return "hello";
    if (d.type === CONNECT_TYPE) return "connect";
    if (d.type === READY_TYPE) return "ready";
    if (d.type === REJECTED_TYPE) return "rejected";
    if (d.type.startsWith("sandshell:")) return "sandshell-other";
  }
  if ("jsonrpc" in d || ("method" in d && ("id" in d || "params" in d))) return "json-rpc";
  return "other";
}

/** Is this the sandbox's READY announcement (for the client)? */
export function isReady(data: unknown): boolean {
  if (classify(data) !== "ready") return false;
  const d = data as Record<string, unknown>;
  return d.protocol === READY.protocol && d.version === READY.version;
}

// ---- DOM wiring -------------------------------------------------------------------------------------

/** The parts of a window the handshake uses (a real Window fits; tests pass a small fake). */
export interface WindowLike {
  readonly parent: unknown;
  /** The document's origin (window.origin); location.origin is the fallback. */
  readonly origin?: string;
  readonly location: { readonly origin: string };
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** A window (WindowProxy) rather than a MessagePort or a ServiceWorker: only windows get a target origin. */
function asWindow(source: unknown): PostTarget | null {
  if (typeof source !== "object" || source === null) return null;
  const s = source as { window?: unknown; postMessage?: unknown };
  return s.window === s && typeof s.postMessage === "function" ? (s as PostTarget) : null;
}

export type HandshakeEvent =
  | { type: "ready"; detail: string }
  | { type: "warning"; detail: string }
  | { type: "rejected"; origin: string; detail: string }
  | { type: "ignored"; origin: string; detail: string };

export interface ListenOptions {
  policy: OriginPolicy;
  /** An allowed connection: start serving MCP on the port, or return a reason to refuse it (e.g. too many). */
  onConnect(port: PortLike, origin: string): string | null;
  onEvent?(event: HandshakeEvent): void;
}

/** Sends the refusal on the port and closes it. */
export function rejectPort(port: PortLike, reason: string): void {
  try {
    port.postMessage({ type: REJECTED_TYPE, reason });
  } finally {
    port.close();
  }
}

/** Wires the handshake to a window. Returns a function that stops listening. */
export function listenForConnections(win: WindowLike, options: ListenOptions): () => void {
  const { policy, onConnect } = options;
  const emit = (event: HandshakeEvent): void => {
    callListener("API event", () => options.onEvent?.(event));
  };
  if (policy.allowAny) emit({ type: "warning", detail: anyOriginWarning() });

  const onMessage = (event: MessageEvent): void => {
    const kind = classify(event.data);
    switch (kind) {
      case "hello": {
        const target = asWindow(event.source);
        if (target !== null) target.postMessage(READY, "*");
        return;
      }
      case "connect": {
        const port = event.ports?.[0] as PortLike | undefined;
        if (port === undefined) {
          emit({ type: "ignored", origin: event.origin, detail: "sandshell:connect without a MessagePort (transfer port2 with the message)" });
          return;
        }
        for (const extra of (event.ports ?? []).slice(1)) (extra as PortLike).close();
        const decision = decideOrigin(event.origin, policy);
        if (!decision.allowed) {
          emit({ type: "rejected", origin: event.origin, detail: decision.reason });
          rejectPort(port, decision.reason);
          return;
        }
        let refusal: string | null;
        try {
          refusal = onConnect(port, event.origin);
        } catch (err) {
          refusal = `The sandbox could not start a session: ${err instanceof Error ? err.message : String(err)}`;
        }
        if (refusal !== null) {
          emit({ type: "rejected", origin: event.origin, detail: refusal });
          rejectPort(port, refusal);
        }
        return;
      }
      case "json-rpc":
        emit({ type: "ignored", origin: event.origin, detail: "a JSON-RPC message on the window before any connection: MCP goes on the MessagePort sent with sandshell:connect" });
        return;
      case "sandshell-other":
        emit({ type: "ignored", origin: event.origin, detail: `unknown handshake message ${JSON.stringify(String((event.data as { type: string }).type).slice(0, MESSAGES.nameChars))}` });
        return;
      default:
        // READY echoes, rejections and the page's unrelated traffic (extensions, dev tools): not ours.
        return;
    }
  };
  win.addEventListener("message", onMessage);

  const parent = asWindow(win.parent);
  if (parent !== null && win.parent !== win) {
    parent.postMessage(READY, "*");
    emit({ type: "ready", detail: "announced sandshell:ready to the parent window" });
  }
  return () => win.removeEventListener("message", onMessage);
}
