// Accessible tabs (WAI-ARIA tabs pattern): arrow keys, Home and End move between tabs; panels are focusable.

import { h } from "./dom.ts";

export interface Tab {
  id: string;
  label: string;
  panel: HTMLElement;
}

export interface Tabs {
  readonly element: HTMLElement;
  select(id: string): void;
  /** Sets a tab's label suffix, e.g. a count. */
  badge(id: string, text: string): void;
}

export function createTabs(tabs: Tab[], label: string): Tabs {
  const list = h("div", { role: "tablist", "aria-label": label, class: "tablist" });
  const buttons = new Map<string, HTMLButtonElement>();
  const badges = new Map<string, HTMLElement>();
  const element = h("div", { class: "tabs" }, list);
  for (const tab of tabs) {
    const badge = h("span", { class: "badge", hidden: true });
    badges.set(tab.id, badge);
    const button = h(
      "button",
      { type: "button", role: "tab", id: `tab-${tab.id}`, "aria-controls": `panel-${tab.id}`, "data-tab": tab.id, onclick: () => select(tab.id) },
      tab.label,
      badge,
    );
    buttons.set(tab.id, button);
    list.append(button);
    tab.panel.id = `panel-${tab.id}`;
    tab.panel.setAttribute("role", "tabpanel");
    tab.panel.setAttribute("aria-labelledby", `tab-${tab.id}`);
    tab.panel.classList.add("tabpanel");
    element.append(tab.panel);
  }
  list.addEventListener("keydown", (e) => {
    const ids = tabs.map((t) => t.id);
    const current = ids.indexOf((document.activeElement as HTMLElement | null)?.dataset.tab ?? "");
    if (current === -1) return;
    let next = -1;
    if (e.key === "ArrowRight") next = (current + 1) % ids.length;
    else if (e.key === "ArrowLeft") next = (current - 1 + ids.length) % ids.length;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = ids.length - 1;
    if (next === -1) return;
    e.preventDefault();
    select(ids[next]!);
    buttons.get(ids[next]!)!.focus();
  });
  function select(id: string): void {
    for (const tab of tabs) {
      const on = tab.id === id;
      const b = buttons.get(tab.id)!;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
      tab.panel.hidden = !on;
    }
  }
  select(tabs[0]!.id);
  return {
    element,
    select,
    badge(id, text) {
      const b = badges.get(id);
      if (b === undefined) return;
      b.textContent = text;
      b.hidden = text === "";
    },
  };
}
