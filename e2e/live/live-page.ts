// The live test's page script (served by Vite's dev server, so the adapter and the session engine run as they are):
// boots WebContainer through the adapter, runs commands through the session engine, and records raw transcripts of
// the fact sheet's probe lines (shared/research/webcontainer-and-jsh.md, "Probe script") for whoever reads the log.

import { selectRuntime } from "../../src/runtime/select.ts";
import type { Capabilities, Runtime } from "../../src/runtime/types.ts";
import type { ProbeResult, WebContainerRuntime, WcInstance } from "../../src/runtime/webcontainer.ts";
import type { CanaryReport } from "../../src/runtime/webcontainer/canary.ts";
import { createShellSession, type ShellResult } from "../../src/shell/index.ts";

export interface LiveStep {
  command: string;
  result: ShellResult;
  /** Raw terminal chunks while it ran (JSON-safe strings). */
  raw: string[];
}

/** One line sent to a bare `jsh --osc`, and every raw output chunk after it (ms since the spawn, JSON-safe text). */
export interface RawExchange {
  label: string;
  sent: string;
  chunks: Array<{ ms: number; data: string }>;
}

export interface LiveResult {
  crossOriginIsolated: boolean;
  progress: string[];
  bootMs: number;
  /** What "auto" chose online (must be webcontainer) and why not, if not. */
  autoKind: string;
  autoNote: string | undefined;
  canary: CanaryReport | null;
  workspace: string;
  capabilities: Capabilities;
  probes: ProbeResult[];
  /** The bare `jsh --osc`, subscribed from its spawn: startup transcript, then each fact-sheet line. */
  bare: { startup: RawExchange; lines: RawExchange[] };
  startupRaw: string[];
  echo: LiveStep;
  node: LiveStep;
  failing: LiveStep;
  cd: LiveStep;
  pwd: LiveStep;
  transcripts: LiveStep[];
  /** 1 MB written, 1 MB appended and read back under /tmp (the file helper). */
  tmpFile: { path: string; wroteBytes: number; readBytes: number; same: boolean; ms: number; error?: string };
  job: { started: unknown; output: unknown; killed: unknown; error?: string };
  /** `cd /tmp && exit`, then `pwd`: where the fresh shell starts, and what the session says. */
  exitOutside: { exit: LiveStep; pwd: LiveStep; sessionCwd: string };
}

export interface FallbackResult {
  crossOriginIsolated: boolean;
  kind: string;
  note: string | undefined;
  ms: number;
  progress: string[];
}

declare global {
  interface Window {
    sandshellLive(): Promise<LiveResult>;
    sandshellFallback(): Promise<FallbackResult>;
  }
}

/** The fact sheet's probe lines (one command each), to settle what is UNKNOWN there. */
const FACT_SHEET_LINES = [
  "echo a",
  "false",
  "echo $?",
  "true || echo x",
  "echo a; echo b",
  "echo hi | cat",
  "echo hi > /tmp/t && cat /tmp/t",
  "ls nope 2>&1",
  "(echo sub)",
  "echo $(pwd)",
  "export X=1 && echo $X",
  "cat <<'EOF'\nx\nEOF",
  "which python3 grep sed awk git sleep",
  "echo é € 😀 日本",
  'node -e "setInterval(()=>{},1e3)"',
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A bare `jsh --osc` on the booted container, read from its spawn (nothing of the adapter in between): each line is
 * sent alone, and its chunks are recorded until the output has been quiet for 1.5 s (at most 15 s).
 */
async function bareJsh(wc: WcInstance): Promise<LiveResult["bare"]> {
  const t0 = performance.now();
  const proc = await wc.spawn("jsh", ["--osc"], { terminal: { cols: 200, rows: 50 } });
  let current: RawExchange = { label: "startup", sent: "", chunks: [] };
  let lastAt = performance.now();
  const reader = proc.output.getReader();
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) return;
      lastAt = performance.now();
      current.chunks.push({ ms: Math.round(lastAt - t0), data: String(r.value) });
    }
  })();
  const writer = proc.input.getWriter();
  const settle = async (): Promise<void> => {
    const began = performance.now();
    await sleep(300);
    while (performance.now() - lastAt < 1_500 && performance.now() - began < 15_000) await sleep(100);
  };
  await settle();
  const startup = current;
  const lines: RawExchange[] = [];
  const send = async (label: string, sent: string): Promise<void> => {
    current = { label, sent, chunks: [] };
    lines.push(current);
    await writer.write(sent).catch(() => undefined);
    await settle();
  };
  for (const line of FACT_SHEET_LINES) await send(line, `${line.replace(/\n/g, "\r")}\r`);
  await send("C-c at an idle prompt", "\x03");
  await send("a long-running command", 'node -e "setInterval(()=>{},1e3)"\r');
  await send("C-c while it runs", "\x03");
  await send("a parse error", "echo (\r");
  await send("a 1,500-character command", `echo ${"x".repeat(1_495)}\r`);
  await send("multi-line as the session types it (a brace group)", "{\recho ml-a\recho ml-b\r}\r");
  await send("cd /tmp && exit", "cd /tmp && exit\r");
  proc.kill();
  await reader.cancel().catch(() => undefined);
  return { startup, lines };
}

