// The gate's decisions, as pure functions: which JSON-RPC error each kind of bad input gets, what is
// ignored (never answered), and what goes on to the MCP SDK, cleaned.
import { describe, expect, it } from "vitest";
import { inspect, measure, RAW_ARGUMENTS_KEY, type Inspection } from "../../src/api/gate.ts";
import { API } from "../../src/limits.ts";

const PARSE = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

function reply(i: Inspection): { id: unknown; code: number; message: string } {
  if (i.kind !== "reply") throw new Error(`expected a reply, got ${JSON.stringify(i)}`);
  return { id: i.id, code: i.error.code, message: i.error.message };
}

const call = (params: unknown, id: unknown = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params });
const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } };

describe("parse errors (-32700): not JSON", () => {
  it.each([
    ["a string that does not parse", "{not json"],
    ["a truncated JSON text", '{"jsonrpc":"2.0","id":1,'],
  ])("%s", (_, data) => {
    expect(reply(inspect(data))).toMatchObject({ id: null, code: PARSE });
  });

  it.each([
    ["a Map", new Map([["a", 1]])],
    ["a Date", new Date(0)],
    ["a Uint8Array", new Uint8Array(3)],
    ["an ArrayBuffer", new ArrayBuffer(2)],
    ["a BigInt", 10n],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a RegExp", /x/],
    ["a Set", new Set([1])],
  ])("params holding %s (structured clone carries it, JSON cannot)", (_, value) => {
    const r = reply(inspect(call({ name: "bash", arguments: { command: value } })));
    expect(r.code).toBe(PARSE);
    expect(r.id).toBe(7); // the id is readable, so the error names it
    expect(r.message).toMatch(/not JSON|JSON number/);
  });

  it("a cycle", () => {
    const params: Record<string, unknown> = { name: "bash" };
    params.self = params;
    expect(reply(inspect(call(params)))).toMatchObject({ code: PARSE, id: 7 });
    expect(reply(inspect(call(params))).message).toMatch(/cycle/);
  });

  it("the same object twice side by side is JSON (no cycle) and goes through", () => {
    const shared = { command: "echo hi" };
    const r = inspect(call({ name: "bash", arguments: shared, _meta: { again: shared } }));
    expect(r.kind).toBe("forward");
  });
});

