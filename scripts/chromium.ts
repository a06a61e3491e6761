// Which Chromium the browser tests drive, for Playwright and for Vitest's browser mode alike:
// Playwright's own when installed, else the system's. When neither is there, it fetches one and says so:
// first Playwright's download (`npx playwright install chromium`), then, as root on Debian/Ubuntu, the
// system's package manager (`apt-get install -y chromium`). Machines without internet but with Debian's
// mirror, like our CI, get the latter. Only the browser tests call this, when they launch the browser.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium } from "playwright";

const SYSTEM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

// Without the networking flags Chromium stalls on a closed network.
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export interface LaunchOptions {
  executablePath?: string;
  args: string[];
}

function bundledChromium(): string | null {
  try {
    const path = chromium.executablePath();
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

function found(): LaunchOptions | null {
  if (bundledChromium() !== null) return { args: CHROMIUM_ARGS };
  const system = SYSTEM.find((p) => existsSync(p));
  return system !== undefined ? { executablePath: system, args: CHROMIUM_ARGS } : null;
}

function say(text: string): void {
  process.stderr.write(`chromium: ${text}\n`);
}

function attempt(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 });
    return true;
  } catch (err) {
    say(`\`${[command, ...args].join(" ")}\` failed: ${(err as Error).message.split("\n")[0]}`);
    return false;
  }
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Fetches a Chromium (saying which way on stderr); true when one is there afterwards. */
export function installChromium(): boolean {
  say("no Chromium found for the browser tests; downloading Playwright's (`npx playwright install chromium`) …");
  if (attempt("npx", ["--no-install", "playwright", "install", "chromium"]) && found() !== null) return true;
  if (isRoot() && existsSync("/usr/bin/apt-get")) {
    say("Playwright's download did not work; installing the system's instead (`apt-get install -y chromium`) …");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    try {
      execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: ["ignore", "inherit", "inherit"], env, timeout: 600_000 });
    } catch {
      say("apt-get install failed; updating the package lists and trying once more (`apt-get update`) …");
      attempt("apt-get", ["update", "-qq"]);
      attempt("apt-get", ["install", "-y", "-qq", "chromium"]);
    }
    if (found() !== null) {
      say("installed the system's Chromium (/usr/bin/chromium).");
      return true;
    }
  }
  return false;
}

let cached: LaunchOptions | null = null;

export function chromiumLaunchOptions(): LaunchOptions {
  if (cached !== null) return cached;
  cached = found() ?? (installChromium() ? found() : null);
  if (cached === null) {
    throw new Error(
      "No Chromium for the browser tests, and fetching one did not work. Install Playwright's " +
        "(`npx playwright install chromium`) or the system's (Debian/Ubuntu, as root: `apt-get install -y chromium`).",
    );
  }
  return cached;
}

/**
 * The same options, looked up only when a browser launches (Playwright and Vitest read them then), so that
 * loading vite.config.ts for `vite build` or `vite` never needs a Chromium.
 */
export function lazyChromiumLaunchOptions(): LaunchOptions {
  return {
    get executablePath() {
      return chromiumLaunchOptions().executablePath;
    },
    get args() {
      return chromiumLaunchOptions().args;
    },
  } as LaunchOptions;
}
