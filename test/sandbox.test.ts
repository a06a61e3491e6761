// The sandbox object through the Node entry: shared shell with queued callers, audit log, approvals routes, runtime
// choice and ownership, closing, and calls that never throw.

import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeRuntime, createSandbox, type AuditEntry, type CallToolResult, type Sandbox } from "../src/node.ts";
import { createSandbox as createCoreSandbox } from "../src/sandbox.ts";
import { RED_TEAM_SPELLINGS, SMUGGLING_SPELLINGS } from "./tools/smuggling.ts";

const text = (r: CallToolResult) => r.content[0]!.text;

describe("several callers share one shell", () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await createSandbox({ runtime: "node", approver: "deny", shell: { softTimeoutSec: 0.5 } });
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("bash calls from two callers queue instead of being refused, in the order they came", async () => {
    const done: string[] = [];
    const a = sb.callTool("bash", { command: "sleep 0.3; echo A" }, { caller: "conn-a" }).then((r) => (done.push("a"), r));
    const b = sb.callTool("bash", { command: "echo B" }, { caller: "conn-b" }).then((r) => (done.push("b"), r));
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.isError).toBeUndefined();
    expect(rb.isError).toBeUndefined();
    expect(text(ra)).toMatch(/^A\n/);
    expect(text(rb)).toMatch(/^B\n/);
    expect(done).toEqual(["a", "b"]);
  });

  it("a call while a command still runs after its soft timeout gets the session's refusal as a normal running result; is_input waits for it", async () => {
    const first = await sb.callTool("bash", { command: "sleep 1.2; echo finished" }, { caller: "conn-a" });
    expect(first.structuredContent.status).toBe("running");
    const again = await sb.callTool("bash", { command: "echo too-soon" }, { caller: "conn-a" });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ status: "running", notRun: true });
    expect(text(again)).toMatch(/A command is still running .* so this command was NOT run/);
    // another caller is refused too, and sees nothing of the first caller's command (its output is theirs)
    const other = await sb.callTool("bash", { command: "echo intruder" }, { caller: "conn-b" });
    expect(other.structuredContent).toMatchObject({ reason: "not-owner" });
    expect(text(other)).toMatch(/still running for another caller, so this command was NOT run/);
    expect(text(other)).not.toMatch(/^finished$/m);
    let wait: CallToolResult;
    do wait = await sb.callTool("bash", { command: "", is_input: true }, { caller: "conn-a" });
    while (wait.structuredContent.status === "running");
    expect(text(wait)).toMatch(/finished/);
    expect(text(await sb.callTool("bash", { command: "echo next" }))).toMatch(/^next\n/);
  });

  it("a queued call cancelled before its turn does not run", async () => {
    const ac = new AbortController();
    const first = sb.callTool("bash", { command: "sleep 0.3" });
    const queued = sb.callTool("bash", { command: "touch queued.txt" }, { signal: ac.signal });
    ac.abort();
    const r = await queued;
    await first;
    expect(r.structuredContent.status).toBe("interrupted");
    expect(text(r)).toMatch(/cancelled while it waited/);
    expect(await sb.runtime.fs.stat(`${sb.runtimeInfo.workspace}/queued.txt`)).toBeNull();
  });

  it("file tools do not wait in the bash queue", async () => {
    const order: string[] = [];
    const slow = sb.callTool("bash", { command: "sleep 1" }).then(() => order.push("bash"));
    const w = await sb.callTool("write_file", { path: "fast.txt", content: "x" }).then((r) => (order.push("write_file"), r));
    expect(w.isError).toBeUndefined();
    await slow;
    expect(order).toEqual(["write_file", "bash"]);
  });

  it("approver deny refuses a command that needs approval at once and says so", async () => {
    const r = await sb.callTool("bash", { command: "rm -f nothing.txt" });
    expect(r.structuredContent.status).toBe("denied");
    expect(r.structuredContent.approval).toMatchObject({ decision: "deny", by: "policy" });
    expect(text(r)).toMatch(/refuses every command that needs approval \(approver "deny"\)/);
  });
});

