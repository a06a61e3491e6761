// The guard runs unchanged in the browser: the page loads its wasm as assets and judges commands.
import { expect, test } from "@playwright/test";

test("the guard judges commands in Chromium, cross-origin isolated and without console errors", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("/");
  const balanced = page.locator('tr[data-policy="balanced"]');
  await expect(balanced).toContainText("download-exec");
  await page.fill("#command", "npm test 2>&1 | tail -5");
  await expect(balanced).toContainText("allow");
  await page.fill("#command", "make build");
  await expect(page.locator('tr[data-policy="strict"]')).toContainText("deny");
  await expect(page.locator('tr[data-policy="permissive"]')).toContainText("allow");
  await page.fill("#command", "echo 'unclosed");
  await expect(balanced).toContainText("syntax-error");
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(errors).toEqual([]);
});