describe("invalid requests (-32600)", () => {
  it.each([
    ["a number", 42],
    ["null", null],
    ["true", true],
    ["a JSON string text", '"hello"'],
    ["undefined", undefined],
  ])("%s is not a request object", (_, data) => {
    expect(reply(inspect(data))).toMatchObject({ id: null, code: INVALID_REQUEST });
  });

  it("a batch (MCP has none), empty or not", () => {
    expect(reply(inspect([]))).toMatchObject({ id: null, code: INVALID_REQUEST });
    const r = reply(inspect([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
    expect(r).toMatchObject({ id: null, code: INVALID_REQUEST });
    expect(r.message).toMatch(/batch/);
  });

  it("an object with neither method nor result/error", () => {
    expect(reply(inspect({}))).toMatchObject({ id: null, code: INVALID_REQUEST });
    expect(reply(inspect({ jsonrpc: "2.0", id: 3 }))).toMatchObject({ id: 3, code: INVALID_REQUEST });
  });

  it.each([
    ["missing", undefined],
    ["1.0", "1.0"],
    ["a number", 2],
  ])("jsonrpc %s", (_, jsonrpc) => {
    expect(reply(inspect({ jsonrpc, id: 5, method: "ping" }))).toMatchObject({ id: 5, code: INVALID_REQUEST });
  });

  it("jsonrpc wrong on something shaped like a notification still gets an answer (id null)", () => {
    expect(reply(inspect({ jsonrpc: "1.0", method: "notifications/initialized" }))).toMatchObject({ id: null, code: INVALID_REQUEST });
  });

  it.each([
    ["a number", 1],
    ["null", null],
    ["an object", {}],
  ])("method that is %s", (_, method) => {
    expect(reply(inspect({ jsonrpc: "2.0", id: 1, method }))).toMatchObject({ code: INVALID_REQUEST });
  });

  it.each([
    ["null (MCP forbids it)", null],
    ["a fraction", 1.5],
    ["an object", { a: 1 }],
    ["a boolean", true],
    ["an array", [1]],
    ["beyond safe integers", 2 ** 60],
  ])("id that is %s is answered with id null", (_, id) => {
    expect(reply(inspect({ jsonrpc: "2.0", id, method: "ping" }))).toMatchObject({ id: null, code: INVALID_REQUEST });
  });

  it.each([
    ["a number", 5],
    ["a string", "x"],
    ["null", null],
  ])("params that is %s", (_, params) => {
    expect(reply(inspect({ jsonrpc: "2.0", id: "a", method: "tools/list", params }))).toMatchObject({ id: "a", code: INVALID_REQUEST });
  });

  it("a message larger than API.maxMessageBytes, as an object or as text", () => {
    const huge = "x".repeat(API.maxMessageBytes + 10);
    const r = reply(inspect(call({ name: "bash", arguments: { command: huge } }, 9)));
    expect(r).toMatchObject({ id: 9, code: INVALID_REQUEST });
    expect(r.message).toMatch(/larger than 5,242,880 bytes/);
    expect(reply(inspect(JSON.stringify(call({ name: "bash", arguments: { command: huge } }))))).toMatchObject({ id: null, code: INVALID_REQUEST });
  });

  it("many small parts adding up past the limit", () => {
    const parts = Array.from({ length: 200_000 }, (_, i) => `part-${i}-${"y".repeat(20)}`);
    expect(reply(inspect(call({ name: "bash", arguments: { command: parts } })))).toMatchObject({ code: INVALID_REQUEST });
  });

  it("nesting deeper than API.maxMessageDepth", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < API.maxMessageDepth + 5; i++) deep = { d: deep };
    const r = reply(inspect(call({ name: "bash", arguments: { command: deep } })));
    expect(r).toMatchObject({ id: 7, code: INVALID_REQUEST });
    expect(r.message).toMatch(/deeper than 64/);
    // A million levels do not overflow the stack either: the walk is iterative and stops at the limit.
    let deeper: unknown = 0;
    for (let i = 0; i < 1_000_000; i++) deeper = [deeper];
    expect(reply(inspect(call({ name: "bash", arguments: { command: deeper } }))).code).toBe(INVALID_REQUEST);
  });
});

describe("method not found (-32601)", () => {
  it.each(["resources/list", "prompts/get", "sampling/createMessage", "", "tools/call2", "__proto__", "constructor"])("%j", (method) => {
    const r = reply(inspect({ jsonrpc: "2.0", id: 11, method }));
    expect(r).toMatchObject({ id: 11, code: METHOD_NOT_FOUND });
    expect(r.message).toMatch(/tools\/call/); // it says what is served
  });
});

describe("invalid params (-32602)", () => {
  it.each([
    ["no params", undefined],
    ["no name", { arguments: {} }],
    ["a numeric name", { name: 5 }],
    ["arguments that are a number", { name: "bash", arguments: 5 }],
    ["arguments that are an array", { name: "bash", arguments: ["echo", "hi"] }],
    ["arguments that are null", { name: "bash", arguments: null }],
    ["a _meta that is not an object", { name: "bash", arguments: {}, _meta: 3 }],
    ["a progress token that is an object", { name: "bash", arguments: {}, _meta: { progressToken: {} } }],
  ])("tools/call with %s", (_, params) => {
    const r = reply(inspect(call(params)));
    expect(r).toMatchObject({ id: 7, code: INVALID_PARAMS });
    expect(r.message).toMatch(/^Invalid params/);
  });

  it("params as an array (positional) for any served method", () => {
    expect(reply(inspect({ jsonrpc: "2.0", id: 1, method: "tools/list", params: [] }))).toMatchObject({ id: 1, code: INVALID_PARAMS });
  });

  it("initialize without what it needs", () => {
    expect(reply(inspect({ jsonrpc: "2.0", id: 1, method: "initialize" }))).toMatchObject({ code: INVALID_PARAMS });
    expect(reply(inspect({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 5 } }))).toMatchObject({ code: INVALID_PARAMS });
  });

  it("a client may not send the sandbox's own _meta keys: rawArguments beside an object would run what `arguments` does not show", () => {
    const spoof = call({ name: "bash", arguments: { command: "echo visible" }, _meta: { [RAW_ARGUMENTS_KEY]: '{"command": "echo hidden"}' } });
    const r = reply(inspect(spoof));
    expect(r.code).toBe(INVALID_PARAMS);
    expect(r.message).toMatch(/"sandshell\/rawArguments" is reserved for the sandbox/);
    expect(r.message).toMatch(/give it as `arguments` itself/);
    // With a string `arguments` too, and any other key of the namespace.
    expect(reply(inspect(call({ name: "bash", arguments: '{"command": "a"}', _meta: { [RAW_ARGUMENTS_KEY]: '{"command": "b"}' } }))).code).toBe(INVALID_PARAMS);
    expect(reply(inspect(call({ name: "bash", arguments: {}, _meta: { "sandshell/approval": {} } }))).code).toBe(INVALID_PARAMS);
    // Other _meta keys pass.
    expect(inspect(call({ name: "bash", arguments: { command: "ls" }, _meta: { progressToken: 1, "example.com/trace": "x" } })).kind).toBe("forward");
  });

  it("a raw-string arguments with a _meta that is not an object", () => {
    expect(reply(inspect(call({ name: "bash", arguments: '{"command":"ls"}', _meta: "x" })))).toMatchObject({ code: INVALID_PARAMS });
  });
});

