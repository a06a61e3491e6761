// Browser tests run in Chromium against the production build. Playwright's own browser is used where it
// is installed (`npx playwright install chromium`); otherwise the system's Chromium (Debian: apt-get
// install -y chromium). Machines without internet, like our CI, have only the latter.
import { existsSync } from "node:fs";
import { chromium, defineConfig } from "@playwright/test";

function bundledChromium(): string | null {
  try {
    const path = chromium.executablePath();
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

const system = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
const bundled = bundledChromium();
if (!bundled && !system) {
  throw new Error(
    "No Chromium for the browser tests. Install Playwright's (`npx playwright install chromium`) " +
      "or the system's (Debian/Ubuntu: `apt-get install -y chromium`).",
  );
}

export const PORT = 4173;

export default defineConfig({
  testDir: "e2e",
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
  use: {
    baseURL: `http://localhost:${PORT}/`,
    launchOptions: {
      ...(bundled ? {} : { executablePath: system }),
      // Without the networking flags Chromium stalls on a closed network.
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
});
