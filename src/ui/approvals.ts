// Approvals: a modal <dialog> for each pending ask the UI is to answer (command, rule, reason; Allow once, Always
// allow with the suggested rule editable, Deny with an optional note). Several pending requests queue, oldest first.
// Keyboard: Enter allows once (in the rule field: always allows that rule; in the note field: denies with the note),
// A always allows, Escape denies. Focus returns to where it was when the queue is empty.

import type { ApprovalRequest, Approvals } from "../sandbox.ts";
import { h, kbd } from "./dom.ts";
import { countdown } from "./format.ts";

export interface ApprovalDialog {
  readonly element: HTMLDialogElement;
  attach(approvals: Approvals): () => void;
  /** Requests waiting for the person here, oldest first. */
  queue(): ApprovalRequest[];
  /** How callers (API connection ids) are shown. */
  setNames(resolve: (caller: string) => string): void;
}

export function createApprovalDialog(): ApprovalDialog {
  const title = h("h2", { id: "approval-title" }, "Approve this command?");
  const position = h("span", { class: "queue-position", "aria-live": "polite" });
  const who = h("p", { class: "who" });
  const command = h("code", {});
  const commandBox = h("pre", { class: "command", tabindex: "0", "aria-label": "Command" }, command);
  const reason = h("p", { class: "reason", id: "approval-reason" });
  const ruleInput = h("input", { id: "approval-rule", type: "text", spellcheck: "false", autocomplete: "off" });
  const noteInput = h("input", { id: "approval-note", type: "text", autocomplete: "off", placeholder: "optional, e.g. use the test database" });
  const allow = h("button", { type: "button", class: "primary", "data-answer": "allow", "aria-keyshortcuts": "Enter" }, "Allow once ", kbd("Enter"));
  const always = h("button", { type: "button", "data-answer": "always", "aria-keyshortcuts": "A" }, "Always allow ", kbd("A"));
  const deny = h("button", { type: "button", class: "danger", "data-answer": "deny", "aria-keyshortcuts": "Escape" }, "Deny ", kbd("Esc"));
  const expires = h("p", { class: "expires" });
  const element = h(
    "dialog",
    { class: "approval", "aria-labelledby": "approval-title", "aria-describedby": "approval-reason" },
    h("div", { class: "approval-head" }, title, position),
    who,
    commandBox,
    reason,
    h(
      "div",
      { class: "fields" },
      h("label", { for: "approval-rule" }, "Always-allow rule"),
      ruleInput,
      h("label", { for: "approval-note" }, "Note for the agent"),
      noteInput,
    ),
    h("div", { class: "buttons" }, allow, always, deny),
    expires,
  ) as HTMLDialogElement;

  let approvals: Approvals | null = null;
  const waiting: ApprovalRequest[] = [];
  let shown: ApprovalRequest | null = null;
  let returnFocus: HTMLElement | null = null;
  let timer = 0;
  let names = (caller: string): string => caller;

  function answer(decision: "allow" | "always" | "deny"): void {
    const r = shown;
    if (r === null || approvals === null) return;
    const rule = ruleInput.value.trim();
    const note = noteInput.value.trim();
    remove(r.id);
    approvals.answer(r.id, {
      decision,
      ...(decision === "always" ? { rule: rule === "" ? r.suggestedRule : rule } : {}),
      ...(note !== "" ? { note } : {}),
    });
  }

  function remove(id: string): void {
    const i = waiting.findIndex((r) => r.id === id);
    if (i !== -1) waiting.splice(i, 1);
    if (shown?.id === id) {
      shown = null;
      render();
    } else {
      renderPosition();
    }
  }

  function renderPosition(): void {
    position.textContent = waiting.length > 1 ? `1 of ${waiting.length} waiting` : "";
  }

  function tick(): void {
    if (shown === null) return;
    expires.textContent = `Denied automatically in ${countdown(shown.expiresAt - Date.now())} if nobody answers.`;
  }

  function render(): void {
    const next = waiting[0] ?? null;
    if (next === null) {
      clearInterval(timer);
      if (element.open) element.close();
      const back = returnFocus;
      returnFocus = null;
      if (back !== null && back.isConnected) back.focus();
      return;
    }
    if (shown?.id === next.id) {
      renderPosition();
      return;
    }
    shown = next;
    element.dataset.approvalId = next.id;
    who.textContent = `${next.caller ? names(next.caller) : "An agent"} wants to run${next.background ? " in the background" : ""}, in ${next.cwd}:`;
    command.textContent = next.command;
    reason.replaceChildren(
      "Rule ",
      h("code", {}, next.rule),
      ` (layer ${next.verdict.layer}): ${next.reason}`,
      next.verdict.hint ? h("span", { class: "hint" }, ` ${next.verdict.hint}`) : "",
    );
    ruleInput.value = next.suggestedRule;
    noteInput.value = "";
    renderPosition();
    tick();
    clearInterval(timer);
    timer = window.setInterval(tick, 1000);
    if (!element.open) {
      const active = document.activeElement;
      returnFocus = active instanceof HTMLElement && active !== document.body ? active : null;
      element.showModal();
    }
    // The command first: focusing the button must not scroll it out of a small frame.
    allow.focus({ preventScroll: true });
    element.scrollTop = 0;
  }

  allow.addEventListener("click", () => answer("allow"));
  always.addEventListener("click", () => answer("always"));
  deny.addEventListener("click", () => answer("deny"));
  element.addEventListener("cancel", (e) => {
    // Escape: deny (the dialog stays until the queue is empty).
    e.preventDefault();
    answer("deny");
  });
  element.addEventListener("close", () => {
    // Closed some other way (a browser's forced close): it stays up while requests wait.
    if (waiting.length > 0 && !element.open) element.showModal();
  });
  element.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    if (e.key === "Escape") {
      e.preventDefault();
      answer("deny");
    } else if (e.key === "Enter") {
      if (target === ruleInput) answer("always");
      else if (target === noteInput) answer("deny");
      else if (target instanceof HTMLButtonElement) return; // the button's own click
      else answer("allow");
      e.preventDefault();
    } else if ((e.key === "a" || e.key === "A") && !(target instanceof HTMLInputElement)) {
      e.preventDefault();
      answer("always");
    }
  });

  return {
    element,
    attach(a) {
      approvals = a;
      for (const r of a.pending()) if (r.route === "ui") waiting.push(r);
      render();
      const off = a.on((event) => {
        if (event.type === "requested" && event.request.route === "ui") {
          waiting.push(event.request);
          render();
        } else if (event.type === "rerouted") {
          if (!waiting.some((r) => r.id === event.request.id)) waiting.push(event.request);
          render();
        } else if (event.type === "resolved") {
          remove(event.request.id);
        }
      });
      return () => {
        off();
        waiting.length = 0;
        shown = null;
        render();
        if (approvals === a) approvals = null;
      };
    },
    queue: () => [...waiting],
    setNames(resolve) {
      names = resolve;
    },
  };
}
