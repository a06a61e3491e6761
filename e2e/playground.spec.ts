// The playground as a person meets it, in Chromium against the production build, on the real sandbox (the embedded
// runtime: WebContainer cannot boot without internet).
import { expect, test } from "@playwright/test";
import { backgroundResults, callInBackground, collectErrors, expectTerminal, open, shot, terminal, typeInTerminal } from "./helpers.ts";

test("a newcomer's first minute: open, see the prompt, type echo hello, see hello", async ({ page }) => {
  const errors = collectErrors(page);
  await page.goto("/");
  await expect(terminal(page)).toContainText("user@sandshell:~$", { timeout: 10_000 });
  await typeInTerminal(page, "echo hello");
  await page.keyboard.press("Enter");
  await expectTerminal(page, /echo hello\s+hello\s+user@sandshell/);
  // The status bar says where it runs and who is connected.
  await expect(page.locator('[data-status="runtime"]')).toContainText("embedded shell");
  await expect(page.locator('[data-status="shell"]')).toContainText("/home/project");
  await expect(page.locator('[data-status="agents"]')).toContainText("none");
  await expect(page.locator('[data-status="policy"]')).toContainText("balanced");
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(errors).toEqual([]);
});

test("WebContainer unreachable: the embedded shell serves within 3 s, with the reason shown and a retry", async ({ page }) => {
  const errors = collectErrors(page);
  await page.goto("/");
  const notice = page.locator('[data-notice="runtime"]');
  await expect(notice).toContainText("WebContainer could not start", { timeout: 10_000 });
  await expect(notice.locator(".runtime-reason")).toContainText(/stackblitz|StackBlitz/);
  const fallbackAt = await page.evaluate(() => window.sandshell?.fallbackAt ?? null);
  expect(fallbackAt).not.toBeNull();
  expect(fallbackAt!).toBeLessThan(3_000);
  await expect(page.locator('[data-status="runtime"]')).toContainText("WebContainer unavailable");
  await shot(page, "fallback");
  // Retry tries again, fails the same way here, and keeps the embedded shell serving.
  await notice.getByRole("button", { name: "Retry WebContainer" }).click();
  await expect(notice).toContainText("still could not start", { timeout: 10_000 });
  await typeInTerminal(page, "echo still-here");
  await page.keyboard.press("Enter");
  await expectTerminal(page, /still-here\s+user@sandshell/);
  expect(errors).toEqual([]);
});

test("the demo agent runs to the end: write, run, edit, run, blocked, one approval", async ({ page }) => {
  const errors = collectErrors(page);
  await open(page);
  const started = Date.now();
  await page.getByRole("button", { name: /Run the demo agent/ }).click();
  await expect(page.locator('[data-notice="demo"]')).toContainText("Scripted demo (not an AI model)");
  const dialog = page.getByRole("dialog", { name: "Approve this command?" });
  await expect(dialog).toBeVisible({ timeout: 15_000 });
  await expect(dialog).toContainText("rm demo/greeting.txt");
  await expect(dialog).toContainText("demo-agent");
  await shot(page, "demo-approval");
  await dialog.getByRole("button", { name: /Allow once/ }).click();
  await expect(page.locator('[data-notice="demo"]')).toContainText("Demo finished", { timeout: 10_000 });
  await expect(page.locator('[data-notice="demo"]')).toContainText("You allowed the deletion once");
  expect(Date.now() - started).toBeLessThan(15_000);

  const activity = page.locator("#panel-activity");
  await expect(activity.locator('li.call[data-tool="write_file"]')).toHaveCount(1);
  await expect(activity.locator('li.call[data-tool="edit_file"]')).toHaveCount(1);
  await expect(activity.locator('li.call[data-tool="bash"]')).toHaveCount(4);
  const blocked = activity.locator('li.call[data-state="blocked"]');
  await expect(blocked).toContainText("download-exec");
  await expect(blocked.locator(".chip.deny")).toHaveText("deny");
  await expect(activity.locator('li.call[data-decision="ask"]')).toContainText("allowed once by ui");
  await expect(terminal(page)).toContainText("Hi Sandshell, line 3 of 3");
  await shot(page, "demo-done");

  await page.getByRole("tab", { name: "Files" }).click();
  await page.locator("#panel-files summary", { hasText: "demo/" }).click();
  await page.locator('#panel-files button.file[data-path$="demo/greet.sh"]').click();
  await expect(page.locator(".viewer-body")).toContainText('echo "Hi $name, line $i of 3"');
  await expect(page.locator("#panel-files")).not.toContainText("greeting.txt");
  expect(errors).toEqual([]);
});

