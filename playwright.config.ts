// Browser tests run in Chromium against the production build (see scripts/chromium.ts for which Chromium).
import { defineConfig } from "@playwright/test";
import { lazyChromiumLaunchOptions } from "./scripts/chromium.ts";

// SANDSHELL_E2E_PORT lets two checkouts run their browser tests side by side (the host page uses PORT + 1).
export const PORT = Number(process.env.SANDSHELL_E2E_PORT ?? 4173);

export default defineConfig({
  testDir: "e2e",
  testIgnore: ["live/**"],
  fullyParallel: false,
  workers: 1,
  reporter: process.env.CI ? "line" : "list",
  timeout: 30_000,
  webServer: {
    command: `npx vite build --logLevel error && npx vite preview --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 120_000,
  },
  use: { baseURL: `http://localhost:${PORT}/`, launchOptions: lazyChromiumLaunchOptions() },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
});
