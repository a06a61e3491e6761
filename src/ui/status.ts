// The status bar: which runtime serves (booting with progress; WebContainer; the embedded shell and, when it serves
// as a fallback, why, with a retry), the shell's cwd and what runs, the connected agents, the policy.
// In embed mode the same facts fit one line.

import type { ShellState } from "../sandbox.ts";
import { h } from "./dom.ts";

export type RuntimeView =
  | { phase: "booting"; message: string }
  | { phase: "ready"; kind: string; note?: string; fallback: boolean; canRetry: boolean; retrying?: boolean }
  | { phase: "failed"; message: string };

export interface Agent {
  id: string;
  name: string;
  origin: string;
}

export interface StatusBar {
  readonly element: HTMLElement;
  setRuntime(view: RuntimeView): void;
  setShell(state: ShellState): void;
  setAgents(agents: Agent[]): void;
  setPolicy(policy: string, approver: string): void;
  /** A page the API refused (null: clear), so an embed shows it without its activity panel. */
  setRefused(origin: string | null, reason?: string): void;
  onRetry(handler: () => void): void;
}

const RUNTIME_NAMES: Record<string, string> = {
  webcontainer: "WebContainer",
  embedded: "embedded shell",
  node: "bash (node)",
};

export function runtimeName(kind: string): string {
  return RUNTIME_NAMES[kind] ?? kind;
}

export function createStatusBar(embed: boolean): StatusBar {
  const runtime = h("span", { class: "status-item runtime", "data-status": "runtime", "aria-live": "polite" });
  const shell = h("span", { class: "status-item shell", "data-status": "shell" });
  const agents = h("span", { class: "status-item agents", "data-status": "agents" });
  const policy = h("span", { class: "status-item policy", "data-status": "policy" });
  // The last page the API refused (its origin; why, in the tooltip): shown until a page connects.
  const refused = h("span", { class: "status-item refused warn", "data-status": "refused", hidden: true, role: "status" });
  const retry = h("button", { type: "button", class: "link retry", hidden: true }, "Retry WebContainer");
  let retryHandler: (() => void) | null = null;
  retry.addEventListener("click", () => retryHandler?.());
  const element = embed
    ? h("div", { class: "statusline", role: "group", "aria-label": "Status" }, runtime, retry, sep(), refused, shell, sep(), agents, sep(), policy)
    : h("footer", { class: "statusbar", "aria-label": "Status" }, runtime, retry, refused, shell, agents, policy);

  function label(name: string, value: Node | string): Array<Node | string> {
    return embed ? [value] : [h("span", { class: "status-label" }, `${name} `), value];
  }

  return {
    element,
    setRuntime(view) {
      runtime.dataset.phase = view.phase;
      if (view.phase === "booting") {
        runtime.replaceChildren(...label("runtime", h("span", { class: "busy" }, h("span", { class: "spinner", "aria-hidden": "true" }), `starting: ${view.message}`)));
        runtime.title = view.message;
        retry.hidden = true;
      } else if (view.phase === "failed") {
        runtime.replaceChildren(...label("runtime", h("span", { class: "bad" }, `could not start: ${view.message}`)));
        runtime.title = view.message;
        retry.hidden = true;
      } else {
        runtime.dataset.kind = view.kind;
        const name = runtimeName(view.kind);
        const text = view.retrying
          ? `${name} · retrying WebContainer…`
          : view.fallback
            ? `${name} (WebContainer unavailable)`
            : name;
        runtime.replaceChildren(...label("runtime", h("span", { class: view.fallback ? "warn" : "good" }, text)));
        runtime.title = view.note ?? name;
        retry.hidden = !view.fallback || !view.canRetry || view.retrying === true;
      }
    },
    setShell(state) {
      const what =
        state.state === "running"
          ? state.by === "agent"
            ? `agent runs ${state.command ?? "a command"}`
            : "you run a command"
          : state.state === "starting"
            ? "starting"
            : state.state === "closed"
              ? "closed"
              : "idle";
      shell.replaceChildren(...label("cwd", h("code", {}, state.cwd)), embed ? "" : h("span", { class: `shell-state ${state.state}` }, ` · ${what}`));
      shell.title = `${state.cwd} · ${what}`;
    },
    setAgents(list) {
      const text = list.length === 0 ? "none" : list.map((a) => a.name).join(", ");
      agents.replaceChildren(...label("agents", embed ? `${list.length === 0 ? "no" : list.length} agent${list.length === 1 ? "" : "s"}` : text));
      agents.title = list.length === 0 ? "No agent is connected" : list.map((a) => `${a.name} (${a.origin})`).join("\n");
      agents.dataset.count = String(list.length);
    },
    setPolicy(p, approver) {
      policy.replaceChildren(...label("policy", embed ? p : `${p} · approvals: ${approver}`));
      policy.title = `policy ${p}, approvals answered by ${approver}`;
    },
    setRefused(origin, reason) {
      if (origin === null) {
        refused.hidden = true;
        refused.replaceChildren();
        return;
      }
      refused.hidden = false;
      refused.replaceChildren(embed ? `refused ${origin} · ` : h("span", { class: "status-label" }, "refused "), embed ? "" : `${origin}`);
      refused.title = `Refused a connection from ${origin}: ${reason ?? "not on the allowed list"}`;
    },
    onRetry(handler) {
      retryHandler = handler;
    },
  };
}

function sep(): HTMLElement {
  return h("span", { class: "sep", "aria-hidden": "true" }, "·");
}