test("approvals: answered with clicks, with the keyboard, and queued", async ({ page }) => {
  const errors = collectErrors(page);
  await open(page);
  const dialog = page.getByRole("dialog", { name: "Approve this command?" });

  // Clicks: Deny with a note; Always allow with an edited rule.
  await callInBackground(page, "bash", { command: "rm -f one.txt" });
  await expect(dialog).toContainText("rm -f one.txt");
  await expect(dialog).toContainText("deletion");
  await dialog.getByLabel("Note for the agent").fill("keep it");
  await dialog.getByRole("button", { name: /Deny/ }).click();
  await expect(dialog).toBeHidden();
  await callInBackground(page, "bash", { command: "rm -f two.txt" });
  await expect(dialog).toContainText("rm -f two.txt");
  await dialog.getByLabel("Always-allow rule").fill("rm -f two.txt");
  await dialog.getByRole("button", { name: /Always allow/ }).click();
  await expect(dialog).toBeHidden();

  // Keyboard: Enter allows once, Escape denies, focus comes back to the terminal.
  await page.locator("#terminal .xterm-helper-textarea").focus();
  await callInBackground(page, "bash", { command: "rm -f three.txt" });
  await expect(dialog).toContainText("rm -f three.txt");
  await expect(dialog.getByRole("button", { name: /Allow once/ })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.locator("#terminal .xterm-helper-textarea")).toBeFocused();
  await callInBackground(page, "bash", { command: "rm -f four.txt" });
  await expect(dialog).toContainText("rm -f four.txt");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  const results = await backgroundResults(page);
  expect(results.map((r) => r.structuredContent.status)).toEqual(["denied", "completed", "completed", "denied"]);
  expect(results[0]!.content[0]!.text).toContain("keep it");
  expect(await page.evaluate(() => window.sandshell!.sandbox!.rules().allow)).toContain("rm -f two.txt");

  // Several pending requests queue, oldest first; each is answered by keyboard (A = always allow).
  await page.evaluate(() => {
    const s = window.sandshell!.sandbox!;
    const verdict = { decision: "ask" as const, layer: 3 as const, rule: "network", reason: "`git` reaches the network." };
    const ask = (command: string) =>
      s.approvals.request({ tool: "bash", command, cwd: "/home/project", background: false, verdict, rule: "network", reason: verdict.reason, suggestedRule: "git push:*", caller: "queue-test" });
    (window as unknown as { queued: Promise<unknown>[] }).queued = [ask("git push origin a"), ask("git push origin b"), ask("git push origin c")];
  });
  await expect(dialog).toContainText("git push origin a");
  await expect(dialog).toContainText("1 of 3 waiting");
  await shot(page, "approval-queue");
  await page.keyboard.press("Enter");
  await expect(dialog).toContainText("git push origin b");
  await expect(dialog).toContainText("1 of 2 waiting");
  await page.keyboard.press("a");
  await expect(dialog).toContainText("git push origin c");
  await dialog.getByLabel("Note for the agent").fill("not today");
  await page.keyboard.press("Enter"); // Enter in the note field denies with the note
  await expect(dialog).toBeHidden();
  const answers = await page.evaluate(() => Promise.all((window as unknown as { queued: Promise<{ decision: string; note?: string }>[] }).queued));
  expect(answers.map((a) => a.decision)).toEqual(["allow", "always", "deny"]);
  expect(answers[2]!.note).toBe("not today");
  expect(errors).toEqual([]);
});

