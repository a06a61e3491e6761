// Activity: every tool call as it happens, from the sandbox's audit entries: the arguments, the guard's verdict and
// rule, the approval, then status, exit code, duration and output (folded when long). Rules added and API events
// show as single lines. Export writes the whole audit log as JSONL. Entries are drawn once per animation frame
// (frame.ts): the panel watches, it is never on a tool call's path.

import { UI } from "../limits.ts";
import type { AuditEntry, Sandbox } from "../sandbox.ts";
import { download, fill, h } from "./dom.ts";
import { perFrame } from "./frame.ts";
import { clock, formatDuration, headline, json } from "./format.ts";

interface Card {
  el: HTMLElement;
  verdict: HTMLElement;
  approval: HTMLElement;
  result: HTMLElement;
  output: HTMLElement;
}

export interface ActivityPanel {
  readonly element: HTMLElement;
  attach(sandbox: Sandbox): () => void;
  /** Called after every tool call's result (the files panel refreshes then). */
  onResult(listener: (entry: AuditEntry) => void): void;
  /** Counts for the tab label. */
  onCount(listener: (calls: number) => void): void;
  /** How callers (API connection ids) are shown: "demo-agent (c1)". */
  setNames(resolve: (caller: string) => string): void;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

/** What a call is about, in one line: the command, the path, the job. */
export function summary(tool: string, args: unknown): string {
  let a = args;
  if (typeof a === "string") {
    try {
      a = JSON.parse(a);
    } catch {
      return headline(args as string);
    }
  }
  if (typeof a !== "object" || a === null) return "";
  const o = a as Record<string, unknown>;
  if (tool === "bash") return headline(str(o.command ?? o.cmd) + (o.run_in_background === true ? " &" : ""));
  if (tool === "job_output" || tool === "job_kill") return str(o.id);
  if (tool === "list_dir") return str(o.path) || ".";
  return str(o.path ?? o.file_path);
}

function foldable(label: string, text: string, cls: string): HTMLElement {
  const lines = text.split("\n").length;
  const long = lines > UI.activityFoldLines || text.length > UI.activityFoldChars;
  const pre = h("pre", { class: cls, tabindex: "0", "aria-label": label }, text);
  if (!long) return pre;
  return h("details", { class: "fold" }, h("summary", {}, `${label} (${lines} lines, ${text.length.toLocaleString("en-US")} characters)`), pre);
}

export function createActivity(): ActivityPanel {
  const list = h("ol", { class: "activity-list", "aria-label": "Tool calls" });
  const empty = h("p", { class: "empty" }, "No tool calls yet. Run the demo agent, use the tool console, or connect a host page.");
  const exportButton = h("button", { type: "button", class: "ghost", disabled: true }, "Export JSONL");
  const clearButton = h("button", { type: "button", class: "ghost", disabled: true, title: "Clears this view; the audit log keeps everything" }, "Clear view");
  const element = h(
    "div",
    { class: "activity" },
    h("div", { class: "toolbar" }, h("span", { class: "toolbar-title", id: "activity-title" }, "Every tool call, as it happens"), exportButton, clearButton),
    empty,
    h("div", { role: "log", "aria-labelledby": "activity-title" }, list),
  );
  const cards = new Map<string, Card>();
  const resultListeners = new Set<(entry: AuditEntry) => void>();
  const countListeners = new Set<(n: number) => void>();
  let calls = 0;
  let sandbox: Sandbox | null = null;
  let names = (caller: string): string => caller;

  exportButton.addEventListener("click", () => {
    if (sandbox === null) return;
    download(`sandshell-audit-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`, sandbox.exportAuditLog());
  });
  clearButton.addEventListener("click", () => {
    list.replaceChildren();
    cards.clear();
    empty.hidden = false;
  });

  /**
   * Keeps the newest call in view when the person was looking at the end. Reading where the panel is scrolled makes the
   * browser lay the page out: it is read once before a batch of entries is drawn and written once after, never
   * between two entries (each read after a change would lay the page out again).
   */
  function stick(): () => void {
    const scroller = (element.closest(".tabpanel") as HTMLElement | null) ?? element;
    const atEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 60;
    return () => {
      if (atEnd) scroller.scrollTop = scroller.scrollHeight;
    };
  }

  /** Draws entries in order, with one layout read before and one scroll after. */
  function draw(entries: Iterable<AuditEntry>): void {
    const restore = stick();
    for (const entry of entries) onEntry(entry);
    restore();
  }

  function add(el: HTMLElement): void {
    empty.hidden = true;
    list.append(el);
    while (list.children.length > UI.activityMaxCalls) {
      const first = list.firstElementChild as HTMLElement;
      if (first.dataset.callId) cards.delete(first.dataset.callId);
      first.remove();
    }
  }

  function line(entry: AuditEntry, text: string, cls: string): void {
    add(h("li", { class: `activity-line ${cls}` }, h("time", { datetime: entry.time }, clock(entry.time)), " ", text));
  }

  function onEntry(e: AuditEntry): void {
    const callId = e.callId;
    switch (e.type) {
      case "call": {
        if (callId === undefined) return;
        calls++;
        for (const l of countListeners) l(calls);
        const tool = str(e.tool);
        const verdict = h("div", { class: "verdict", hidden: true });
        const approval = h("div", { class: "approval-line", hidden: true });
        const result = h("div", { class: "result pending" }, h("span", { class: "spinner", "aria-hidden": "true" }), " running…");
        const output = h("div", { class: "output" });
        const about = summary(tool, e.args);
        const el = h(
          "li",
          { class: "call", "data-call-id": callId, "data-tool": tool, "data-state": "running" },
          h(
            "div",
            { class: "call-head" },
            h("span", { class: "tool" }, tool),
            h("code", { class: "about", title: about }, about),
            h("span", { class: "meta" }, e.caller ? `${names(str(e.caller))} · ` : "", h("time", { datetime: e.time }, clock(e.time))),
          ),
          verdict,
          approval,
          result,
          h("details", { class: "args" }, h("summary", {}, "arguments"), h("pre", { tabindex: "0", "aria-label": "arguments" }, typeof e.args === "string" ? e.args : json(e.args ?? {}))),
          output,
        );
        cards.set(callId, { el, verdict, approval, result, output });
        add(el);
        return;
      }
      case "verdict": {
        const card = callId !== undefined ? cards.get(callId) : undefined;
        const v = (e.verdict ?? {}) as { decision?: string; rule?: string; reason?: string; layer?: number; hint?: string };
        if (card === undefined) return;
        card.verdict.hidden = false;
        card.el.dataset.decision = str(v.decision);
        fill(
          card.verdict,
          h("span", { class: `chip ${str(v.decision)}` }, str(v.decision)),
          " ",
          h("code", { class: "rule" }, str(v.rule)),
          " ",
          h("span", { class: "reason" }, str(v.reason)),
          v.hint ? h("span", { class: "hint" }, ` ${v.hint}`) : null,
        );
        return;
      }
      case "approval": {
        const card = callId !== undefined ? cards.get(callId) : undefined;
        const phase = str(e.phase);
        const text =
          phase === "requested"
            ? `waiting for a person's approval (${str(e.route)})…`
            : phase === "rerouted"
              ? `the host could not answer; the person here decides (${str(e.reason)})`
              : `${e.decision === "always" ? "always allowed" : e.decision === "allow" ? "allowed once" : "denied"} by ${str(e.by)}` +
                (e.addedRule ? ` · rule added: ${str(e.addedRule)}` : "") +
                (e.note ? ` · note: ${str(e.note)}` : "");
        if (card === undefined) {
          line(e, `approval ${str(e.command)}: ${text}`, "approval");
          return;
        }
        card.approval.hidden = false;
        card.approval.dataset.phase = phase;
        card.approval.replaceChildren(h("span", { class: `chip ${phase === "resolved" ? (e.decision === "deny" ? "deny" : "allow") : "ask"}` }, "approval"), " ", text);
        return;
      }
      case "result": {
        const card = callId !== undefined ? cards.get(callId) : undefined;
        if (card === undefined) return;
        const status = str(e.status);
        const exit = typeof e.exitCode === "number" ? e.exitCode : null;
        const ok = e.isError !== true && (exit === null || exit === 0) && status === "completed";
        card.el.dataset.state = status;
        card.el.dataset.ok = String(ok);
        card.result.className = `result ${ok ? "ok" : status === "running" ? "running" : "bad"}`;
        fill(
          card.result,
          h("span", { class: "status" }, `${ok ? "✓" : status === "running" ? "…" : "✗"} ${status}`),
          exit !== null ? h("span", { class: "exit" }, ` · exit ${exit}`) : null,
          typeof e.durationMs === "number" ? h("span", { class: "duration" }, ` · ${formatDuration(e.durationMs)}`) : null,
          e.jobId ? ` · job ${str(e.jobId)}` : null,
        );
        const text = str(e.text);
        if (text !== "") card.output.replaceChildren(foldable("output", text, "out"));
        for (const l of resultListeners) l(e);
        return;
      }
      case "rule":
        line(e, `rule added for this session: ${str(e.decision)} ${str(e.rule)}${e.source === "approval" ? " (from an approval)" : ""}`, "rule");
        return;
      case "event": {
        const name = str(e.event);
        if (name === "opened") line(e, `sandbox opened: ${str(e.runtime)} runtime, policy ${str(e.policy)}, approvals by ${str(e.approver)}`, "event");
        else if (name === "closed") line(e, "sandbox closed", "event");
        else if (/^api\.(connected|disconnected|rejected|warning|initialized|error)$/.test(name)) {
          const who = e.caller ? `${names(str(e.caller))}: ` : "";
          line(e, `${who}${str(e.detail)}`, `event ${name.slice(4)}`);
        }
        return;
      }
      default:
        return;
    }
  }

  return {
    element,
    attach(s) {
      sandbox = s;
      exportButton.disabled = false;
      clearButton.disabled = false;
      draw(s.auditLog());
      const queue = perFrame<AuditEntry>(draw, { minIntervalMs: UI.panelRedrawMs });
      const off = s.onActivity((entry) => queue.push(entry));
      return () => {
        off();
        queue.flush();
        if (sandbox === s) sandbox = null;
      };
    },
    onResult(listener) {
      resultListeners.add(listener);
    },
    onCount(listener) {
      countListeners.add(listener);
    },
    setNames(resolve) {
      names = resolve;
    },
  };
}
