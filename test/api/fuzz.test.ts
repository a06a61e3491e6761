// Fuzz: 12,000 random and mutated messages on a live connection to the real sandbox, then a normal call
// that must still work. Seeded (FUZZ_SEED=… to try another seed; a failure names its seed), so any failure
// reproduces. Every answer must be well-formed JSON-RPC with one of the spec's error codes; nothing may
// throw, hang or stop the sandbox.
//
// Commands the fuzzer can build are harmless by construction: every string it puts in a bash `command` is
// `echo …` (or a word list starting with echo), so no mutation can start a program that waits for input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForConnections } from "../../src/api/index.ts";
import { API } from "../../src/limits.ts";
import type { Sandbox } from "../../src/node.ts";
import { mulberry32 } from "../lib/random.ts";
import { FakePort, FakeWindow, frame } from "./fakes.ts";
import { isObject, servedPeer, sleep, type RawPeer, type Served } from "./helpers.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 0x5a5d5e11);
const MESSAGES = 12_000;

class Fuzzer {
  readonly rand: () => number;
  private readonly big = "B".repeat(API.maxMessageBytes + 1_000);
  bigUsed = 0;
  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  junk(max = 12): string {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 _-.";
    let s = "";
    for (let i = this.int(max + 1); i > 0; i--) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  weirdString(): string {
    switch (this.int(8)) {
      case 0:
        return "";
      case 1:
        return "\u0000\ud800\uffff\u202e";
      case 2:
        return "x".repeat(100_000 + this.int(1000));
      case 3:
        if (this.bigUsed < 6) {
          this.bigUsed++;
          return this.big;
        }
        return "over-limit-budget-spent";
      case 4:
        return "__proto__";
      case 5:
        return '{"jsonrpc":"2.0"';
      default:
        return this.junk(30);
    }
  }
  value(depth = 0): unknown {
    const k = this.int(depth > 3 ? 8 : 14);
    switch (k) {
      case 0:
        return null;
      case 1:
        return undefined;
      case 2:
        return this.chance(0.5);
      case 3:
        return this.pick([0, -1, 1.5, 2 ** 53, -(2 ** 31), Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY]);
      case 4:
        return this.int(1000);
      case 5:
        return this.junk();
      case 6:
        return this.chance(0.05) ? this.weirdString() : this.junk(4);
      case 7:
        return this.pick([new Map([["k", 1]]), new Date(0), new Uint8Array([1, 2]), new Set([1]), /re/g, 5n]);
      case 8:
      case 9: {
        const arr: unknown[] = [];
        for (let i = this.int(4); i > 0; i--) arr.push(this.value(depth + 1));
        return arr;
      }
      default: {
        const obj: Record<string, unknown> = {};
        for (let i = this.int(4); i > 0; i--) obj[this.pick(["jsonrpc", "id", "method", "params", "result", "error", "name", "arguments", "_meta", this.junk(6)])] = this.value(depth + 1);
        return obj;
      }
    }
  }
  /** Something safe to put in a bash command field. */
  command(): unknown {
    switch (this.int(6)) {
      case 0:
        return `echo ${this.junk(20)}`;
      case 1:
        return ["echo", this.junk(5), this.int(100)];
      case 2:
        return this.int(100);
      case 3:
        return this.pick([null, true, {}, []]);
      case 4:
        return this.chance(0.02) ? `echo ${"z".repeat(70_000)}` : "echo fz";
      default:
        return "echo fz";
    }
  }
  template(): Record<string, unknown> {
    const id = this.chance(0.5) ? this.int(50_000) : `f-${this.int(50_000)}`;
    const argsFor: Record<string, () => Record<string, unknown>> = {
      bash: () => ({ command: "echo fz" }),
      read_file: () => ({ path: this.pick(["notes.txt", "missing.txt", "../../etc/passwd", "/etc/hostname"]) }),
      write_file: () => ({ path: `fz/${this.junk(6) || "f"}.txt`, content: this.junk(40) }),
      edit_file: () => ({ path: "notes.txt", old_str: "a", new_str: "b" }),
      list_dir: () => ({ path: ".", depth: 1 }),
      job_output: () => ({ id: `job-${this.int(5)}` }),
      job_kill: () => ({ id: `job-${this.int(5)}` }),
    };
    switch (this.int(10)) {
      case 0:
        return { jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fz", version: "1" } } };
      case 1:
        return { jsonrpc: "2.0", id, method: "ping" };
      case 2:
        return { jsonrpc: "2.0", id, method: "tools/list", params: {} };
      case 3:
      case 4:
      case 5: {
        const name = this.pick(Object.keys(argsFor));
        const args: Record<string, unknown> = argsFor[name]!();
        const raw = this.chance(0.25);
        const text = JSON.stringify(args);
        const rawArgs = this.pick([text, text.slice(0, -1), text.replace(/"/g, "'"), text.replace(/}$/, ",}"), "```json\n" + text + "\n```", "{", "not json"]);
        return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: raw ? rawArgs : args, ...(this.chance(0.2) ? { _meta: { progressToken: id } } : {}) } };
      }
      case 6:
        return { jsonrpc: "2.0", method: this.pick(["notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed", "notifications/unknown"]), params: { requestId: id, progressToken: id, progress: 1 } };
      case 7:
        return this.chance(0.5) ? { jsonrpc: "2.0", id, result: { action: "accept" } } : { jsonrpc: "2.0", id, error: { code: -32000, message: "no" } };
      case 8:
        return { jsonrpc: "2.0", id, method: this.pick(["resources/list", "prompts/get", "tools/call2", "", "logging/setLevel", "completion/complete"]) };
      default:
        return { jsonrpc: "2.0", id, method: "tools/call", params: { name: "bash", arguments: { command: this.command(), timeout: this.pick([undefined, 5, "10", -1, 0.001]), run_in_background: this.pick([undefined, false, "false"]) } } };
    }
  }
  /** A mutation of a valid message: drop, retype, rename, nest, wrap, stringify, truncate. */
  mutate(msg: Record<string, unknown>): unknown {
    const m: Record<string, unknown> = structuredClone(msg);
    const params = isObject(m.params) ? m.params : null;
    const args = params && isObject(params.arguments) ? params.arguments : null;
    const keys = Object.keys(m);
    switch (this.int(16)) {
      case 0:
        delete m[this.pick(keys)];
        return m;
      case 1:
        m[this.pick(keys)] = this.value();
        return m;
      case 2:
        m.id = this.pick([null, 1.5, {}, [], true, "", -0, 2 ** 60, undefined]);
        return m;
      case 3:
        m.jsonrpc = this.pick(["1.0", 2, null, "2.0 ", undefined]);
        return m;
      case 4:
        if (params) params[this.pick([...Object.keys(params), "name", "arguments", "_meta"])] = this.value();
        else m.params = this.value();
        return m;
      case 5:
        if (args) {
          const key = this.pick([...Object.keys(args), this.junk(5)]);
          args[key] = key === "command" ? this.command() : this.value();
        } else if (params) delete params[this.pick([...Object.keys(params), "name"])];
        return m;
      case 6:
        if (args && this.chance(0.5)) delete args[this.pick(Object.keys(args).concat("command"))];
        else m[this.junk(6) || "x"] = this.value();
        return m;
      case 7: {
        let nest: unknown = this.value(3);
        for (let i = this.int(API.maxMessageDepth + 20); i > 0; i--) nest = this.chance(0.5) ? [nest] : { n: nest };
        if (params) params[this.pick(["_meta", "junk", "arguments"])] = nest;
        else m.params = nest;
        return m;
      }
      case 8:
        return [m];
      case 9:
        return JSON.stringify(m);
      case 10: {
        const text = JSON.stringify(m) ?? "";
        return text.slice(0, this.int(text.length));
      }
      case 11:
        if (params) params.name = this.pick(["", "BASH", "bash ", "read_file\n", this.junk(8), "__proto__", "constructor"]);
        return m;
      case 12: {
        const self: Record<string, unknown> = { a: 1 };
        self.self = self;
        if (args) args.loop = self;
        else m.loop = self;
        return m;
      }
      case 13:
        if (args) args.content = this.weirdString();
        else m.huge = this.weirdString();
        return m;
      case 14:
        m.method = this.value();
        return m;
      default:
        return this.value();
    }
  }
  message(): unknown {
    if (this.chance(0.2)) return this.value();
    const t = this.template();
    return this.chance(0.8) ? this.mutate(t) : t;
  }
}

const SPEC_CODES = new Set([-32700, -32600, -32601, -32602]);

describe(`fuzz (seed ${SEED})`, () => {
  let sandbox: Sandbox;
  let served: Served;
  let peer: RawPeer;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ sandbox, served, peer, close } = await servedPeer());
    await peer.request({ jsonrpc: "2.0", id: "setup", method: "tools/call", params: { name: "write_file", arguments: { path: "notes.txt", content: "a note\n" } } });
  });
  afterAll(() => close());

