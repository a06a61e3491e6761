// The opt-in live test (`npm run test:live`): a real WebContainer, booted through the adapter in Chromium, driven
// by the session engine. Needs a machine that reaches StackBlitz; elsewhere it is skipped at once with the reason.
// Not part of `npm test` (the default Playwright config matches *.spec.ts only).

import { expect, test } from "@playwright/test";
import { WEBCONTAINER } from "../../src/limits.ts";
import type { FallbackResult, LiveResult, LiveStep } from "./live-page.ts";
import { STACKBLITZ_URL, stackBlitzUnreachable } from "./preflight.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

function show(step: LiveStep): string {
  const r = step.result;
  return `$ ${step.command}\n  → status ${r.status}, exit ${r.exitCode}, cwd ${r.cwd}${r.notice ? `, notice: ${r.notice}` : ""}\n` +
    `  output ${JSON.stringify(r.output)}\n  raw    ${JSON.stringify(step.raw.join(""))}`;
}

/** Where the run's JSON lands (also attached to the report): what the next fact sheet is written from. */
export const LIVE_RESULT_FILE = "test-results/webcontainer-live.json";

test("online: auto boots WebContainer, and the run records what real jsh does", async ({ page }, testInfo) => {
  const unreachable = await stackBlitzUnreachable();
  test.skip(unreachable !== null, `StackBlitz is unreachable from this machine (${unreachable}); the live test needs it.`);
  test.setTimeout(600_000);

  page.on("console", (message) => console.log(`[page ${message.type()}] ${message.text()}`));
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
  await page.goto("/e2e/live/index.html");
  await page.waitForFunction(() => typeof window.sandshellLive === "function");
  const result: LiveResult = await page.evaluate(() => window.sandshellLive());

  // The record first: it is what settles the fact sheet's UNKNOWNs, whatever the assertions say.
  mkdirSync(dirname(LIVE_RESULT_FILE), { recursive: true });
  writeFileSync(LIVE_RESULT_FILE, JSON.stringify(result, null, 2));
  await testInfo.attach("webcontainer-live.json", { body: JSON.stringify(result, null, 2), contentType: "application/json" });
  const lines = [
    `cross-origin isolated: ${result.crossOriginIsolated}; auto → ${result.autoKind} in ${result.bootMs} ms; workspace ${result.workspace}`,
    ...result.progress,
    `canary: ${JSON.stringify(result.canary)}`,
    `capabilities: ${JSON.stringify(result.capabilities)}`,
    "probes:",
    ...result.probes.map(
      (p) => `  ${p.ok ? "yes" : "no "} ${p.name.padEnd(16)} exit ${String(p.exitCode).padEnd(4)} ${p.ms} ms${p.timedOut ? " (timed out)" : ""}  ${JSON.stringify(p.output)}`,
    ),
    "bare jsh --osc (raw chunks, ms since spawn):",
    ...[result.bare.startup, ...result.bare.lines].map(
      (x) => `  [${x.label}] sent ${JSON.stringify(x.sent.slice(0, 80))}\n${x.chunks.map((c) => `    ${c.ms} ${JSON.stringify(c.data)}`).join("\n")}`,
    ),
    `session startup raw: ${JSON.stringify(result.startupRaw.join(""))}`,
    ...[result.echo, result.node, result.failing, result.cd, result.pwd, ...result.transcripts].map(show),
    `/tmp file: ${JSON.stringify(result.tmpFile)}`,
    `job: ${JSON.stringify(result.job)}`,
    show(result.exitOutside.exit),
    show(result.exitOutside.pwd),
    `session cwd after exit: ${result.exitOutside.sessionCwd}`,
    `written to ${LIVE_RESULT_FILE}`,
  ];
  console.log(lines.join("\n"));

  expect(result.crossOriginIsolated).toBe(true);
  expect(result.autoKind).toBe("webcontainer");
  expect(result.canary?.ok).toBe(true);
  expect(result.echo.result).toMatchObject({ output: "hi\n", exitCode: 0, status: "completed" });
  expect(result.node.result.output).toMatch(/^v\d+\.\d+\.\d+\n$/);
  expect(result.node.result.exitCode).toBe(0);
  expect(result.failing.result.exitCode).not.toBeNull();
  expect(result.failing.result.exitCode).not.toBe(0);
  expect(result.cd.result.cwd).toBe(`${result.workspace}/live/sub`);
  expect(result.pwd.result.output).toBe(`${result.workspace}/live/sub\n`);
  expect(result.tmpFile).toMatchObject({ wroteBytes: 2 * 1024 * 1024, readBytes: 2 * 1024 * 1024, same: true });
  expect(result.job.error).toBeUndefined();
  expect(result.job.killed).toMatchObject({ killed: true });
  // whatever directory the fresh shell starts in, the session must say the one the shell is in
  expect(result.exitOutside.pwd.result.status).toBe("completed");
  expect(result.exitOutside.pwd.result.output).toBe(`${result.exitOutside.pwd.result.cwd}\n`);
});

test("offline: auto falls back to the embedded shell within 3 s and says why", async ({ page }) => {
  const unreachable = await stackBlitzUnreachable();
  test.skip(unreachable === null, "StackBlitz is reachable: the fallback is not what happens here.");
  await page.goto("/e2e/live/index.html");
  await page.waitForFunction(() => typeof window.sandshellFallback === "function");
  const result: FallbackResult = await page.evaluate(() => window.sandshellFallback());
  console.log([`fell back in ${result.ms} ms: ${result.note}`, ...result.progress].join("\n"));
  expect(result.crossOriginIsolated).toBe(true); // the dev server's COOP/COEP work
  expect(result.kind).toBe("embedded");
  expect(result.ms).toBeLessThan(WEBCONTAINER.unreachableFallbackMs + 500);
  // the check fetched exactly the boot frame's address
  expect(result.note).toContain(`WebContainer could not be used: StackBlitz (${STACKBLITZ_URL})`);
  expect(result.note).toMatch(/could not be reached|did not answer/);
});
