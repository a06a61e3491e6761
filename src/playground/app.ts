// The playground's controller: paints the layout, loads the sandbox after the first paint, attaches every view to it
// (the views only watch the sandbox; the demo agent and host pages reach it through the API), serves the API, and
// swaps the sandbox when a retry brings WebContainer up.

import type { ApiEvent, ApiServer } from "../api/index.ts";
import type { Sandbox, ShellState } from "../sandbox.ts";
import { UI } from "../limits.ts";
import { h } from "../ui/dom.ts";
import { perFrame } from "../ui/frame.ts";
import { runDemo } from "./demo.ts";
import { buildLayout, type Layout } from "../ui/layout.ts";
import type { ParamProblem, Params } from "./params.ts";
import { runtimeName, type Agent } from "../ui/status.ts";
import { initTheme } from "../ui/theme.ts";
import { offerLateSwitch } from "../ui/switch-offer.ts";

type Boot = typeof import("./boot.ts");
type Progress = import("./boot.ts").RuntimeProgress;
type Started = import("./boot.ts").Started;

/** What tests, the bench and curious people reach from the console: `await sandshell.ready`. */
export interface PageHook {
  params: Params;
  ready: Promise<Sandbox>;
  readonly sandbox: Sandbox | null;
  readonly api: ApiServer | null;
  /** performance.now() when the fallback to the embedded shell was decided, if it was. */
  fallbackAt: number | null;
}

declare global {
  interface Window {
    sandshell?: PageHook;
  }
}

function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