test("activity and files follow tool calls from the tool console; the audit log exports as JSONL", async ({ page }) => {
  const errors = collectErrors(page);
  await open(page);
  await page.getByRole("tab", { name: "Tool console" }).click();
  const tool = page.getByLabel("Tool", { exact: true });
  const args = page.getByLabel("Arguments (JSON)");
  await tool.selectOption("write_file");
  await expect(args).toHaveValue(/notes\/hello.txt/);
  await page.getByRole("button", { name: /^Call/ }).click();
  await expect(page.locator(".console-status")).toContainText("write_file: completed");
  await expect(page.locator(".console-result .structured")).toContainText('"status": "completed"');

  // A long output, folded in the activity panel; a failing command with its exit code.
  await tool.selectOption("bash");
  await args.fill(JSON.stringify({ command: "seq 1 40; cat notes/hello.txt" }));
  await args.press("Control+Enter");
  await expect(page.locator(".console-result .out")).toContainText("from the tool console");
  await args.fill('{"command": "ls no-such-dir",}'); // broken JSON: repaired by the sandbox
  await page.getByRole("button", { name: /^Call/ }).click();
  await expect(page.locator(".console-result .structured")).toContainText('"exitCode": 2');
  await shot(page, "console");

  await page.getByRole("tab", { name: "Activity" }).click();
  const activity = page.locator("#panel-activity");
  const write = activity.locator('li.call[data-tool="write_file"]');
  await expect(write).toContainText("notes/hello.txt");
  await expect(write.locator(".result")).toContainText("completed");
  await expect(write).toContainText("tool console");
  const seq = activity.locator("li.call[data-tool=bash]").first();
  await expect(seq.locator(".verdict")).toContainText("allowlist");
  await expect(seq.locator(".result")).toContainText("exit 0");
  await expect(seq.locator("details.fold > summary")).toContainText("output (");
  const failed = activity.locator("li.call[data-tool=bash]").nth(1);
  await expect(failed.locator(".result")).toContainText("exit 2");
  await expect(failed.locator("details.args pre")).toHaveText('{"command": "ls no-such-dir",}', { useInnerText: false });

  const [download] = await Promise.all([page.waitForEvent("download"), activity.getByRole("button", { name: "Export JSONL" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^sandshell-audit-.*\.jsonl$/);
  const text = await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString("utf8"));
  const lines = text.trim().split("\n").map((l) => JSON.parse(l) as { type: string; tool?: string });
  expect(lines.filter((l) => l.type === "call").map((l) => l.tool)).toEqual(["write_file", "bash", "bash"]);

  await page.getByRole("tab", { name: "Files" }).click();
  await page.locator("#panel-files summary", { hasText: "notes/" }).click();
  await page.locator('#panel-files button.file[data-path$="notes/hello.txt"]').click();
  await expect(page.locator(".viewer-body")).toHaveText("hello\nfrom the tool console\n", { useInnerText: false });
  // A command typed at the terminal changes the tree too.
  await typeInTerminal(page, "mkdir -p made/by && echo hi > made/by/hand.txt");
  await page.keyboard.press("Enter");
  await expect(page.locator("#panel-files summary", { hasText: "made/" })).toBeVisible();
  await shot(page, "files");
  expect(errors).toEqual([]);
});

test("a person's keys wait while an agent's command runs", async ({ page }) => {
  const errors = collectErrors(page);
  await open(page);
  await callInBackground(page, "bash", { command: "sleep 1; echo agent-done" });
  await expect(page.locator(".shell-note")).toContainText("An agent runs");
  await typeInTerminal(page, "echo person-after");
  await page.keyboard.press("Enter");
  await expectTerminal(page, /agent-done[\s\S]*person-after\s+person-after/);
  const [r] = await backgroundResults(page);
  expect(r!.content[0]!.text).toContain("agent-done");
  expect(r!.content[0]!.text).not.toContain("person-after");
  expect(errors).toEqual([]);
});

test("bad URL parameters are named with the value given and the values accepted; the page starts with defaults", async ({ page }) => {
  const errors = collectErrors(page);
  await open(page, "?runtime=embedded&policy=lax&approver=robot&embed=yes&origins=https://ok.example,not-an-origin");
  const policy = page.locator('[data-param="policy"]');
  await expect(policy).toContainText("policy");
  await expect(policy).toContainText('"lax"');
  await expect(policy).toContainText("strict, balanced, permissive");
  await expect(page.locator('[data-param="approver"]')).toContainText('"robot"');
  await expect(page.locator('[data-param="approver"]')).toContainText("ui, host, deny");
  await expect(page.locator('[data-param="embed"]')).toContainText('"yes"');
  await expect(page.locator('[data-param="origins"]')).toContainText('"not-an-origin"');
  await expect(page.locator('[data-status="policy"]')).toContainText("balanced · approvals: ui");
  await shot(page, "bad-params");
  expect(await page.evaluate(() => window.sandshell!.params)).toEqual({
    runtime: "embedded",
    embed: false,
    origins: ["https://ok.example"],
    policy: "balanced",
    approver: "ui",
  });
  expect(errors).toEqual([]);
});

test("light and dark: follows the system, and the toggle switches", async ({ page }) => {
  const errors = collectErrors(page);
  await page.emulateMedia({ colorScheme: "dark" });
  await open(page);
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const dark = await bg();
  await shot(page, "dark");
  const toggle = page.getByRole("button", { name: /^Theme:/ });
  await toggle.click(); // system → light
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await bg()).not.toBe(dark);
  await shot(page, "light-forced");
  await toggle.click(); // light → dark
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await bg()).toBe(dark);
  expect(errors).toEqual([]);
});
