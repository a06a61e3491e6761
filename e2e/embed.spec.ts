// Embed mode (?embed=1): the terminal, approvals and a one-line status, fitting any iframe from 320×240 up.
import { expect, test, type Page } from "@playwright/test";
import { UI } from "../src/limits.ts";
import { callInBackground, collectErrors, expectTerminal, open, shot, typeInTerminal } from "./helpers.ts";

async function fits(page: Page, selector: string): Promise<void> {
  const box = (await page.locator(selector).boundingBox())!;
  const vp = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(vp.width + 0.5);
  expect(box.y + box.height).toBeLessThanOrEqual(vp.height + 0.5);
}

for (const [width, height] of [
  [400, 300],
  [1280, 800],
  [UI.embedMinWidth, UI.embedMinHeight],
] as const) {
  test(`embed mode at ${width}×${height}: terminal, one-line status, approvals that fit`, async ({ page }) => {
    const errors = collectErrors(page);
    await page.setViewportSize({ width, height });
    await open(page, "?embed=1&runtime=embedded");
    await expect(page.locator("body")).toHaveClass("embed");
    await expect(page.locator(".topbar")).toHaveCount(0);
    await expect(page.getByRole("tablist")).toHaveCount(0);
    const status = page.locator(".statusline");
    await expect(status).toContainText("embedded shell");
    expect((await status.boundingBox())!.height).toBeLessThanOrEqual(26); // one line
    await fits(page, "#terminal");
    // The page does not scroll: everything is inside the frame.
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([width, height]);
    await typeInTerminal(page, "echo embedded-hello");
    await page.keyboard.press("Enter");
    await expectTerminal(page, /embedded-hello\s+user@sandshell/);
    // The terminal fills the width and height it has (to within a character cell).
    const [screenW, screenH, hostW, hostH] = await page.evaluate(() => {
      const screen = document.querySelector("#terminal .xterm-screen")!.getBoundingClientRect();
      const host = document.querySelector("#terminal")!.getBoundingClientRect();
      return [screen.width, screen.height, host.width, host.height];
    });
    expect(screenW).toBeGreaterThan(hostW - 30);
    expect(screenH).toBeGreaterThan(hostH - 30);
    await shot(page, `embed-${width}x${height}`);

    await callInBackground(page, "bash", { command: "rm -rf build" });
    const dialog = page.getByRole("dialog", { name: "Approve this command?" });
    await expect(dialog).toContainText("rm -rf build");
    await fits(page, "dialog.approval");
    await expect(dialog.getByRole("button", { name: /Allow once/ })).toBeInViewport();
    await shot(page, `embed-${width}x${height}-approval`);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    expect(errors).toEqual([]);
  });
}

test("embed mode in an iframe of a plain page, dark", async ({ page }) => {
  const errors = collectErrors(page);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/?runtime=embedded&embed=1");
  await page.setContent(`<!doctype html><title>host</title><link rel="icon" href="data:,"><body style="margin:20px;background:#444">
    <iframe title="Sandshell" src="/?embed=1&runtime=embedded" style="width:480px;height:320px;border:0" allow="cross-origin-isolated"></iframe></body>`);
  const frame = page.frameLocator("iframe");
  await expect(frame.locator("#terminal .xterm-rows")).toContainText("user@sandshell", { timeout: 15_000 });
  await shot(page, "embed-in-iframe-dark");
  expect(errors).toEqual([]);
});

test("embed mode: a WebContainer that cannot start (no internet here) takes one line, not a banner", async ({ page }) => {
  await page.setViewportSize({ width: 480, height: 360 });
  await open(page, "?embed=1"); // runtime=auto: StackBlitz is unreachable from this machine, so it falls back
  const status = page.locator(".statusline");
  await expect(status).toContainText("WebContainer unavailable", { timeout: 30_000 });
  const notice = page.locator('[data-notice="runtime"]');
  if ((await notice.count()) > 0) {
    const box = (await notice.boundingBox())!;
    expect(box.height).toBeLessThanOrEqual(30); // one line of 12 px text plus padding
    await expect(notice.locator(".notice-text")).toHaveAttribute("title", /WebContainer/);
  }
  // Status line plus at most that one line: the terminal keeps the rest of a 360 px embed.
  const terminalHeight = (await page.locator("#terminal").boundingBox())!.height;
  expect(terminalHeight).toBeGreaterThanOrEqual(360 - 26 - 30 - 20);
  await shot(page, "embed-webcontainer-unavailable");
});