describe("ignored: notifications and responses are never answered", () => {
  it.each([
    ["an unknown notification", { jsonrpc: "2.0", method: "notifications/whatever" }],
    ["an unknown method without id", { jsonrpc: "2.0", method: "tools/call2", params: {} }],
    ["a served notification with params that are not an object", { jsonrpc: "2.0", method: "notifications/cancelled", params: 3 }],
    ["a served notification with a broken _meta", { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: 1 } }],
    ["a response with id null", { jsonrpc: "2.0", id: null, error: { code: -1, message: "x" } }],
    ["a response with both result and error", { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }],
    ["a response whose result is not an object", { jsonrpc: "2.0", id: 1, result: 5 }],
    ["an error response with a broken error", { jsonrpc: "2.0", id: 1, error: "bad" }],
    ["a response with the wrong jsonrpc", { jsonrpc: "1.0", id: 1, result: {} }],
  ])("%s", (_, data) => {
    const r = inspect(data);
    expect(r.kind).toBe("ignore");
    expect((r as { reason: string }).reason.length).toBeGreaterThan(5);
  });
});

describe("forwarded, cleaned", () => {
  it("a well-formed request goes on as it is", () => {
    const msg = { jsonrpc: "2.0", id: "x", method: "tools/list", params: {} };
    expect(inspect(msg)).toEqual({ kind: "forward", what: "request", method: "tools/list", message: msg });
  });

  it("extra top-level keys are dropped (the SDK's strict schema would otherwise drop the whole message silently)", () => {
    const r = inspect({ jsonrpc: "2.0", id: 1, method: "ping", extra: true, more: [1] });
    expect(r).toMatchObject({ kind: "forward", message: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(Object.keys((r as { message: object }).message).sort()).toEqual(["id", "jsonrpc", "method"]);
  });

  it("tools/call with raw-string arguments: the string moves into _meta, out of the SDK schema's way", () => {
    const raw = '{"command": "echo \'hi\'",}';
    const r = inspect(call({ name: "bash", arguments: raw, _meta: { progressToken: 3 } }));
    expect(r.kind).toBe("forward");
    const params = (r as { message: { params: Record<string, unknown> } }).message.params;
    expect(params.arguments).toBeUndefined();
    expect(params._meta).toEqual({ progressToken: 3, [RAW_ARGUMENTS_KEY]: raw });
  });

  it("a request sent as JSON text is read (a lenient extra)", () => {
    expect(inspect('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toMatchObject({ kind: "forward", message: { id: 1, method: "ping" } });
  });

  it("undefined-valued keys (structured clone keeps them) are harmless", () => {
    expect(inspect({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: undefined } }).kind).toBe("forward");
    expect(inspect({ jsonrpc: "2.0", id: undefined, method: "notifications/initialized" }).kind).toBe("forward");
  });

  it("notifications the server acts on", () => {
    for (const method of ["notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed"]) {
      expect(inspect({ jsonrpc: "2.0", method, params: {} })).toMatchObject({ kind: "forward", what: "notification" });
    }
  });

  it("responses (to the server's elicitations), result or error", () => {
    expect(inspect({ jsonrpc: "2.0", id: 0, result: { action: "accept" }, extra: 1 })).toEqual({
      kind: "forward",
      what: "response",
      message: { jsonrpc: "2.0", id: 0, result: { action: "accept" } },
    });
    expect(inspect({ jsonrpc: "2.0", id: "e", error: { code: -1, message: "no" } })).toMatchObject({ kind: "forward", what: "response" });
  });
});

describe("measure", () => {
  it("approximates JSON length and stops early on huge input", () => {
    const m = measure({ a: "xyz", b: [1, 2, true, null] });
    expect(m.ok).toBe(true);
    const json = JSON.stringify({ a: "xyz", b: [1, 2, true, null] }).length;
    if (m.ok) expect(Math.abs(m.bytes - json)).toBeLessThan(json); // same order of magnitude
    // Stopping early is behaviour, not speed: count how many elements are looked at before it gives up.
    let reads = 0;
    const chunk = "x".repeat(100_000);
    const big = Array.from({ length: 1_000 }, () => Object.defineProperty({}, "s", { enumerable: true, get: () => (reads++, chunk) }));
    expect(measure(big).ok).toBe(false); // 100 MB against a 5 MiB limit
    expect(reads).toBeLessThan(100);
    expect(measure(Array.from({ length: 3_000_000 }, () => "abcdef")).ok).toBe(false);
  });
});