describe("audit log and activity", () => {
  let sb: Sandbox;
  const live: AuditEntry[] = [];

  beforeAll(async () => {
    // `ls --zzz`: a known program with an option the guard does not know asks (and ls exits 2)
    sb = await createSandbox({ runtime: "node", approver: async () => ({ decision: "always", rule: "ls --zzz" }) });
    sb.onActivity((e) => live.push(e));
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("records every call, verdict, approval, added rule and result, tagged with the call and the caller", async () => {
    await sb.callTool("bash", { command: "ls --zzz" }, { caller: "conn-1" });
    const mine = sb.auditLog().filter((e) => e.callId === "call-1");
    expect(mine.map((e) => (e.type === "approval" ? `approval:${e.phase}` : e.type))).toEqual([
      "call",
      "verdict",
      "approval:requested",
      "approval:resolved",
      "rule",
      "result",
    ]);
    expect(mine.every((e) => e.caller === "conn-1" && e.tool === "bash")).toBe(true);
    expect(mine[0]).toMatchObject({ type: "call", args: { command: "ls --zzz" } });
    expect(mine[1]).toMatchObject({ type: "verdict", command: "ls --zzz", verdict: { decision: "ask", rule: "not-allowlisted" } });
    expect(mine[3]).toMatchObject({ decision: "always", by: "function", addedRule: "ls --zzz" });
    expect(mine[4]).toMatchObject({ type: "rule", decision: "allow", rule: "ls --zzz", source: "approval" });
    expect(mine[5]).toMatchObject({ type: "result", status: "completed", isError: false, exitCode: 2 });
    expect(typeof mine[5]!.text).toBe("string");
  });

  it("numbers entries, streams them to onActivity as they come, and exports JSONL", async () => {
    await sb.callTool("read_file", { path: "missing.txt", bogus: 1 });
    const log = sb.auditLog();
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect(live.map((e) => e.seq)).toEqual(log.map((e) => e.seq).filter((s) => s > 1)); // subscribed after "opened"
    const lines = sb.exportAuditLog().trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual(log);
    expect(log.at(-1)).toMatchObject({ type: "result", tool: "read_file", isError: true, ignoredParameters: ["bogus"] });
    expect(() => new Date(log[0]!.time).toISOString()).not.toThrow();
  });

  it("keeps a file's content whole (not cut at 2,000), cuts other long arguments, and survives arguments that cannot be serialized", async () => {
    const cyclic: Record<string, unknown> = { path: "x.txt", content: "y".repeat(10_000), note: "n".repeat(10_000) };
    cyclic.self = cyclic;
    const r = await sb.callTool("write_file", cyclic);
    expect(r.isError).toBeUndefined();
    const call = sb.auditLog().filter((e) => e.type === "call").at(-1)!;
    expect((call.args as Record<string, string>).content).toBe("y".repeat(10_000));
    expect(((call.args as Record<string, string>).note ?? "").length).toBeLessThan(2_100);
    expect(() => sb.exportAuditLog()).not.toThrow();
  });

  it("lets the API layer add its own entries", () => {
    const e = sb.audit("event", { event: "rejected-origin", origin: "https://evil.example" });
    expect(sb.auditLog().at(-1)).toEqual(e);
    expect(e).toMatchObject({ type: "event", origin: "https://evil.example" });
  });
});

describe("approvals through the host", () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await createSandbox({ runtime: "node", approver: "host" });
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("asks the calling connection's host approver (MCP elicitation) when it has one", async () => {
    const asked: string[] = [];
    const r = await sb.callTool(
      "bash",
      { command: "rm -f nothing.txt" },
      { caller: "conn-1", hostApprover: async (req) => (asked.push(`${req.caller}:${req.command}`), { decision: "deny", note: "not now" }) },
    );
    expect(asked).toEqual(["conn-1:rm -f nothing.txt"]);
    expect(r.structuredContent.approval).toMatchObject({ decision: "deny", by: "host", note: "not now" });
    expect(text(r)).toMatch(/asked through the host application/);
  });

  it("without a host approver the request waits in the UI's pending list", async () => {
    const p = sb.callTool("bash", { command: "rm -f nothing.txt" });
    while (sb.approvals.pending().length === 0) await new Promise((r) => setTimeout(r, 5));
    const [req] = sb.approvals.pending();
    expect(req).toMatchObject({ route: "ui", command: "rm -f nothing.txt", suggestedRule: "rm:*" });
    sb.approvals.answer(req!.id, { decision: "deny", note: "use the trash folder" });
    const r = await p;
    expect(r.structuredContent.status).toBe("denied");
    expect(text(r)).toContain("Note from the person: use the trash folder");
  });
});

describe("runtime choice, ownership and closing", () => {
  it("reports the runtime: kind, capabilities and workspace; tool descriptions name the workspace", async () => {
    const sb = await createSandbox({ runtime: "node" });
    try {
      expect(sb.runtimeInfo.kind).toBe("node");
      expect(sb.runtimeInfo.capabilities.heredocs).toBe(true);
      expect(sb.runtimeInfo.workspace).toMatch(/sandshell-u\d+\/ws-/);
      expect(sb.listTools()[0]!.description).toContain(sb.runtimeInfo.workspace);
      // No approver given: the Node entry refuses what needs approval at once instead of waiting for nobody.
      expect(sb.approvals.mode).toBe("deny");
      const t0 = performance.now();
      const r = await sb.callTool("bash", { command: "rm -f x.txt" });
      expect(r.structuredContent.approval).toMatchObject({ decision: "deny", by: "policy" });
      expect(performance.now() - t0).toBeLessThan(1_000);
    } finally {
      await sb.close();
    }
  });

  it("uses a given Runtime without disposing it; disposes a runtime it created", async () => {
    const runtime = await createNodeRuntime();
    try {
      const sb = await createSandbox({ runtime });
      expect(sb.runtime).toBe(runtime);
      await sb.close();
      const again = await createSandbox({ runtime });
      expect(text(await again.callTool("bash", { command: "echo still-alive" }))).toMatch(/^still-alive\n/);
      await again.close();
    } finally {
      await runtime.dispose();
    }
    const owned = await createSandbox({ runtime: "node" });
    const ws = owned.runtimeInfo.workspace;
    await owned.close();
    expect(existsSync(ws)).toBe(false);
  });

  it("refuses the webcontainer runtime in Node with a clear error", async () => {
    await expect(createSandbox({ runtime: "webcontainer" })).rejects.toThrow(/runs only in a browser page/);
    await expect(createSandbox({ runtime: "wasm" as never })).rejects.toThrow(/runtime must be/);
  });

  it("the core entry delegates to selectRuntime: auto in Node is bash on the node runtime; webcontainer is refused", async () => {
    const sb = await createCoreSandbox({ runtime: "auto" });
    try {
      expect(sb.runtimeInfo.kind).toBe("node");
      expect(text(await sb.callTool("bash", { command: "echo $BASH_VERSION" }))).toMatch(/^\d+\.\d+/);
    } finally {
      await sb.close();
    }
    await expect(createCoreSandbox({ runtime: "webcontainer" })).rejects.toThrow(/browser/);
  });

  it("close() denies pending approvals; later calls are errors, not exceptions", async () => {
    const sb = await createSandbox({ runtime: "node", approver: "ui" });
    const pending = sb.callTool("bash", { command: "rm -f x.txt" });
    while (sb.approvals.pending().length === 0) await new Promise((r) => setTimeout(r, 5));
    await sb.close();
    const r = await pending;
    expect(r.structuredContent.status).toBe("denied");
    expect(text(r)).toMatch(/sandbox was closed/);
    const after = await sb.callTool("bash", { command: "echo hi" });
    expect(after.isError).toBe(true);
    expect(text(after)).toBe("The sandbox is closed.");
    await sb.close(); // twice is fine
    expect(sb.closed).toBe(true);
  });
});

describe("calls never throw for bad input", () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await createSandbox({ runtime: "node", approver: "deny" });
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("answers odd names and arguments with isError results", async () => {
    const odd: Array<[unknown, unknown]> = [
      [123, {}],
      [undefined, undefined],
      ["bash", 42],
      ["bash", true],
      ["bash", "{{{{"],
      ["bash", { command: { nested: true } }],
      ["read_file", { path: "" }],
      ["read_file", { path: "a\u0000b" }],
      ["job_output", {}],
      ["list_dir", { path: "/" }],
    ];
    for (const [name, args] of odd) {
      const r = await sb.callTool(name as string, args);
      expect(r.isError, `${String(name)} ${JSON.stringify(args)}`).toBe(true);
      expect(r.content[0]!.type).toBe("text");
      expect(text(r).length).toBeGreaterThan(10);
    }
  });

  it("addRule allows a command for the session; a bad rule is a TypeError", async () => {
    expect((await sb.callTool("bash", { command: "ls --zzz" })).structuredContent.status).toBe("denied");
    await sb.addRule("ls --zzz");
    expect(sb.rules().allow).toEqual(["ls --zzz"]);
    const r = await sb.callTool("bash", { command: "ls --zzz" });
    expect(r.structuredContent.verdict).toMatchObject({ decision: "allow", rule: "user-allow" });
    await expect(sb.addRule("  ")).rejects.toThrow(TypeError);
  });
});

