// Which Chromium the browser tests drive, for Playwright and for Vitest's browser mode alike:
// Playwright's own when installed (`npx playwright install chromium`), else the system's (Debian:
// `apt-get install -y chromium`). Machines without internet, like our CI, have only the latter.
import { existsSync } from "node:fs";
import { chromium } from "playwright";

const SYSTEM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

// Without the networking flags Chromium stalls on a closed network.
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export function chromiumLaunchOptions(): { executablePath?: string; args: string[] } {
  let bundled: string | null = null;
  try {
    const path = chromium.executablePath();
    bundled = existsSync(path) ? path : null;
  } catch {
    bundled = null;
  }
  if (bundled) return { args: CHROMIUM_ARGS };
  const system = SYSTEM.find((p) => existsSync(p));
  if (system) return { executablePath: system, args: CHROMIUM_ARGS };
  throw new Error(
    "No Chromium for the browser tests. Install Playwright's (`npx playwright install chromium`) " +
      "or the system's (Debian/Ubuntu: `apt-get install -y chromium`).",
  );
}