window.sandshellLive = async (): Promise<LiveResult> => {
  const t0 = performance.now();
  const progress: string[] = [];
  let canary: CanaryReport | null = null;
  // "auto" online, as a real user gets it: boot, probes, startup canary.
  const runtime = (await selectRuntime("auto", {
    onProgress: (p) => progress.push(`${Math.round(performance.now() - t0)} ms: ${p.phase} ${p.runtime}: ${p.message}`),
    onCanary: (report) => (canary = report),
    canary: createShellSession,
  })) as Runtime & Partial<WebContainerRuntime>;
  const bootMs = Math.round(performance.now() - t0);
  if (runtime.kind !== "webcontainer" || runtime.container === undefined) {
    throw new Error(`auto chose ${runtime.kind} online: ${runtime.note ?? "(no note)"}; canary: ${JSON.stringify(canary)}`);
  }
  const bare = await bareJsh(runtime.container);

  const chunks: string[] = [];
  const recorded: Runtime = new Proxy(runtime, {
    get(target, prop) {
      if (prop === "spawnShell") {
        return async (o: Parameters<Runtime["spawnShell"]>[0]) => {
          const proc = await target.spawnShell(o);
          proc.onData((chunk) => chunks.push(chunk)); // from the spawn: the startup transcript too
          return proc;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const session = await createShellSession(recorded, { softTimeoutSec: 5, timeoutSec: 60 });
  const startupRaw = chunks.splice(0);

  const step = async (command: string): Promise<LiveStep> => {
    const from = chunks.length;
    let result = await session.run(command);
    if (result.status === "running") result = await session.interrupt();
    return { command, result, raw: chunks.slice(from) };
  };

  const echo = await step("echo hi");
  const node = await step("node -v");
  const failing = await step("ls /definitely/not/here");
  await step("mkdir -p live/sub");
  const cd = await step("cd live/sub");
  const pwd = await step("pwd");
  await step(`cd ${runtime.workspace}`);
  const transcripts: LiveStep[] = [];
  for (const line of FACT_SHEET_LINES) transcripts.push(await step(line));

  // 1 MB write + 1 MB append + read under /tmp (outside the workdir: the node helper, 48 KiB per process)
  const tmpFile: LiveResult["tmpFile"] = { path: "/tmp/sandshell-live/big.bin", wroteBytes: 0, readBytes: 0, same: false, ms: 0 };
  const ft = performance.now();
  try {
    const mb = new Uint8Array(1024 * 1024).map((_, i) => (i * 7) % 251);
    await runtime.fs.mkdir("/tmp/sandshell-live", { recursive: true });
    await runtime.fs.writeFile(tmpFile.path, mb);
    const tail = "x".repeat(1024 * 1024);
    await runtime.fs.appendFile(tmpFile.path, tail);
    const back = await runtime.fs.readFile(tmpFile.path);
    tmpFile.wroteBytes = mb.length + tail.length;
    tmpFile.readBytes = back.length;
    tmpFile.same = back.length === tmpFile.wroteBytes && back.subarray(0, mb.length).every((b, i) => b === mb[i]) && back[back.length - 1] === 120;
  } catch (err) {
    tmpFile.error = String(err);
  }
  tmpFile.ms = Math.round(performance.now() - ft);

  // a background job, its output, and a kill
  const job: LiveResult["job"] = { started: null, output: null, killed: null };
  try {
    const info = await session.startJob(`node -e "setInterval(()=>console.log('tick'),200)"`);
    job.started = info;
    await sleep(1_500);
    job.output = await session.jobOutput(info.id);
    job.killed = await session.killJob(info.id);
  } catch (err) {
    job.error = String(err);
  }

  const exit = await step("cd /tmp && exit");
  const after = await step("pwd");
  const exitOutside = { exit, pwd: after, sessionCwd: session.cwd };

  await session.close();
  await runtime.dispose();
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    progress,
    bootMs,
    autoKind: runtime.kind,
    autoNote: runtime.note,
    canary,
    workspace: runtime.workspace,
    capabilities: runtime.capabilities,
    probes: [...(runtime.probes ?? [])],
    bare,
    startupRaw,
    echo,
    node,
    failing,
    cd,
    pwd,
    transcripts,
    tmpFile,
    job,
    exitOutside,
  };
};

/** Offline: "auto" must fall back within WEBCONTAINER.unreachableFallbackMs (a stand-in embedded runtime: only the decision is tested). */
window.sandshellFallback = async (): Promise<FallbackResult> => {
  const t0 = performance.now();
  const progress: string[] = [];
  const stand_in = { kind: "embedded" } as unknown as Runtime;
  const runtime = await selectRuntime("auto", {
    createEmbedded: async () => stand_in,
    onProgress: (p) => progress.push(`${Math.round(performance.now() - t0)} ms: ${p.phase} ${p.runtime}: ${p.message}`),
  });
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    kind: runtime.kind,
    note: runtime.note,
    ms: Math.round(performance.now() - t0),
    progress,
  };
};