  it(`${MESSAGES.toLocaleString("en-US")} random and mutated messages, then a normal call works`, async () => {
    const fz = new Fuzzer(SEED);
    const errors: unknown[] = [];
    const onUnhandled = (e: unknown) => errors.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      for (let i = 0; i < MESSAGES; i++) {
        let message = fz.message();
        // A message with ports or functions cannot be posted at all; structured clone refuses them before we see them.
        try {
          peer.post(message);
        } catch {
          message = null;
          peer.post(message);
        }
        if (i % 500 === 499) await sleep(0); // let the server breathe, as a real page would
      }
      // The proof: a normal call, queued behind whatever the fuzz started, still works.
      const r = await peer.request({ jsonrpc: "2.0", id: "final", method: "tools/call", params: { name: "bash", arguments: { command: "echo survived" } } }, 120_000);
      expect(JSON.stringify(r.result)).toContain("survived");
      const ping = await peer.request({ jsonrpc: "2.0", id: "final-ping", method: "ping" });
      expect(ping.result).toEqual({});
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(errors).toEqual([]);

    // Every answer is well-formed JSON-RPC; every error code is one the spec names for bad input.
    const codes = new Map<number, number>();
    let results = 0;
    let progress = 0;
    for (const m of peer.received) {
      expect(isObject(m), JSON.stringify(m)?.slice(0, 200)).toBe(true);
      const msg = m as Record<string, unknown>;
      expect(msg.jsonrpc).toBe("2.0");
      if (msg.method === "notifications/progress") {
        progress++;
        continue;
      }
      expect("id" in msg).toBe(true);
      if ("error" in msg) {
        const err = msg.error as { code: number; message: string };
        expect(SPEC_CODES.has(err.code), `seed ${SEED}: unexpected error ${JSON.stringify(err).slice(0, 300)}`).toBe(true);
        expect(typeof err.message).toBe("string");
        codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
      } else {
        expect(isObject(msg.result)).toBe(true);
        results++;
      }
    }
    for (const code of SPEC_CODES) expect(codes.get(code) ?? 0, `code ${code} never exercised`).toBeGreaterThan(50);
    expect(results).toBeGreaterThan(500);
    // Each bad message left a line in the audit log (bounded by AUDIT.maxEntries) or in the events.
    const replied = [...codes.values()].reduce((a, b) => a + b, 0);
    expect(served.events.filter((e) => e.type === "error-reply").length).toBe(replied);
    console.log(`fuzz seed ${SEED}: ${MESSAGES} sent; ${results} results, ${progress} progress notifications, errors ${JSON.stringify(Object.fromEntries(codes))}, ${served.events.filter((e) => e.type === "ignored").length} ignored`);
  }, 180_000);