export function startApp(params: Params, problems: ParamProblem[]): PageHook {
  initTheme();
  const ui = buildLayout(params.embed);
  let current: Sandbox | null = null;
  let api: ApiServer | null = null;
  let detach: Array<() => void> = [];
  let resolveReady!: (s: Sandbox) => void;
  let rejectReady!: (e: unknown) => void;
  const hook: PageHook = {
    params,
    ready: new Promise<Sandbox>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    }),
    get sandbox() {
      return current;
    },
    get api() {
      return api;
    },
    fallbackAt: null,
  };
  hook.ready.catch(() => undefined);

  if (problems.length > 0) {
    ui.notices.show({
      kind: "warning",
      key: "params",
      title: problems.length === 1 ? "A URL parameter was not understood:" : "Some URL parameters were not understood:",
      body: h(
        "ul",
        { class: "param-problems" },
        ...problems.map((p) =>
          h(
            "li",
            { "data-param": p.name },
            h("code", {}, p.name),
            " got ",
            h("code", {}, JSON.stringify(p.got)),
            "; accepted: ",
            h("code", {}, p.accepted),
            ". Using ",
            h("code", {}, p.using),
            ".",
          ),
        ),
      ),
      dismissible: true,
    });
  }
  ui.status.setPolicy(params.policy, params.approver);
  ui.status.setAgents([]);
  ui.status.setShell({ state: "starting", cwd: "~" });
  ui.status.setRuntime({ phase: "booting", message: "loading the sandbox…" });
  ui.terminal.note(`Sandshell: starting the shell (runtime=${params.runtime})…`);

  const onProgress = (p: Progress): void => {
    if (p.phase === "falling-back" && hook.fallbackAt === null) hook.fallbackAt = performance.now();
    if (p.phase !== "ready") ui.status.setRuntime({ phase: "booting", message: p.message });
    // Into the terminal only while it has no shell yet: later lines would tear the prompt.
    if (p.phase !== "ready" && current === null) ui.terminal.note(p.message);
  };

  let started: Started | null = null;

  function attach(next: Started, boot: Boot): void {
    for (const off of detach) off();
    detach = [];
    started = next;
    const sandbox = next.sandbox;
    current = sandbox;
    const info = sandbox.runtimeInfo;
    const banner =
      info.kind === "embedded"
        ? "The embedded shell: bash-like (just-bash), in a Web Worker, files in memory."
        : `${runtimeName(info.kind)} is ready.`;
    ui.terminal.note(banner + (params.embed ? "" : " Type a command, or run the demo agent."));
    detach.push(ui.terminal.attach(sandbox.session, next.takeEarlyOutput()));
    // The latest state, at most every UI.panelRedrawMs (ui/frame.ts): the views watch, never on a call's path.
    const shellState = perFrame<ShellState>((states) => {
      const state = states[states.length - 1]!;
      ui.status.setShell(state);
      ui.shellNote.dataset.state = state.state === "running" ? (state.by ?? "") : state.state;
      ui.shellNote.textContent =
        state.state === "running"
          ? state.by === "agent"
            ? `An agent runs ${state.command ?? "a command"}: your keys wait (Ctrl+C stops it)`
            : "Your command runs"
          : state.state === "idle"
            ? `Shared with the agents · ${state.cwd}`
            : state.state;
      if (states.some((s) => s.state === "idle")) void ui.files?.refresh();
    }, { minIntervalMs: UI.panelRedrawMs });
    detach.push(sandbox.session.onState((state) => shellState.push(state)), () => shellState.flush());
    detach.push(ui.approvals.attach(sandbox.approvals));
    if (ui.activity !== undefined) detach.push(ui.activity.attach(sandbox));
    if (ui.files !== undefined) detach.push(ui.files.attach(sandbox.runtime.fs, info.workspace));
    if (ui.console !== undefined) {
      const examples = boot.toolExamples(info.workspace);
      detach.push(
        ui.console.attach({
          listTools: () => sandbox.listTools(),
          callTool: (name, args) => sandbox.callTool(name, args, { caller: "tool console" }),
          examples,
        }),
      );
    }
    showRuntime(sandbox, boot);
  }

  /** The status bar's runtime and, when WebContainer is not serving though it was wanted, why (with a retry). */
  function showRuntime(sandbox: Sandbox, boot: Boot, state: { retrying?: boolean; failure?: string } = {}): void {
    const info = sandbox.runtimeInfo;
    const fallback = info.kind === "embedded" && params.runtime !== "embedded" && (info.note !== undefined || state.failure !== undefined);
    const retrying = state.retrying === true;
    void (fallback ? boot.canRetryWebContainer() : Promise.resolve(false)).then((canRetry) => {
      if (current !== sandbox) return;
      ui.status.setRuntime({ phase: "ready", kind: info.kind, ...(info.note !== undefined ? { note: info.note } : {}), fallback, canRetry, retrying });
      if (!fallback) {
        ui.notices.hide("runtime");
        return;
      }
      const retry = h("button", { type: "button", disabled: retrying || !canRetry }, retrying ? "Retrying…" : "Retry WebContainer");
      retry.addEventListener("click", () => void doRetry(boot));
      ui.notices.show({
        kind: "warning",
        key: "runtime",
        title:
          state.failure !== undefined
            ? "WebContainer still could not start; the embedded shell keeps serving."
            : "WebContainer could not start.",
        body: h("span", { class: "runtime-reason" }, state.failure ?? info.note ?? ""),
        actions: canRetry ? [retry] : [],
        dismissible: true,
      });
    });
  }

  let retrying = false;
  async function doRetry(boot: Boot): Promise<void> {
    const old = started;
    if (old === null || retrying) return;
    retrying = true;
    showRuntime(old.sandbox, boot, { retrying: true });
    try {
      const next = await boot.retrySandbox(old.sandbox, params, onProgress);
      attach(next, boot);
      await old.close();
    } catch (err) {
      showRuntime(old.sandbox, boot, { failure: err instanceof Error ? err.message : String(err) });
    } finally {
      retrying = false;
    }
  }

  function agents(): Agent[] {
    if (api === null) return [];
    return api.sessions().map((s) => {
      let name = s.id;
      try {
        name = s.server.getClientVersion()?.name ?? s.id;
      } catch {
        // not initialized yet
      }
      return { id: s.id, name, origin: s.origin };
    });
  }

  /** "demo-agent (c1)" for a connection id; remembered after the connection closes. */
  const known = new Map<string, string>();
  function callerName(caller: string): string {
    const live = agents().find((a) => a.id === caller);
    if (live !== undefined && live.name !== live.id) known.set(caller, `${live.name} (${live.id})`);
    return known.get(caller) ?? caller;
  }
  ui.approvals.setNames(callerName);
  ui.activity?.setNames(callerName);
  ui.activity?.onResult(() => void ui.files?.refresh());
  ui.activity?.onCount((n) => ui.tabs?.badge("activity", String(n)));

  function onApiEvent(e: ApiEvent): void {
    if (e.type === "connected" || e.type === "initialized" || e.type === "disconnected") {
      setTimeout(() => ui.status.setAgents(agents()), 0);
      if (e.type === "connected") ui.status.setRefused(null);
    } else if (e.type === "rejected") {
      ui.status.setRefused(e.origin ?? "a page", e.detail);
    } else if (e.type === "warning") {
      ui.notices.show({ kind: "warning", key: `api-${e.detail}`, title: "API:", body: e.detail, dismissible: true });
    }
  }

  function wireDemo(boot: Boot): void {
    const button = ui.demoButton;
    if (button === undefined) return;
    button.disabled = false;
    button.addEventListener("click", async () => {
      if (current === null || api === null) return;
      button.disabled = true;
      ui.tabs?.select("activity");
      const sandbox = current;
      const server = api;
      await runDemo({
        connect: () => boot.connectDemoAgent(server),
        addRule: (rule) => sandbox.addRule(rule, "allow"),
        say: (step, total, text) =>
          ui.notices.show({
            kind: "info",
            key: "demo",
            title: `Scripted demo (not an AI model), step ${step} of ${total}:`,
            body: text,
          }),
        done: (summary, ok) =>
          ui.notices.show({ kind: ok ? "info" : "error", key: "demo", title: "Demo finished.", body: summary, dismissible: true }),
      });
      button.disabled = false;
    });
  }

  void (async () => {
    await nextPaint();
    let boot: Boot;
    let first: Started;
    try {
      boot = await import("./boot.ts");
      first = await boot.startSandbox(params, onProgress);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      ui.status.setRuntime({ phase: "failed", message: reason });
      ui.terminal.note(`The sandbox could not start: ${reason}`);
      ui.notices.show({ kind: "error", key: "runtime", title: "The sandbox could not start.", body: reason });
      rejectReady(err);
      return;
    }
    attach(first, boot);
    offerLateSwitch({
      notices: ui.notices,
      whenReady: boot.lateWebContainerBoot,
      applies: () => current?.runtimeInfo.kind === "embedded" && params.runtime !== "embedded",
      busy: () => current === null || current.session.busy || current.approvals.pending().length > 0,
      switchNow: () => doRetry(boot),
    });
    try {
      api = boot.serve(() => current!, params, onApiEvent);
    } catch (err) {
      console.warn("sandshell: the postMessage API could not start:", err);
      ui.notices.show({ kind: "error", key: "api", title: "The postMessage API could not start:", body: String(err), dismissible: true });
    }
    wireDemo(boot);
    document.documentElement.dataset.ready = "true";
    resolveReady(first.sandbox);
  })();

  return hook;
}
