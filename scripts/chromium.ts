// Which Chromium the browser tests drive, for Playwright and for Vitest's browser mode alike:
// Playwright's own when installed, else the system's. When neither is there, it fetches one and says so:
// first Playwright's download (`npx playwright install chromium`), then, as root on Debian, the system's
// package manager (`apt-get install -y chromium`, or `--reinstall` where dpkg counts it installed but its files
// are gone). Machines without internet but with Debian's mirror, like our CI, get the latter. Only the browser
// tests call this, when they launch the browser. `scripts/chromium-fetch-exercise.sh` runs this path for real
// (docs/testing.md).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
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

function attempt(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    execFileSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env, timeout: 600_000 });
    return true;
  } catch (err) {
    say(`\`${[command, ...args].join(" ")}\` failed: ${(err as Error).message.split("\n")[0]}`);
    return false;
  }
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Debian's packages of the browser that dpkg counts as installed (their files may still be gone). */
function installedPackages(names: string[]): string[] {
  return names.filter((name) => {
    try {
      return execFileSync("dpkg-query", ["-W", "-f=${db:Status-Status}", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }) === "installed";
    } catch {
      return false;
    }
  });
}

/**
 * The apt-get arguments that bring /usr/bin/chromium back: a plain install, or, where dpkg counts chromium as installed
 * although its files are gone (deleted, or hidden), a reinstall of it and of chromium-common, whose files share
 * /usr/lib/chromium: apt-get would otherwise say "already the newest version" and do nothing.
 */
export function aptArguments(installed: string[]): string[] {
  if (!installed.includes("chromium")) return ["install", "-y", "-qq", "chromium"];
  return ["install", "--reinstall", "-y", "-qq", ...["chromium", "chromium-common"].filter((p) => installed.includes(p))];
}

/** Fetches a Chromium (saying which way on stderr); true when one is there afterwards. */
export function installChromium(): boolean {
  say("no Chromium found for the browser tests; downloading Playwright's (`npx playwright install chromium`) …");
  if (attempt("npx", ["--no-install", "playwright", "install", "chromium"]) && found() !== null) return true;
  if (isRoot() && existsSync("/usr/bin/apt-get")) {
    const args = aptArguments(installedPackages(["chromium", "chromium-common"]));
    say(`Playwright's download did not work; installing the system's instead (\`apt-get ${args.join(" ")}\`) …`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    if (!attempt("apt-get", args, env)) {
      say("updating the package lists and trying once more (`apt-get update`) …");
      attempt("apt-get", ["update", "-qq"], env);
      attempt("apt-get", args, env);
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

/** `tsx scripts/chromium.ts`: finds (or fetches) a Chromium as the tests do, launches it and runs one line of script. */
async function main(): Promise<void> {
  const t0 = performance.now();
  const options = chromiumLaunchOptions();
  const fetched = performance.now();
  const browser = await chromium.launch({ headless: true, ...options });
  try {
    const page = await browser.newPage();
    const answer = await page.evaluate(() => 6 * 7);
    process.stdout.write(
      `${JSON.stringify({ executablePath: options.executablePath ?? chromium.executablePath(), version: browser.version(), answer, findOrFetchSeconds: Math.round((fetched - t0) / 100) / 10 })}\n`,
    );
  } finally {
    await browser.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`chromium: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
