// The startup canary: a booted WebContainer whose jsh is wrong (never ends a command, lies about exit codes, forgets
// `cd`) is never handed to the sandbox; "auto" falls back to the embedded shell and says which check failed and what
// came back. The broken jsh variants are the scripted fake's (webcontainer-fake.ts); the real boot cannot run here.

import { afterEach, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox.ts";
import { selectRuntime, type RuntimeProgress, type SelectRuntimeOptions, WebContainerUnavailableError } from "../../src/runtime/select.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import { createShellSession } from "../../src/shell/session.ts";
import { CANARY_CHECKS, judge, type CanaryReport } from "../../src/runtime/webcontainer/canary.ts";
import { DEFAULT_PROFILE, type JshStyle, makeWorld } from "./webcontainer-fake.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const reachable = async () => ({ headers: new Headers(), ok: false, status: 0 });

function setup(style: Partial<JshStyle>, extra: Partial<SelectRuntimeOptions> = {}) {
  const w = makeWorld(style);
  cleanups.push(w.cleanup);
  const progress: RuntimeProgress[] = [];
  const reports: CanaryReport[] = [];
  const options: SelectRuntimeOptions = {
    browser: true,
    fetch: reachable,
    onProgress: (p) => progress.push(p),
    onCanary: (r) => reports.push(r),
    canary: createShellSession,
    canaryLimits: { commandMs: 1_500, startMs: 3_000 },
    ...extra,
    webcontainer: { api: w.api, isolation: { isolated: true }, probe: false, promptHoldMs: 30 },
  };
  return { w, options, progress, reports };
}

async function select(kind: "auto" | "webcontainer", options: SelectRuntimeOptions): Promise<Runtime> {
  const rt = await selectRuntime(kind, options);
  cleanups.push(() => rt.dispose());
  return rt;
}

describe("startup canary", () => {
  it("a jsh that answers every check exactly is handed over; each check's result is reported", async () => {
    const { options, progress, reports } = setup({});
    const rt = await select("auto", options);
    expect(rt.kind).toBe("webcontainer");
    expect(rt.note).toBeUndefined();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.ok).toBe(true);
    expect(reports[0]!.results.map((r) => r.id)).toEqual(CANARY_CHECKS.map((c) => c.id));
    expect(progress.some((p) => /Checking the WebContainer shell/.test(p.message))).toBe(true);
    expect(progress.at(-1)).toMatchObject({ phase: "ready", runtime: "webcontainer" });
  });

  it("a jsh that never prints an exit marker: falls back, naming the echo check and what came back", async () => {
    const { options, w } = setup({ exitMarkers: "none" });
    const rt = await select("auto", options);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toContain("failed the startup check of a plain echo and its exit code");
    expect(rt.note).toContain("`echo sandshell-canary`");
    expect(rt.note).toContain("no exit code: jsh reported no exit status (expected 0)");
    // the booted WebContainer's shell was ended, not left running
    await new Promise((r) => setTimeout(r, 50));
    expect(w.instance.shells.every((s) => s.proc.exited || s.proc.kills > 0)).toBe(true);
  }, 20_000);

  it("a jsh that reports exit code 0 for everything: falls back at the failing-command check", async () => {
    const { options } = setup({ exitMarkers: "zero" });
    const rt = await select("auto", options);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toContain("the exit code of a failing command");
    expect(rt.note).toContain("`false` gave exit code 0 (expected 1)");
  }, 20_000);

  it("a jsh that does not keep cd: falls back at the cd check, saying where the shell stayed", async () => {
    const { options, w } = setup({ tracksCd: false });
    const rt = await select("auto", options);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toContain("a cd to /tmp");
    expect(rt.note).toContain(`cwd ${JSON.stringify(w.workdir)} (expected "/tmp")`);
  }, 20_000);

  it("a jsh that hangs on every command (no exit, no prompt): falls back after the canary's limit", async () => {
    const { options } = setup({ transcripts: { "echo sandshell-canary": ["sandshell-canary\r\n"] } });
    const t0 = performance.now();
    const rt = await select("auto", options);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toContain("did not finish within 1.5 s");
    expect(performance.now() - t0).toBeLessThan(10_000);
  }, 20_000);

  it('"webcontainer" (no fallback) throws the canary\'s reason', async () => {
    const { options } = setup({ exitMarkers: "zero" });
    const err = await selectRuntime("webcontainer", options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebContainerUnavailableError);
    expect((err as WebContainerUnavailableError).kind).toBe("canary-failed");
    expect((err as Error).message).toContain("`false` gave exit code 0");
  }, 20_000);

  it("without a session factory for the canary a booted WebContainer is not trusted: auto falls back and says why", async () => {
    const { options, reports } = setup({});
    delete options.canary; // the runtime layer cannot make a shell session itself (it sits below the shell)
    const rt = await select("auto", options);
    expect(rt.kind).not.toBe("webcontainer");
    expect(rt.note).toContain("no session factory was given for the startup canary");
    expect(reports).toHaveLength(0);
  }, 20_000);

  it("the fallback's reason reaches runtimeInfo and the audit log", async () => {
    const { options } = setup({ tracksCd: false });
    delete options.createEmbedded; // the real embedded runtime
    const rt = await select("auto", options);
    const sb = await createSandbox({ runtime: rt, approver: "deny" });
    cleanups.push(() => sb.close());
    expect(sb.runtimeInfo.note).toContain("a cd to /tmp");
    expect(sb.auditLog()[0]).toMatchObject({ type: "event", event: "opened", runtime: "embedded" });
    expect(String(sb.auditLog()[0]!.note)).toContain("a cd to /tmp");
  }, 30_000);

  for (const braceGroups of [false, true]) {
    it(`multi-line on jsh: allowed only when the typed brace-group form works (${braceGroups ? "it does" : "each line runs alone"})`, async () => {
      const w = makeWorld({ braceGroups }, (command) =>
        command.startsWith("cat <<") ? { out: "heredoc-ok\n", code: 0 } : DEFAULT_PROFILE(command),
      );
      cleanups.push(w.cleanup);
      const reports: CanaryReport[] = [];
      const rt = await select("auto", {
        browser: true,
        fetch: reachable,
        onCanary: (r) => reports.push(r),
        canary: createShellSession,
        canaryLimits: { commandMs: 1_500, startMs: 3_000 },
        webcontainer: { api: w.api, isolation: { isolated: true }, probeTimeoutMs: 300, promptHoldMs: 30 },
      });
      expect(rt.kind).toBe("webcontainer"); // a failing multi-line form does not fail the canary
      expect(reports[0]!.multiLine).toBe(braceGroups);
      expect(rt.capabilities.heredocs).toBe(braceGroups);
    }, 30_000);
  }

  it("judge: status, exit code, output and cwd are each compared exactly", () => {
    const echo = CANARY_CHECKS[0]!;
    const ok = { output: "sandshell-canary\n", exitCode: 0, cwd: "/x", status: "completed" };
    expect(judge(echo, ok)).toBeNull();
    expect(judge(echo, { ...ok, output: "sandshell-canary" })).toContain('output "sandshell-canary"');
    expect(judge(echo, { ...ok, exitCode: null })).toContain("no exit code: jsh reported no exit status (expected 0)");
    expect(judge(echo, { ...ok, status: "running" })).toContain('status "running"');
    expect(judge(CANARY_CHECKS[3]!, { ...ok, output: "/tmp\n", cwd: "/home/project" })).toContain('cwd "/home/project"');
  });
});
