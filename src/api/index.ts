// The postMessage API's entry for the sandbox page: serveSandbox(sandbox, { origins, allowAny, onEvent }).
// It announces the sandbox to its parent, answers hellos, checks origins, and serves one MCP session per
// accepted connection, all on the one sandbox.

import { API } from "../limits.ts";
import { callListener } from "../lib/listeners.ts";
import { listenForConnections, parseOrigins, type OriginPolicy, type WindowLike } from "./handshake.ts";
import { openConnection, type ApiConnection, type ApiEvent, type ServedSandbox } from "./server.ts";
import type { GateLimits } from "./gate.ts";
import type { PortLike } from "./transport.ts";

export {
  READY,
  parseOrigins,
  normalizeOrigin,
  decideOrigin,
  classify,
  isReady,
  listenForConnections,
  rejectPort,
  anyOriginWarning,
  type OriginPolicy,
  type OriginDecision,
  type ParsedOrigins,
  type WindowLike,
  type HandshakeEvent,
} from "./handshake.ts";
export { inspect, measure, SERVED_REQUESTS, SERVED_NOTIFICATIONS, type Inspection, type GateLimits } from "./gate.ts";
export {
  openConnection,
  approvalMessage,
  approvalSchema,
  answerFromElicitation,
  SERVER_INFO,
  type ApiCallOptions,
  type ApiConnection,
  type ApiConnectionOptions,
  type ApiEvent,
  type ApiEventType,
  type ServedSandbox,
} from "./server.ts";
export { elicitingApprover } from "./elicitation.ts";
export { GatedTransport, type GateEvent } from "./gate.ts";
export { CLOSED_TYPE, CONNECT_TYPE, HELLO_TYPE, READY_TYPE, REJECTED_TYPE } from "./protocol.ts";

export { APPROVAL_META_KEY, APPROVAL_CHOICES, RAW_ARGUMENTS_KEY, type ApprovalChoice } from "./protocol.ts";
export { MessagePortTransport, SandshellRejectedError, type PortLike } from "./transport.ts";

/** Where protocol events go as audit-log lines. */
export type AuditSink = (type: "event", data: Record<string, unknown>) => unknown;

export interface ServeOptions {
  /** Exact origins allowed besides the page's own: an array, or the `origins` URL parameter's text ("a,b" or "*"). */
  origins?: readonly string[] | string | null;
  /** Allow every origin. Only when asked for explicitly (`origins=*`); a warning event says so. */
  allowAny?: boolean;
  /** Every protocol event: connections, rejections, bad input, warnings. The UI shows them. */
  onEvent?: (event: ApiEvent) => void;
  /** Where protocol events go as audit-log lines; default: the sandbox's own audit log (`sandbox.audit`), null for none. */
  audit?: AuditSink | null;
  /** The window to serve on; default the global one. */
  window?: WindowLike;
  /** The page's own origin; default window.origin. */
  selfOrigin?: string;
  /** Connections served at once (default API.maxConnections). */
  maxConnections?: number;
  limits?: GateLimits;
  /** How often each connection is pinged and how long it may take to answer (default API.pingIntervalMs / pingTimeoutMs). */
  heartbeat?: { intervalMs: number; timeoutMs: number };
}

export interface ApiServer {
  readonly policy: OriginPolicy;
  /** Open sessions. */
  sessions(): ApiConnection[];
  /** Serves MCP on a port directly, as if an allowed page of `origin` had connected (tests, same-page agents). */
  connect(port: PortLike, origin?: string): ApiConnection;
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

function auditOf(host: ServedSandbox, options: ServeOptions): AuditSink | null {
  if (options.audit !== undefined) return options.audit;
  return typeof host.audit === "function" ? (type, data) => host.audit!(type, data) : null;
}

/**
 * Connection ids (`c1`, `c2`, …) come from one counter for every server in this page or process, not one per server:
 * a caller's rules and jobs are keyed by its id, so two servers on one sandbox must never hand out the same one.
 */
let connections = 0;
function nextConnectionId(): string {
  return `c${++connections}`;
}

/** Serves the sandbox over postMessage. Call it once the sandbox is ready: the ready announcement means ready. */
export function serveSandbox(host: ServedSandbox, options: ServeOptions = {}): ApiServer {
  const win = options.window ?? (globalThis as unknown as { window?: WindowLike }).window;
  // window.origin is the document's real origin (about:srcdoc and about:blank frames inherit their parent's);
  // location.origin would say "null" for those.
  const self = options.selfOrigin ?? win?.origin ?? win?.location.origin ?? "null";
  const parsed =
    typeof options.origins === "string" || options.origins === null || options.origins === undefined
      ? parseOrigins(options.origins)
      : parseOrigins(options.origins.join(","));
  const policy: OriginPolicy = { self, origins: parsed.origins, allowAny: parsed.allowAny || options.allowAny === true };
  const max = options.maxConnections ?? API.maxConnections;
  const audit = auditOf(host, options);

  const emit = (event: ApiEvent): void => {
    try {
      const { type, at: _at, ...rest } = event;
      const { connection, ...facts } = rest;
      audit?.("event", { event: `api.${type}`, ...(connection !== undefined ? { caller: connection } : {}), ...facts });
    } catch (err) {
      console.error("sandshell: the audit log refused an API event:", err);
    }
    callListener("API event", () => options.onEvent?.(event));
  };
  for (const entry of parsed.invalid) {
    emit({ type: "warning", at: Date.now(), detail: `origins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port]) and is ignored` });
  }

  const live = new Set<ApiConnection>();
  const connect = (port: PortLike, origin = self): ApiConnection => {
    const session = openConnection(host, port, {
      id: nextConnectionId(),
      origin,
      onEvent: emit,
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
      ...(options.heartbeat !== undefined ? { heartbeat: options.heartbeat } : {}),
    });
    live.add(session);
    void session.closed.then(() => live.delete(session));
    emit({ type: "connected", at: Date.now(), connection: session.id, origin, detail: `connection ${session.id} from ${origin}` });
    return session;
  };

  const stop =
    win === undefined
      ? () => {}
      : listenForConnections(win, {
          policy,
          onConnect: (port, origin) => {
            if (live.size >= max) return `The sandbox already serves ${max} connections; close one first.`;
            connect(port, origin);
            return null;
          },
          onEvent: (e) => emit({ ...e, at: Date.now() }),
        });

  return {
    policy,
    sessions: () => [...live],
    connect,
    close: async () => {
      stop();
      await Promise.all([...live].map((s) => s.close()));
    },
  };
}
