// The gate in front of the MCP server: every message that arrives on a connection's port passes through
// inspect() (pure: no DOM, no I/O, no state) before the MCP SDK sees it; GatedTransport applies it to a port.
//
// It answers what JSON-RPC 2.0 and MCP name, and hands the SDK only well-formed messages:
//   -32700 parse error      not JSON: a string that does not parse, a message the port could not
//                           deserialize, or values JSON cannot hold (Map, Date, typed arrays, BigInt,
//                           NaN, cycles)
//   -32600 invalid request  JSON, but not a request: not an object, a batch (MCP has none), jsonrpc not
//                           "2.0", method not a string, an id that is null or not a string or integer,
//                           params not an object, too large, too deeply nested
//   -32601 method not found a request for a method this server does not serve
//   -32602 invalid params   a known method whose params do not fit its schema
//   (no answer)             notifications, even unknown or malformed ones, and responses (matched or not):
//                           JSON-RPC never answers those
//
// The one deliberate extension: `tools/call` takes `arguments` as an object or as the raw JSON string a
// model produced (OpenAI's tool calls carry a string). The SDK's schema wants an object, so the gate
// moves a string into params._meta[RAW_ARGUMENTS_KEY] and the server's handler takes it from there. That key (every
// `sandshell/` _meta key) is the gate's to set: a request that brings one is refused with -32602.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { API, MESSAGES } from "../limits.ts";

import { RAW_ARGUMENTS_KEY, RESERVED_META_PREFIX } from "./protocol.ts";
import { MessageDataError, type MessagePortTransport } from "./transport.ts";

export { RAW_ARGUMENTS_KEY };

/** The requests this server serves, each with the SDK's own schema. */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
} as const;

export const SERVED_REQUESTS: readonly string[] = Object.keys(REQUEST_SCHEMAS);

/** Notifications a client may send that the server acts on; others are ignored (and logged). */
export const SERVED_NOTIFICATIONS: readonly string[] = [
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
];

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type Inspection =
  /** Hand this (cleaned) message to the MCP SDK. */
  | { kind: "forward"; message: JSONRPCMessage; what: "request" | "notification" | "response"; method?: string }
  /** Answer with this error and forward nothing. */
  | { kind: "reply"; id: RequestId | null; error: JsonRpcErrorObject; method?: string }
  /** Say nothing (the spec forbids answering), but log why. */
  | { kind: "ignore"; reason: string; method?: string };

export interface GateLimits {
  maxMessageBytes: number;
  maxMessageDepth: number;
}

const DEFAULT_LIMITS: GateLimits = { maxMessageBytes: API.maxMessageBytes, maxMessageDepth: API.maxMessageDepth };

type Measure = { ok: true; bytes: number } | { ok: false; code: number; message: string };

function tag(value: object): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const t = tag(value);
    return t === "Object" ? "an object" : `a ${t}`;
  }
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return Number.isFinite(value) ? "a number" : String(value);
  return `a ${typeof value}`;
}

/**
 * Walks a message once, without recursion: its size as JSON text (approximately: strings count their
 * length, escapes are not counted), whether it nests too deep, and whether JSON can hold it. Stops as soon
 * as the size passes the limit, so a huge message costs no more than the limit to measure.
 */
