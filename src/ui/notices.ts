// Banners above the work area: bad URL parameters, why WebContainer is not serving, the demo's narration.

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

export function createNotices(): Notices {
  const element = h("div", { class: "notices" });
  const byKey = new Map<string, HTMLElement>();
  return {
    element,
    show(o) {
      const close = o.dismissible
        ? h("button", { type: "button", class: "ghost icon", "aria-label": `Dismiss: ${o.title}`, onclick: () => this.hide(o.key) }, "×")
        : null;
      const el = h(
        "div",
        { class: `notice ${o.kind}`, "data-notice": o.key, role: o.kind === "info" ? "status" : "alert" },
        h("div", { class: "notice-text" }, h("strong", {}, o.title), o.body !== undefined ? " " : null, o.body ?? null),
        o.actions !== undefined || close !== null ? h("div", { class: "notice-actions" }, ...(o.actions ?? []), close) : null,
      );
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
