// No serious or critical accessibility violations (axe-core) in the main states, light and dark.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { callInBackground, collectErrors, open, shot } from "./helpers.ts";

async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(" | ")}`);
}

for (const scheme of ["light", "dark"] as const) {
  test(`playground, ${scheme}: no serious or critical violations, with every panel and the approval dialog`, async ({ page }) => {
    const errors = collectErrors(page);
    await page.emulateMedia({ colorScheme: scheme });
    await open(page);
    await page.getByRole("tab", { name: "Tool console" }).click();
    await page.getByRole("button", { name: /^Call/ }).click();
    await expect(page.locator(".console-status")).toContainText("bash: completed");
    expect(await serious(page)).toEqual([]);
    await page.getByRole("tab", { name: "Activity" }).click();
    expect(await serious(page)).toEqual([]);
    await page.getByRole("tab", { name: "Files" }).click();
    expect(await serious(page)).toEqual([]);
    await callInBackground(page, "bash", { command: "rm -f x" });
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await serious(page)).toEqual([]);
    await shot(page, `approval-${scheme}`);
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
  });
}

test("embed mode and bad parameters: no serious or critical violations", async ({ page }) => {
  const errors = collectErrors(page);
  await page.setViewportSize({ width: 400, height: 300 });
  await open(page, "?embed=1&runtime=embedded&policy=nope");
  await expect(page.locator('[data-param="policy"]')).toBeVisible();
  expect(await serious(page)).toEqual([]);
  expect(errors).toEqual([]);
});