export function measure(value: unknown, limits: GateLimits = DEFAULT_LIMITS): Measure {
  let bytes = 0;
  const tooLarge = (): Measure => ({
    ok: false,
    code: ErrorCode.InvalidRequest,
    message: `Invalid Request: the message is larger than ${limits.maxMessageBytes.toLocaleString("en-US")} bytes`,
  });
  // Entering pushes [value, depth, key]; leaving pops the object from the ancestors (cycles are not JSON,
  // the same object twice side by side is).
  const ancestors = new Set<object>();
  const stack: Array<{ value: unknown; depth: number; key: string | null; leave?: object }> = [{ value, depth: 0, key: null }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.leave !== undefined) {
      ancestors.delete(item.leave);
      continue;
    }
    const v = item.value;
    const where = item.key === null ? "" : ` (at key ${JSON.stringify(item.key.slice(0, MESSAGES.valueChars))})`;
    switch (typeof v) {
      case "string":
        bytes += v.length + 2;
        break;
      case "number":
        if (!Number.isFinite(v)) return { ok: false, code: ErrorCode.ParseError, message: `Parse error: ${String(v)} is not a JSON number${where}` };
        bytes += 8;
        break;
      case "boolean":
        bytes += 5;
        break;
      case "undefined":
        bytes += 4; // absent in an object, null in an array: either way harmless
        break;
      case "object": {
        if (v === null) {
          bytes += 4;
          break;
        }
        const isArray = Array.isArray(v);
        if (!isArray && tag(v) !== "Object") {
          return { ok: false, code: ErrorCode.ParseError, message: `Parse error: the message holds ${describe(v)}, which is not JSON${where}` };
        }
        if (ancestors.has(v)) return { ok: false, code: ErrorCode.ParseError, message: `Parse error: the message refers to itself (a cycle), which is not JSON${where}` };
        if (item.depth >= limits.maxMessageDepth) {
          return { ok: false, code: ErrorCode.InvalidRequest, message: `Invalid Request: the message nests deeper than ${limits.maxMessageDepth} levels` };
        }
        ancestors.add(v);
        stack.push({ value: undefined, depth: 0, key: null, leave: v });
        bytes += 2;
        if (isArray) {
          const arr = v as unknown[];
          bytes += arr.length;
          if (bytes > limits.maxMessageBytes) return tooLarge();
          for (let i = arr.length - 1; i >= 0; i--) stack.push({ value: arr[i], depth: item.depth + 1, key: item.key });
        } else {
          for (const k of Object.keys(v)) {
            bytes += k.length + 4;
            if (bytes > limits.maxMessageBytes) return tooLarge();
            stack.push({ value: (v as Record<string, unknown>)[k], depth: item.depth + 1, key: k });
          }
        }
        break;
      }
      default:
        return { ok: false, code: ErrorCode.ParseError, message: `Parse error: the message holds ${describe(v)}, which is not JSON${where}` };
    }
    if (bytes > limits.maxMessageBytes) return tooLarge();
  }
  return { ok: true, bytes };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && tag(v) === "Object";
}

function validId(id: unknown): id is RequestId {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}

/** A short account of why a schema refused params: the first few issues, with their paths. */
function issues(error: { issues?: Array<{ path?: PropertyKey[]; message?: string }> } | undefined): string {
  const list = error?.issues ?? [];
  const shown = list.slice(0, 3).map((i) => {
    const path = (i.path ?? []).filter((p) => p !== "params").map(String).join(".");
    return path ? `${path}: ${i.message ?? "invalid"}` : (i.message ?? "invalid");
  });
  return shown.join("; ") + (list.length > 3 ? `; and ${list.length - 3} more` : "");
}

/**
 * Decides what to do with one message from a port. `data` is what arrived: normally an object (structured
 * clone); a string is parsed as JSON text (a lenient extra for clients that stringify).
 */
