// The page's skeleton, painted before the sandbox loads: the playground (header, notices, terminal, side panels with
// Activity / Files / Tool console, status bar) or embed mode (a one-line status and the terminal). Approvals come
// as a dialog in both.

import { UI } from "../limits.ts";
import { createActivity, type ActivityPanel } from "./activity.ts";
import { createApprovalDialog, type ApprovalDialog } from "./approvals.ts";
import { createToolConsole, type ToolConsole } from "./console.ts";
import { h, kbd } from "./dom.ts";
import { createFiles, type FilesPanel } from "./files.ts";
import { createNotices, type Notices } from "./notices.ts";
import { createStatusBar, type StatusBar } from "./status.ts";
import { createTabs, type Tabs } from "./tabs.ts";
import { createTerminal, type TerminalView } from "./terminal.ts";
import { themeButton } from "./theme.ts";

export interface Layout {
  embed: boolean;
  terminal: TerminalView;
  /** A line above the terminal: what the shell is doing. */
  shellNote: HTMLElement;
  status: StatusBar;
  notices: Notices;
  approvals: ApprovalDialog;
  /** Playground only. */
  activity?: ActivityPanel;
  files?: FilesPanel;
  console?: ToolConsole;
  tabs?: Tabs;
  demoButton?: HTMLButtonElement;
}

export function buildLayout(embed: boolean): Layout {
  const body = document.body;
  body.replaceChildren();
  body.className = embed ? "embed" : "playground";
  const notices = createNotices({ compact: embed });
  const status = createStatusBar(embed);
  const approvals = createApprovalDialog();
  const terminalHost = h("div", { class: "terminal-host", id: "terminal" });
  const shellNote = h("span", { class: "shell-note", "aria-live": "polite" }, "starting…");

  if (embed) {
    const main = h("main", { class: "embed-main", "aria-label": "Sandshell terminal" }, terminalHost);
    body.append(status.element, notices.element, main, approvals.element);
    const terminal = createTerminal(terminalHost, { fontSize: UI.embedTerminalFontPx });
    return { embed, terminal, shellNote, status, notices, approvals };
  }

  const activity = createActivity();
  const files = createFiles();
  const consolePanel = createToolConsole();
  const activityPanel = h("div", {}, activity.element);
  const filesPanel = h("div", {}, files.element);
  const consoleTab = h("div", {}, consolePanel.element);
  const tabs = createTabs(
    [
      { id: "activity", label: "Activity", panel: activityPanel },
      { id: "files", label: "Files", panel: filesPanel },
      { id: "console", label: "Tool console", panel: consoleTab },
    ],
    "Sandbox panels",
  );
  const demoButton = h(
    "button",
    { type: "button", class: "primary", disabled: true, title: "A scripted run through the real tools (not an AI model)" },
    "▶ Run the demo agent",
  );
  const header = h(
    "header",
    { class: "topbar" },
    h("div", { class: "brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "$_"), h("h1", {}, "Sandshell"), h("span", { class: "tagline" }, "a guarded, persistent shell for AI agents in the browser")),
    h("div", { class: "actions" }, demoButton, themeButton()),
  );
  const terminalPanel = h(
    "section",
    { class: "panel terminal-panel", "aria-labelledby": "terminal-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "terminal-title" }, "Terminal"), shellNote, h("span", { class: "hint" }, kbd("Shift+Tab"), " leaves the terminal")),
    terminalHost,
  );
  const side = h("section", { class: "panel side", "aria-label": "Activity, files and tool console" }, tabs.element);
  body.append(
    h("a", { class: "skip", href: "#terminal" }, "Skip to the terminal"),
    header,
    notices.element,
    h("main", { class: "workspace" }, terminalPanel, side),
    status.element,
    approvals.element,
  );
  const terminal = createTerminal(terminalHost, { fontSize: UI.terminalFontPx });
  return { embed, terminal, shellNote, status, notices, approvals, activity, files, console: consolePanel, tabs, demoButton };
}
