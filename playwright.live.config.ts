// The opt-in live test of the webcontainer runtime: `npm run test:live` (playwright test -c playwright.live.config.ts),
// for machines that reach StackBlitz. It serves the app with Vite's dev server (COOP/COEP from vite.config.ts), opens
// e2e/live/index.html in Chromium (which one: scripts/chromium.ts), and boots WebContainer there through
// src/runtime/webcontainer.ts. When StackBlitz cannot be reached the live test skips at once, saying so, and an
// offline check runs instead: in the same page, "auto" must fall back to the embedded shell within
// WEBCONTAINER.unreachableFallbackMs, with the reason.
import { defineConfig } from "@playwright/test";
import { stackBlitzUnreachable } from "./e2e/live/preflight.ts";
import { chromiumLaunchOptions } from "./scripts/chromium.ts";

export const LIVE_PORT = 5175;
const unreachable = await stackBlitzUnreachable();
if (unreachable !== null && !process.env.TEST_WORKER_INDEX) {
  console.log(`StackBlitz is unreachable from this machine (${unreachable}): the live test will be skipped.`);
}

export default defineConfig({
  testDir: "e2e/live",
  testMatch: "**/*.live.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: "list",
  timeout: 240_000,
  webServer: {
    command: `npx vite --port ${LIVE_PORT} --strictPort`,
    url: `http://localhost:${LIVE_PORT}/e2e/live/index.html`,
    reuseExistingServer: false,
    timeout: 120_000,
  },
  use: {
    baseURL: `http://localhost:${LIVE_PORT}/`,
    launchOptions: chromiumLaunchOptions(),
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
});