export function inspect(data: unknown, limits: GateLimits = DEFAULT_LIMITS): Inspection {
  if (typeof data === "string") {
    if (data.length > limits.maxMessageBytes) {
      return { kind: "reply", id: null, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: the message is larger than ${limits.maxMessageBytes.toLocaleString("en-US")} bytes` } };
    }
    try {
      data = JSON.parse(data);
    } catch (err) {
      return { kind: "reply", id: null, error: { code: ErrorCode.ParseError, message: `Parse error: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }

  const size = measure(data, limits);
  const topId = isPlainObject(data) && validId(data.id) ? data.id : null;
  const topMethod = isPlainObject(data) && typeof data.method === "string" ? data.method.slice(0, MESSAGES.nameChars) : undefined;
  if (!size.ok) {
    // Like a parse error, answered with id null when the id cannot be read, even if it was a notification.
    return { kind: "reply", id: topId, error: { code: size.code, message: size.message }, ...(topMethod !== undefined ? { method: topMethod } : {}) };
  }

  if (Array.isArray(data)) {
    return { kind: "reply", id: null, error: { code: ErrorCode.InvalidRequest, message: "Invalid Request: batches (arrays of messages) are not part of MCP; send one message at a time" } };
  }
  if (!isPlainObject(data)) {
    return { kind: "reply", id: null, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: a message is a JSON-RPC 2.0 object, not ${describe(data)}` } };
  }

  const msg = data;
  const invalid = (why: string, id: RequestId | null = topId): Inspection => ({
    kind: "reply",
    id,
    error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` },
    ...(topMethod !== undefined ? { method: topMethod } : {}),
  });
  const hasId = "id" in msg && msg.id !== undefined;

  if ("method" in msg && msg.method !== undefined) {
    if (msg.jsonrpc !== "2.0") return invalid(`jsonrpc must be "2.0", not ${describe(msg.jsonrpc)}`);
    if (typeof msg.method !== "string") return invalid(`method must be a string, not ${describe(msg.method)}`);
    const method = msg.method;
    if (hasId && !validId(msg.id)) return invalid(`id must be a string or an integer, not ${describe(msg.id)}`, null);
    const params = msg.params;
    if (!hasId) {
      // A notification: never answered. Only well-formed ones the server acts on go through.
      if (!SERVED_NOTIFICATIONS.includes(method)) return { kind: "ignore", reason: `unknown notification ${JSON.stringify(method.slice(0, MESSAGES.nameChars))}`, method: topMethod! };
      if (params !== undefined && !isPlainObject(params)) return { kind: "ignore", reason: `notification ${method} with params that are ${describe(params)}, not an object`, method };
      if (params !== undefined && params._meta !== undefined && !isPlainObject(params._meta)) {
        return { kind: "ignore", reason: `notification ${method} with a _meta that is not an object`, method };
      }
      const clean = { jsonrpc: "2.0" as const, method, ...(params !== undefined ? { params } : {}) };
      return { kind: "forward", message: clean as JSONRPCMessage, what: "notification", method };
    }

    const id = msg.id as RequestId;
    if (params !== undefined && !isPlainObject(params)) {
      if (Array.isArray(params)) {
        return { kind: "reply", id, method, error: { code: ErrorCode.InvalidParams, message: "Invalid params: MCP params are an object (named), not an array" } };
      }
      return invalid(`params must be an object, not ${describe(params)}`, id);
    }
    // Own keys only: "__proto__" or "constructor" is an unknown method, not a property of every object.
    const schema = Object.hasOwn(REQUEST_SCHEMAS, method) ? REQUEST_SCHEMAS[method as keyof typeof REQUEST_SCHEMAS] : undefined;
    if (schema === undefined) {
      return { kind: "reply", id, method, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${JSON.stringify(method.slice(0, MESSAGES.nameChars))}; this server serves ${SERVED_REQUESTS.join(", ")}` } };
    }
    let cleanParams = params;
    if (params !== undefined && isPlainObject(params._meta)) {
      // The sandbox's own _meta keys are set here (below), never by a client: a client-sent raw-arguments key would run
      // one command while `arguments` shows another.
      const reserved = Object.keys(params._meta).find((k) => k.startsWith(RESERVED_META_PREFIX));
      if (reserved !== undefined) {
        return {
          kind: "reply",
          id,
          method,
          error: {
            code: ErrorCode.InvalidParams,
            message:
              `Invalid params: _meta key ${JSON.stringify(reserved.slice(0, MESSAGES.nameChars))} is reserved for the sandbox and may not be sent. ` +
              "To send a model's raw JSON text, give it as `arguments` itself (a string).",
          },
        };
      }
    }
    if (method === "tools/call" && params !== undefined && typeof params.arguments === "string") {
      // The raw-JSON-string extension: out of the SDK's way, into _meta, where its schema lets it pass.
      const { arguments: raw, ...rest } = params;
      const meta = isPlainObject(rest._meta) ? rest._meta : rest._meta === undefined ? {} : null;
      if (meta === null) return { kind: "reply", id, method, error: { code: ErrorCode.InvalidParams, message: "Invalid params: _meta must be an object" } };
      cleanParams = { ...rest, _meta: { ...meta, [RAW_ARGUMENTS_KEY]: raw } };
    }
    const clean = { jsonrpc: "2.0" as const, id, method, ...(cleanParams !== undefined ? { params: cleanParams } : {}) };
    const parsed = schema.safeParse(clean);
    if (!parsed.success) {
      return { kind: "reply", id, method, error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${method}: ${issues(parsed.error as never)}` } };
    }
    return { kind: "forward", message: clean as JSONRPCMessage, what: "request", method };
  }

  if ("result" in msg || "error" in msg) {
    // A response (to one of our elicitation requests). Never answered; the SDK matches it or logs it.
    if (msg.jsonrpc !== "2.0") return { kind: "ignore", reason: `a response whose jsonrpc is ${describe(msg.jsonrpc)}, not "2.0"` };
    if ("result" in msg && "error" in msg) return { kind: "ignore", reason: "a response with both result and error" };
    if (!validId(msg.id)) return { kind: "ignore", reason: `a response whose id is ${describe(msg.id)}` };
    if ("result" in msg) {
      if (!isPlainObject(msg.result)) return { kind: "ignore", reason: `a response whose result is ${describe(msg.result)}, not an object` };
      return { kind: "forward", what: "response", message: { jsonrpc: "2.0", id: msg.id, result: msg.result } as JSONRPCMessage };
    }
    const err = msg.error;
    if (!isPlainObject(err) || typeof err.code !== "number" || !Number.isSafeInteger(err.code) || typeof err.message !== "string") {
      return { kind: "ignore", reason: "an error response whose error is not { code: integer, message: string }" };
    }
    const error = { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
    return { kind: "forward", what: "response", message: { jsonrpc: "2.0", id: msg.id, error } as JSONRPCMessage };
  }

  return invalid("a message has a method (request or notification) or a result or error (response); this has neither");
}

// ------------------------------------------------------------------------------------------------ the gated transport

/** What the gate tells the API's event stream: bad input it answered, or dropped. */
export interface GateEvent {
  type: "error-reply" | "ignored";
  connection: string;
  detail: string;
  method?: string;
  id?: RequestId | null;
  code?: number;
}

/** The gate between the port and the SDK: only well-formed messages reach the Server; the rest are answered or dropped here. */
export class GatedTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sessionId: string;

  constructor(
    private readonly inner: MessagePortTransport,
    private readonly limits: GateLimits | undefined,
    private readonly emit: (event: GateEvent) => void,
  ) {
    this.sessionId = inner.sessionId ?? "";
  }

  async start(): Promise<void> {
    this.inner.onmessage = (data: unknown) => this.receive(data);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error: Error) => {
      if (error instanceof MessageDataError) {
        this.reply(null, ErrorCode.ParseError, "Parse error: the message could not be deserialized", undefined);
        return;
      }
      this.onerror?.(error);
    };
    await this.inner.start();
  }

  private receive(data: unknown): void {
    const verdict = inspect(data, this.limits);
    switch (verdict.kind) {
      case "forward":
        this.onmessage?.(verdict.message);
        return;
      case "reply":
        this.reply(verdict.id, verdict.error.code, verdict.error.message, verdict.method);
        return;
      case "ignore":
        this.emit({ type: "ignored", connection: this.sessionId, detail: verdict.reason, ...(verdict.method !== undefined ? { method: verdict.method } : {}) });
        return;
    }
  }

  private reply(id: RequestId | null, code: number, message: string, method: string | undefined): void {
    this.emit({ type: "error-reply", connection: this.sessionId, id, code, detail: message, ...(method !== undefined ? { method } : {}) });
    // JSON-RPC answers what cannot be identified with id null; the SDK's types want an id, so this is sent as is.
    this.inner.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage).catch(() => {});
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