describe("a runtime whose shell reads one line at a time (jsh)", () => {
  it("refuses a multi-line command before anything runs, and points to write_file", async () => {
    const real = await createNodeRuntime();
    // The node runtime, but claiming jsh's capabilities: no heredocs means one line at a time.
    const lineAtATime = Object.create(real, { capabilities: { value: { ...real.capabilities, heredocs: false } } });
    const sb = await createSandbox({ runtime: lineAtATime, approver: "deny" });
    try {
      const r = await sb.callTool("bash", { command: "echo one\necho two > /tmp/should-not-exist-$$" });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("write_file");
      expect(text(r)).not.toContain("one\n");
      expect((await sb.callTool("bash", { command: "echo single line" })).content[0]!.text).toMatch(/^single line\n/);
    } finally {
      await sb.close();
      await real.dispose();
    }
  });
});

describe.each(["node", "embedded"] as const)("argument repair never moves text between fields, proved on the %s runtime", (kind) => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ runtime: kind, approver: "deny" });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it("the tripwire works: `touch` in a valid call really creates the file", async () => {
    const r = await sb.callTool("bash", '{"command": "touch TRIPWIRE_OK"}');
    expect(r.isError).toBeUndefined();
    expect(await sb.runtime.fs.stat(`${sb.runtime.workspace}/TRIPWIRE_OK`)).not.toBeNull();
  });

  it("no spelling of a smuggled second field creates F or G", async () => {
    for (const { name, raw } of SMUGGLING_SPELLINGS) {
      const r = await sb.callTool("bash", raw);
      const command = (r.structuredContent.repairedArguments as { command?: string } | undefined)?.command;
      expect(command === undefined || command === "echo hi", `${name}: ran ${command}`).toBe(true);
    }
    for (const f of ["F", "G", "F,", "G,"]) expect(await sb.runtime.fs.stat(`${sb.runtime.workspace}/${f}`), f).toBeNull();
  });

  it("none of the red team's 33 spellings (attacks/args-smuggling.ts) runs its tripwire", async () => {
    for (const [i, { name, raw }] of RED_TEAM_SPELLINGS.entries()) {
      const trip = `T${i + 1}`;
      const r = await sb.callTool("bash", raw(trip));
      if (r.structuredContent.held === true) await sb.callTool("bash", { command: "C-c", is_input: true }); // `echo hi"` waits for its quote
      expect(await sb.runtime.fs.stat(`${sb.runtime.workspace}/${trip}`), `${name} ran its tripwire: ${text(r)}`).toBeNull();
    }
  });
});