  it("2,000 random window messages do not disturb the handshake", async () => {
    const fz = new Fuzzer(SEED ^ 0xabcdef);
    const host = new FakeWindow("http://host.test");
    const inner = new FakeWindow("http://sandbox.test");
    const iframe = frame(host, inner, "http://sandbox.test/");
    const accepted: string[] = [];
    const ports: FakePort[] = [];
    listenForConnections(inner, {
      policy: { self: "http://sandbox.test", origins: ["http://host.test"], allowAny: false },
      onConnect: (_port, origin) => {
        accepted.push(origin);
        return null;
      },
    });
    for (let i = 0; i < 2_000; i++) {
      const data = fz.chance(0.3) ? { type: fz.pick(["sandshell:connect", "sandshell:hello", "sandshell:ready", "sandshell:x", fz.junk(5)]), ...(fz.value() as object) } : fz.value();
      const transfer = fz.chance(0.2) ? [new FakePort()] : fz.chance(0.1) ? [] : undefined;
      if (transfer) ports.push(...(transfer as FakePort[]));
      iframe.contentWindow.postMessage(data, fz.pick(["*", "http://sandbox.test", "http://other.test"]), transfer);
    }
    await sleep(50);
    // Only connects with a port from the allowed origin were accepted; every other port was closed or untouched.
    const port = new FakePort();
    iframe.contentWindow.postMessage({ type: "sandshell:connect" }, "http://sandbox.test", [port]);
    await sleep(10);
    expect(accepted.at(-1)).toBe("http://host.test");
    expect(accepted.every((o) => o === "http://host.test")).toBe(true);
  });
});
