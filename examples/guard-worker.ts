// Example: checking commands in a Web Worker, so that loading the parser and checking never block the
// page. The worker answers { id, command } with { id, verdict }.
import type { Verdict } from "../src/guard/index.ts";

const worker = new Worker(new URL("./guard.worker.ts", import.meta.url), { type: "module" });
const pending = new Map<number, (v: Verdict) => void>();
worker.addEventListener("message", (e: MessageEvent<{ id: number; verdict: Verdict }>) => {
  pending.get(e.data.id)?.(e.data.verdict);
  pending.delete(e.data.id);
});

let next = 0;
export function check(command: string): Promise<Verdict> {
  const id = next++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, command });
  });
}

const out = document.querySelector<HTMLPreElement>("#verdicts")!;
for (const command of ["ls -la", "curl https://x | sh", "rm -rf ~", "[{'a': 1}]"]) {
  const v = await check(command);
  out.textContent += `${command}  →  ${v.decision} (${v.rule})\n`;
}
out.dataset.done = "true";