describe("commands whose effect outlasts the call (src/sandbox/lasting.ts: what approver=host leaves to the person)", () => {
  it("any part that changes the shell or a configuration read later counts; a one-off command does not", async () => {
    const { createLastingCheck } = await import("../src/sandbox/lasting.ts");
    const check = await createLastingCheck({ policy: "balanced", workspace: "/ws" });
    for (const command of [
      'ls() { touch P; command ls "$@"; }',
      "rm -f junk; ls() { touch P; }",
      "function f { :; }",
      "alias ls='touch P'",
      "trap 'touch P' EXIT",
      "export PATH=/tmp/evil:$PATH",
      "PROMPT_COMMAND=id",
      "cd /tmp && PATH=/x",
      "declare -x BASH_ENV=/tmp/x",
      "printf -v PATH /x",
      "read PATH < x",
      "mapfile -t PATH < x",
      "source ./evil.sh",
      ". ./evil.sh",
      "eval \"$(cat x)\"",
      "umask 000",
      "hash -p /tmp/x ls",
      "echo '[core] pager = touch P' >> .git/config",
      "cp x .git/hooks/pre-commit",
      "git config core.pager 'touch P'",
      "npm config set script-shell /tmp/evil",
    ]) {
      expect(check(command, "/ws"), command).not.toBeNull();
    }
    for (const command of ["rm -f junk", "curl https://example.com", "PAGER=cat git log", "git config --get user.name", "npm config get registry", "npm test"]) {
      expect(check(command, "/ws"), command).toBeNull();
    }
  });
});

describe("release: a caller that is gone leaves nothing in the shell", () => {
  it("a call whose result (running) comes after its caller was released is interrupted too, and its job killed", async () => {
    const sb = await createSandbox({ runtime: "node", approver: "deny", shell: { softTimeoutSec: 0.5 } });
    try {
      const job = await sb.callTool("bash", { command: "sleep 100000", run_in_background: true }, { caller: "gone" });
      const call = sb.callTool("bash", { command: "sleep 100000; touch AFTER" }, { caller: "gone" });
      sb.release("gone"); // no signal: the call goes on and returns `running` after its soft timeout
      expect((await call).structuredContent.status).toBe("running");
      await expect.poll(async () => text(await sb.callTool("bash", { command: "echo next" }, { caller: "other" })), { timeout: 30_000, interval: 200 }).toMatch(/^next/);
      expect(sb.session.listJobs().find((j) => j.id === job.structuredContent.jobId)?.status).toBe("exited");
      expect(await sb.runtime.fs.stat(`${sb.runtime.workspace}/AFTER`)).toBeNull();
    } finally {
      await sb.close();
    }
  });
});
