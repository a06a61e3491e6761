// The tool console: pick a tool, edit its arguments as JSON (prefilled with an example), call it, see the result
// (the text a model reads and the structuredContent). A person tries the API without writing a host page. Text that
// is not valid JSON is sent as it is: the sandbox repairs arguments the way a model garbles them, and says so.

import type { CallToolResult } from "../sandbox.ts";
import { h, kbd } from "./dom.ts";
import { formatDuration, json } from "./format.ts";

export interface ToolCaller {
  listTools(): Array<{ name: string; description: string }>;
  callTool(name: string, args: unknown): Promise<CallToolResult>;
  examples: Record<string, unknown>;
}

export interface ToolConsole {
  readonly element: HTMLElement;
  attach(caller: ToolCaller): () => void;
  /** Fills in a tool and its arguments (used by the demo's "try it yourself"). */
  prefill(tool: string, args: unknown): void;
}

export function createToolConsole(): ToolConsole {
  const select = h("select", { id: "console-tool", disabled: true }, h("option", {}, "loading…"));
  const description = h("p", { class: "tool-description", id: "console-description" });
  const args = h("textarea", {
    id: "console-args",
    rows: 7,
    spellcheck: "false",
    autocomplete: "off",
    "aria-describedby": "console-args-hint",
    disabled: true,
  });
  const call = h("button", { type: "submit", class: "primary", disabled: true, "aria-keyshortcuts": "Control+Enter" }, "Call ", kbd("Ctrl+Enter"));
  const reset = h("button", { type: "button", class: "ghost", disabled: true }, "Example");
  const status = h("p", { class: "console-status", role: "status" });
  const text = h("pre", { class: "out", tabindex: "0", "aria-label": "Result text" });
  const structured = h("pre", { class: "structured", tabindex: "0", "aria-label": "structuredContent" });
  const result = h(
    "section",
    { class: "console-result", hidden: true, "aria-label": "Result" },
    h("h3", {}, "Text (what a model reads)"),
    text,
    h("h3", {}, "structuredContent"),
    structured,
  );
  const form = h(
    "form",
    { class: "console-form" },
    h("label", { for: "console-tool" }, "Tool"),
    select,
    description,
    h("label", { for: "console-args" }, "Arguments (JSON)"),
    args,
    h("p", { class: "hint", id: "console-args-hint" }, "Broken JSON is sent as it is: the sandbox repairs it the way it would a model's, and says so."),
    h("div", { class: "row" }, call, reset),
  );
  const element = h("div", { class: "console" }, form, status, result);
  let caller: ToolCaller | null = null;
  let busy = false;

  function example(name: string): string {
    return json(caller?.examples[name] ?? {});
  }

  function describe(): void {
    const tool = caller?.listTools().find((t) => t.name === select.value);
    description.textContent = tool?.description ?? "";
  }

  select.addEventListener("change", () => {
    args.value = example(select.value);
    describe();
  });
  reset.addEventListener("click", () => {
    args.value = example(select.value);
  });
  args.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (caller === null || busy) return;
    let parsed: unknown = args.value;
    try {
      parsed = JSON.parse(args.value);
    } catch {
      // sent as raw text
    }
    busy = true;
    call.disabled = true;
    status.textContent = `Calling ${select.value}…`;
    const t0 = performance.now();
    try {
      const r = await caller.callTool(select.value, parsed);
      const sc = r.structuredContent ?? {};
      const exit = typeof sc.exitCode === "number" ? sc.exitCode : null;
      status.textContent = `${select.value}: ${String(sc.status ?? "?")}${exit !== null ? ` · exit ${exit}` : ""}${
        r.isError ? " · isError" : ""
      } · ${formatDuration(performance.now() - t0)}`;
      status.dataset.ok = String(r.isError !== true && (exit === null || exit === 0));
      text.textContent = r.content.map((c) => c.text).join("\n");
      structured.textContent = json(sc);
      result.hidden = false;
    } catch (err) {
      status.textContent = `The call failed: ${err instanceof Error ? err.message : String(err)}`;
      status.dataset.ok = "false";
    } finally {
      busy = false;
      call.disabled = caller === null;
    }
  });

  return {
    element,
    attach(c) {
      caller = c;
      const keep = select.value;
      select.replaceChildren(...c.listTools().map((t) => h("option", { value: t.name }, t.name)));
      if (c.listTools().some((t) => t.name === keep)) select.value = keep;
      args.value = example(select.value);
      describe();
      for (const el of [select, args, call, reset]) el.disabled = false;
      return () => {
        if (caller === c) caller = null;
        for (const el of [select, args, call, reset]) el.disabled = true;
      };
    },
    prefill(tool, value) {
      select.value = tool;
      describe();
      args.value = typeof value === "string" ? value : json(value);
    },
  };
}
