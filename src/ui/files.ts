// The files panel: the workspace as a tree (read through the runtime's file system, so that looking does not add
// tool calls to the audit log), refreshed after each tool call and each command typed at the terminal, and a
// read-only view of a file.

import { UI } from "../limits.ts";
import type { DirEntry, RuntimeFs } from "../sandbox.ts";
import { h } from "./dom.ts";
import { formatBytes } from "./format.ts";

interface FileNode {
  name: string;
  path: string;
  type: DirEntry["type"];
  size: number;
  children?: FileNode[];
  /** Entries left out at this level (too deep, or past the cap). */
  more?: number;
}

export interface FilesPanel {
  readonly element: HTMLElement;
  attach(fs: RuntimeFs, workspace: string): () => void;
  refresh(): Promise<void>;
}

const SKIP_INSIDE = new Set(["node_modules", ".git"]);

async function walk(fs: RuntimeFs, path: string, depth: number, budget: { left: number }): Promise<FileNode[]> {
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(path);
  } catch {
    return [];
  }
  entries.sort((a, b) => (a.type === "dir") !== (b.type === "dir") ? (a.type === "dir" ? -1 : 1) : a.name.localeCompare(b.name));
  const out: FileNode[] = [];
  for (const e of entries) {
    if (budget.left <= 0) break;
    budget.left--;
    const child: FileNode = { name: e.name, path: `${path === "/" ? "" : path}/${e.name}`, type: e.type, size: e.size };
    if (e.type === "dir") {
      if (depth > 1 && !SKIP_INSIDE.has(e.name)) child.children = await walk(fs, child.path, depth - 1, budget);
      else child.more = -1; // not listed
    }
    out.push(child);
  }
  return out;
}

function decode(bytes: Uint8Array): { text: string; binary: boolean } {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return { text: "", binary: true };
  return { text: new TextDecoder().decode(bytes), binary: false };
}

export function createFiles(): FilesPanel {
  const tree = h("div", { class: "tree", "aria-label": "Workspace files", role: "group" });
  const summary = h("span", { class: "toolbar-title" }, "Workspace");
  const refreshButton = h("button", { type: "button", class: "ghost", disabled: true }, "Refresh");
  const viewerTitle = h("h3", { id: "viewer-title" }, "No file open");
  const viewerMeta = h("span", { class: "viewer-meta" });
  const viewerBody = h("pre", { class: "viewer-body", tabindex: "0", "aria-labelledby": "viewer-title", "aria-readonly": "true" });
  const viewer = h("section", { class: "viewer", hidden: true, "aria-labelledby": "viewer-title" }, h("div", { class: "viewer-head" }, viewerTitle, viewerMeta), viewerBody);
  const element = h("div", { class: "files" }, h("div", { class: "toolbar" }, summary, refreshButton), tree, viewer);

  let fs: RuntimeFs | null = null;
  let root = "/";
  const open = new Set<string>();
  let selected: string | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  function relative(path: string): string {
    return path === root ? "." : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  }

  function renderNodes(nodes: FileNode[]): HTMLElement {
    const ul = h("ul", {});
    for (const n of nodes) {
      if (n.type === "dir") {
        const details = h("details", { "data-path": n.path }, h("summary", {}, h("span", { class: "dir-name" }, `${n.name}/`)));
        if (open.has(n.path)) details.open = true;
        details.addEventListener("toggle", () => {
          if (details.open) open.add(n.path);
          else open.delete(n.path);
        });
        if (n.children !== undefined) {
          if (n.children.length === 0) details.append(h("p", { class: "empty" }, "empty"));
          else details.append(renderNodes(n.children));
        } else {
          details.append(h("p", { class: "empty" }, SKIP_INSIDE.has(n.name) ? "not listed" : "deeper than shown"));
        }
        ul.append(h("li", {}, details));
      } else {
        const button = h(
          "button",
          { type: "button", class: "file", "data-path": n.path, "aria-current": selected === n.path ? "true" : null, onclick: () => void show(n.path) },
          h("span", { class: "file-name" }, n.name),
          h("span", { class: "size" }, n.type === "file" ? formatBytes(n.size) : n.type),
        );
        ul.append(h("li", {}, button));
      }
    }
    return ul;
  }

  async function load(): Promise<void> {
    if (fs === null) return;
    const budget = { left: UI.filesMaxEntries };
    const nodes = await walk(fs, root, UI.filesMaxDepth, budget);
    const count = (list: FileNode[]): [number, number] =>
      list.reduce<[number, number]>(
        (acc, n) => {
          if (n.type === "dir") {
            const [d, f] = n.children ? count(n.children) : [0, 0];
            return [acc[0] + 1 + d, acc[1] + f];
          }
          return [acc[0], acc[1] + 1];
        },
        [0, 0],
      );
    const [dirs, files] = count(nodes);
    summary.textContent = `${root} · ${files} file${files === 1 ? "" : "s"}, ${dirs} folder${dirs === 1 ? "" : "s"}${budget.left <= 0 ? ` (first ${UI.filesMaxEntries} shown)` : ""}`;
    tree.replaceChildren(nodes.length === 0 ? h("p", { class: "empty" }, "The workspace is empty. Files the agent writes show up here.") : renderNodes(nodes));
    if (selected !== null) await show(selected, true);
  }

  async function show(path: string, quiet = false): Promise<void> {
    if (fs === null) return;
    selected = path;
    for (const b of tree.querySelectorAll<HTMLButtonElement>("button.file")) {
      if (b.dataset.path === path) b.setAttribute("aria-current", "true");
      else b.removeAttribute("aria-current");
    }
    viewer.hidden = false;
    viewerTitle.textContent = relative(path);
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(path);
    } catch (err) {
      if (quiet) {
        viewerMeta.textContent = "deleted";
        viewer.dataset.state = "gone";
        return;
      }
      viewerMeta.textContent = "";
      viewerBody.textContent = `Cannot read it: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    viewer.dataset.state = "open";
    const cut = bytes.length > UI.viewerMaxBytes;
    const { text, binary } = decode(cut ? bytes.subarray(0, UI.viewerMaxBytes) : bytes);
    viewerMeta.textContent = `${formatBytes(bytes.length)} · read-only${cut ? ` · first ${formatBytes(UI.viewerMaxBytes)} shown` : ""}`;
    viewerBody.textContent = binary ? "(a binary file: not shown)" : text;
  }

  async function refresh(): Promise<void> {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await load().catch((err: unknown) => console.warn("sandshell: the files panel could not list the workspace:", err));
      } while (again);
    })();
    try {
      await running;
    } finally {
      running = null;
    }
  }

  refreshButton.addEventListener("click", () => void refresh());

  return {
    element,
    attach(f, workspace) {
      fs = f;
      root = workspace;
      refreshButton.disabled = false;
      void refresh();
      return () => {
        if (fs === f) fs = null;
        refreshButton.disabled = true;
      };
    },
    refresh,
  };
}
