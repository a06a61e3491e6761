// The live test's page script (served by Vite's dev server, so the adapter and the session engine run as they are):
// boots WebContainer through the adapter, runs commands through the session engine, and records raw transcripts of
// the fact sheet's probe lines (shared/research/webcontainer-and-jsh.md, "Probe script") for whoever reads the log.

import { selectRuntime } from "../../src/runtime/select.ts";
import type { Capabilities, Runtime } from "../../src/runtime/types.ts";
import { createWebContainerRuntime, type ProbeResult } from "../../src/runtime/webcontainer.ts";
import { createShellSession, type ShellResult } from "../../src/shell/session.ts";

export interface LiveStep {
  command: string;
  result: ShellResult;
  /** Raw terminal chunks while it ran (JSON-safe strings). */
  raw: string[];
}

export interface LiveResult {
  crossOriginIsolated: boolean;
  progress: string[];
  bootMs: number;
  workspace: string;
  capabilities: Capabilities;
  probes: ProbeResult[];
  startupRaw: string[];
  echo: LiveStep;
  node: LiveStep;
  failing: LiveStep;
  cd: LiveStep;
  pwd: LiveStep;
  transcripts: LiveStep[];
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

window.sandshellLive = async (): Promise<LiveResult> => {
  const t0 = performance.now();
  const progress: string[] = [];
  const runtime = await createWebContainerRuntime({
    onProgress: (message) => progress.push(`${Math.round(performance.now() - t0)} ms: ${message}`),
  });
  const bootMs = Math.round(performance.now() - t0);
  const chunks: string[] = [];
  const session = await createShellSession(runtime, { softTimeoutSec: 5, timeoutSec: 60 });
  session.onRawOutput((chunk) => chunks.push(chunk));
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
  await session.close();
  await runtime.dispose();
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    progress,
    bootMs,
    workspace: runtime.workspace,
    capabilities: runtime.capabilities,
    probes: [...runtime.probes],
    startupRaw,
    echo,
    node,
    failing,
    cd,
    pwd,
    transcripts,
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
