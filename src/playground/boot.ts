// Loaded after the page has painted (a dynamic import): the sandbox (runtime, shell, guard, tools), the postMessage
// API, the client used by the demo agent, and WebContainer's retry. Everything heavy lives behind this module.

import { serveSandbox, type ApiEvent, type ApiServer } from "../api/index.ts";
import { connectOverPort } from "../client/index.ts";
import { createSandbox, type CallToolResult, type Sandbox } from "../sandbox.ts";
import { retryWebContainer, selectRuntime, webContainerStatus, whenWebContainerBoots, type RuntimeProgress } from "../runtime/select.ts";
import type { Runtime, ShellSpawnOptions, TerminalProcess } from "../runtime/types.ts";
import { createShellSession } from "../shell/session.ts";
import { toolSpecs } from "../tools/specs.ts";
import type { DemoAgent } from "./demo.ts";
import type { Params } from "./params.ts";

export type { RuntimeProgress };

/** A sandbox, and what its shell printed before anyone watched (its banner and first prompt). */
export interface Started {
  sandbox: Sandbox;
  /** The shell's output so far; later output comes through sandbox.session.onRawOutput. Taking it ends the recording. */
  takeEarlyOutput(): string;
  /** Closes the sandbox and disposes its runtime. */
  close(): Promise<void>;
}

/**
 * The runtime with its first shell's output recorded: the shell draws its banner and first prompt while the sandbox is
 * being built, before the terminal can subscribe to the session. (Everything else passes through untouched.)
 */
function recorded(runtime: Runtime): { runtime: Runtime; take(): string } {
  let chunks: string[] | null = [];
  const wrapped = new Proxy(runtime, {
    get(target, prop) {
      if (prop === "spawnShell") {
        return async (options: ShellSpawnOptions): Promise<TerminalProcess> => {
          const proc = await target.spawnShell(options);
          proc.onData((chunk) => chunks?.push(chunk));
          return proc;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    runtime: wrapped,
    take() {
      const text = (chunks ?? []).join("");
      chunks = null;
      return text;
    },
  };
}

async function open(runtime: Runtime, params: Params, rules?: Sandbox["rules"] extends () => infer R ? R : never): Promise<Started> {
  const rec = recorded(runtime);
  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox({ runtime: rec.runtime, policy: params.policy, approver: params.approver, ...(rules ? { rules } : {}) });
  } catch (err) {
    await runtime.dispose().catch(() => undefined);
    throw err;
  }
  return {
    sandbox,
    takeEarlyOutput: rec.take,
    close: async () => {
      await sandbox.close();
      await runtime.dispose().catch(() => undefined);
    },
  };
}

export async function startSandbox(params: Params, onProgress: (p: RuntimeProgress) => void): Promise<Started> {
  return open(await selectRuntime(params.runtime, { onProgress, canary: createShellSession }), params);
}

/** A sandbox on WebContainer again (the status bar's Retry); keeps the policy, approver and the session's rules. */
export async function retrySandbox(old: Sandbox, params: Params, onProgress: (p: RuntimeProgress) => void): Promise<Started> {
  return open(await retryWebContainer({ onProgress, canary: createShellSession }), params, old.rules());
}

/** Resolves true when a WebContainer boot still in flight after the fallback completes (for the switch offer). */
export function lateWebContainerBoot(): Promise<boolean> {
  return whenWebContainerBoots().catch(() => false);
}

/** Whether Retry can work without a reload. */
export async function canRetryWebContainer(): Promise<boolean> {
  try {
    return !(await webContainerStatus()).reloadNeeded;
  } catch {
    return true;
  }
}

/** The API serves whichever sandbox is current: a retry swaps it underneath open connections. */
export function serve(current: () => Sandbox, params: Params, onEvent: (e: ApiEvent) => void): ApiServer {
  const host = {
    listTools: () => current().listTools(),
    callTool: (name: string, args: Record<string, unknown> | string, options?: Parameters<Sandbox["callTool"]>[2]) =>
      current().callTool(name, args, options),
    audit: (type: "event", data: Record<string, unknown>) => current().audit(type, data),
    // A connection that ends leaves nothing behind: its rules, running command, jobs and held input (sandbox.release).
    release: (caller: string) => current().release(caller),
  };
  const anyOrigin = params.origins.includes("*");
  return serveSandbox(host, {
    origins: params.origins.filter((o) => o !== "*"),
    allowAny: anyOrigin,
    onEvent,
  });
}

/** The demo agent's connection: an MCP client on one end of a MessageChannel, the API's server on the other. */
export async function connectDemoAgent(api: ApiServer): Promise<DemoAgent> {
  const channel = new MessageChannel();
  api.connect(channel.port2, location.origin);
  const conn = await connectOverPort(channel.port1, { origin: location.origin, clientInfo: { name: "demo-agent", version: "1.0.0" } });
  return {
    callTool: async (name, args) => (await conn.callTool(name, args)) as unknown as CallToolResult,
    close: () => conn.close(),
  };
}

/** Arguments the tool console starts with: examples that work in a fresh playground workspace. */
export function toolExamples(workspace: string): Record<string, unknown> {
  const fromSpecs = Object.fromEntries(toolSpecs(workspace).map((s) => [s.name, s.example]));
  return {
    ...fromSpecs,
    bash: { command: "echo hello from the tool console && ls -la" },
    write_file: { path: "notes/hello.txt", content: "hello\nfrom the tool console\n" },
    read_file: { path: "notes/hello.txt" },
    edit_file: { path: "notes/hello.txt", old_str: "hello", new_str: "hi" },
    list_dir: { path: ".", depth: 2 },
  };
}
