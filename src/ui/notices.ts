// Banners above the work area: bad URL parameters, why WebContainer is not serving, the demo's narration.
// Compact (embed mode): each notice is one line, its whole text in a tooltip, so a 360 px embed keeps its terminal.

import { h } from "./dom.ts";

export type NoticeKind = "info" | "warning" | "error";

export interface NoticeOptions {
  kind: NoticeKind;
  /** A stable key: showing a notice with the same key replaces it. */
  key: string;
  title: string;
  body?: Node | string;
  actions?: HTMLElement[];
  dismissible?: boolean;
}

export interface Notices {
  readonly element: HTMLElement;
  show(options: NoticeOptions): HTMLElement;
  hide(key: string): void;
}

/** One line, cut with an ellipsis (compact notices). */
const ONE_LINE = "white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; flex: 1 1 auto";

function plain(node: Node | string): string {
  return typeof node === "string" ? node : (node.textContent ?? "");
}

export function createNotices(options: { compact?: boolean } = {}): Notices {
  const compact = options.compact === true;
  const element = h("div", { class: compact ? "notices compact" : "notices" });
  const byKey = new Map<string, HTMLElement>();
  return {
    element,
    show(o) {
      const close = o.dismissible
        ? h("button", { type: "button", class: "ghost icon", "aria-label": `Dismiss: ${o.title}`, onclick: () => this.hide(o.key) }, "×")
        : null;
      const text = h("div", { class: "notice-text" }, h("strong", {}, o.title), o.body !== undefined ? " " : null, o.body ?? null);
      if (compact) {
        text.setAttribute("style", ONE_LINE);
        text.title = `${o.title}${o.body !== undefined ? ` ${plain(o.body)}` : ""}`;
      }
      const el = h(
        "div",
        { class: `notice ${o.kind}`, "data-notice": o.key, role: o.kind === "info" ? "status" : "alert" },
        text,
        o.actions !== undefined || close !== null ? h("div", { class: "notice-actions" }, ...(o.actions ?? []), close) : null,
      );
      if (compact) {
        // Buttons as links, so the line stays one line of text high.
        el.style.alignItems = "center";
        for (const b of el.querySelectorAll<HTMLButtonElement>(".notice-actions button")) {
          b.classList.add("link");
          b.style.fontSize = "inherit";
          b.style.lineHeight = "inherit";
        }
      }
      const old = byKey.get(o.key);
      if (old !== undefined) old.replaceWith(el);
      else element.append(el);
      byKey.set(o.key, el);
      return el;
    },
    hide(key) {
      byKey.get(key)?.remove();
      byKey.delete(key);
    },
  };
}
