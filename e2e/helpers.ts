// Shared steps of the playground tests: open a page and wait for its sandbox, collect console errors, read the
// terminal, take a screenshot into test-results/.
import { expect, type ConsoleMessage, type Page } from "@playwright/test";

export const SHOTS = "test-results/screenshots";

/** Console errors and page errors. The failed no-cors probe of StackBlitz (runtime=auto on a closed network) is
 *  the browser's own log line for a fetch that is meant to fail, and is the only one let through. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() !== "error") return;
    const where = m.location().url;
    if (/stackblitz\.com|webcontainer/i.test(where) && /Failed to load resource/.test(m.text())) return;
    errors.push(`${m.text()} (${where})`);
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

/** Opens the playground and waits until its sandbox serves. */
export async function open(page: Page, query = "?runtime=embedded"): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator("html")).toHaveAttribute("data-ready", "true", { timeout: 15_000 });
  await expect(terminal(page)).toContainText("user@sandshell", { timeout: 10_000 });
}

/** The terminal's rows, as xterm's DOM renderer shows them. */
export function terminal(page: Page) {
  return page.locator("#terminal .xterm-rows");
}

/** The terminal's text, one line a row (trailing blanks trimmed). */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate(() =>
    [...document.querySelectorAll("#terminal .xterm-rows > div")].map((row) => (row.textContent ?? "").replace(/\s+$/, "")).join("\n"),
  );
}

/** Waits until the terminal's text matches. */
export async function expectTerminal(page: Page, pattern: RegExp, timeout = 10_000): Promise<void> {
  await expect.poll(() => terminalText(page), { timeout }).toMatch(pattern);
}

/** Types into the terminal as a person would. */
export async function typeInTerminal(page: Page, text: string): Promise<void> {
  await page.locator("#terminal .xterm-helper-textarea").focus();
  await page.keyboard.type(text);
}

/** Starts a tool call from "another agent" (the page's test hook) without waiting for it. */
export async function callInBackground(page: Page, name: string, args: Record<string, unknown>): Promise<void> {
  await page.evaluate(
    ([n, a]) => {
      const w = window as unknown as { sandshell: { sandbox: { callTool(n: string, a: unknown, o: unknown): Promise<unknown> } }; calls?: Promise<unknown>[] };
      (w.calls ??= []).push(w.sandshell.sandbox.callTool(n as string, a, { caller: "test-agent" }));
    },
    [name, args] as const,
  );
}

/** The results of the calls started with callInBackground, in order. */
export async function backgroundResults(page: Page): Promise<Array<{ isError?: boolean; structuredContent: Record<string, unknown>; content: Array<{ text: string }> }>> {
  return page.evaluate(() => Promise.all((window as unknown as { calls: Promise<never>[] }).calls));
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}
