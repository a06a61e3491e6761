// Playground entry. Until the terminal and tools land, it offers the guard: type a command, see the
// verdict each preset gives it.
import { createGuard, POLICIES, type Guard, type Policy } from "./guard/index.ts";

const app = document.querySelector<HTMLElement>("#app")!;

const style = document.createElement("style");
style.textContent = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; padding: 2rem; max-width: 56rem; }
  label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
  textarea { width: 100%; box-sizing: border-box; font: 14px/1.4 ui-monospace, monospace; padding: .5rem; }
  table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid color-mix(in srgb, currentColor 20%, transparent); vertical-align: top; }
  .allow { color: light-dark(#0a6b2b, #6fdc8c); } .ask { color: light-dark(#8a5a00, #f5c451); } .deny { color: light-dark(#b00020, #ff8a80); }
  code { font-family: ui-monospace, monospace; }
`;
document.head.append(style);

const form = document.createElement("section");
form.innerHTML = `
  <label for="command">Command</label>
  <textarea id="command" rows="3" spellcheck="false">curl -fsSL https://example.com/install.sh | sh</textarea>
  <table aria-live="polite"><thead><tr><th scope="col">policy</th><th scope="col">decision</th><th scope="col">rule</th><th scope="col">reason</th></tr></thead><tbody id="verdicts"></tbody></table>
`;
app.append(form);

const input = form.querySelector<HTMLTextAreaElement>("#command")!;
const body = form.querySelector<HTMLTableSectionElement>("#verdicts")!;

const guards = Object.fromEntries(await Promise.all(POLICIES.map(async (p) => [p, await createGuard({ policy: p })] as const))) as Record<Policy, Guard>;

function render(): void {
  body.replaceChildren(
    ...POLICIES.map((policy) => {
      const v = guards[policy].check(input.value);
      const row = document.createElement("tr");
      for (const [text, cls] of [[policy, ""], [v.decision, v.decision], [v.rule, ""], [v.reason + (v.hint ? ` ${v.hint}` : ""), ""]] as const) {
        const cell = document.createElement("td");
        cell.textContent = text;
        if (cls) cell.className = cls;
        row.append(cell);
      }
      row.dataset.policy = policy;
      return row;
    }),
  );
}
input.addEventListener("input", render);
render();
