// The package's `engines.node` is a promise to the people who install it: every package it brings along must accept
// every Node version in that range. Checked against what is installed (node_modules), with npm's own semver (the
// `semver` inside the npm that runs this, so the range logic is npm's, not a copy).

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SANDBOX_RUNTIME_PACKAGE } from "../../src/runtime/node/sandbox-library.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;

/**
 * Optional peers whose engines are narrower than the package's, and why that is acceptable. Adding one here is a
 * decision: it must say what the user gets on the Node versions the peer leaves out (and docs must say it too).
 */
const NARROWER_OPTIONAL_PEERS: Record<string, string> = {
  "@anthropic-ai/sandbox-runtime":
    "the node runtime's OS sandbox; 0.0.79 and later declare Node >= 22.12 (0.0.78 lacks the per-sandbox network " +
    "lists), run and tested here on Node 20: docs/sandbox.md says so",
};

type Semver = { subset(sub: string, dom: string): boolean; validRange(range: string): string | null };

function npmSemver(): Semver {
  const npmRoot = execFileSync("npm", ["root", "-g"], { encoding: "utf8" }).trim();
  return createRequire(join(npmRoot, "npm", "package.json"))("semver") as Semver;
}

/** node_modules/<name>/package.json as Node would find it from `from`. */
function manifestPath(from: string, name: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const path = join(dir, "node_modules", name, "package.json");
    if (existsSync(path)) return path;
    if (dirname(dir) === dir) return null;
  }
}

/** Every installed package reached from `names`, through dependencies and optional dependencies. */
function closure(names: string[]): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  const visit = (from: string, list: string[]): void => {
    for (const name of list) {
      const path = manifestPath(from, name);
      if (path === null || found.has(path)) continue;
      const m = JSON.parse(readFileSync(path, "utf8")) as Manifest;
      found.set(path, m);
      visit(dirname(path), [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.optionalDependencies ?? {})]);
    }
  };
  visit(ROOT, names);
  return found;
}

function narrower(semver: Semver, range: string, packages: Iterable<Manifest>): string[] {
  const out: string[] = [];
  for (const m of packages) {
    const theirs = m.engines?.node;
    if (theirs !== undefined && !semver.subset(range, theirs)) out.push(`${m.name}@${m.version} wants node ${theirs}`);
  }
  return out.sort();
}

describe("engines", () => {
  const semver = npmSemver();
  const range = PKG.engines?.node ?? "";

  it("the package's range is a valid range that holds the Node this project runs and is tested on", () => {
    expect(semver.validRange(range)).not.toBeNull();
    expect(semver.subset(process.versions.node, range)).toBe(true);
    expect(semver.subset("20.19.0", range)).toBe(true);
  });

  it("every dependency the package brings, at any depth, accepts every Node version of the package's range", () => {
    const deps = closure(Object.keys(PKG.dependencies ?? {}));
    expect(deps.size).toBeGreaterThan(10);
    expect(narrower(semver, range, deps.values())).toEqual([]);
  });

  it("an optional peer with narrower engines is a listed decision, and its own dependencies accept the range", () => {
    const peers = Object.keys(PKG.peerDependencies ?? {});
    for (const name of peers) {
      const path = manifestPath(ROOT, name);
      expect(path, `${name} is installed for the tests (devDependencies)`).not.toBeNull();
      const own = JSON.parse(readFileSync(path!, "utf8")) as Manifest;
      const problems = narrower(semver, range, [own]);
      if (problems.length > 0) expect(NARROWER_OPTIONAL_PEERS, problems.join("; ")).toHaveProperty(name);
      else expect(NARROWER_OPTIONAL_PEERS).not.toHaveProperty(name); // no stale entries
    }
    const transitive = closure(peers);
    const ownNames = new Set(peers);
    expect(narrower(semver, range, [...transitive.values()].filter((m) => !ownNames.has(m.name)))).toEqual([]);
  });

  it("the OS sandbox's package is pinned alike everywhere: the peer, the dev install, the version the error names", () => {
    const { name, version } = SANDBOX_RUNTIME_PACKAGE;
    expect(PKG.peerDependencies?.[name]).toBe(version);
    expect(PKG.devDependencies?.[name]).toBe(version);
    expect(PKG.dependencies?.[name]).toBeUndefined();
    const installed = JSON.parse(readFileSync(manifestPath(ROOT, name)!, "utf8")) as Manifest;
    expect(installed.version).toBe(version);
  });

  it("the check would catch a dependency that leaves part of the range out", () => {
    const fake: Manifest = { name: "narrow", version: "1.0.0", engines: { node: ">=22.12.0" } };
    expect(narrower(semver, range, [fake])).toEqual(["narrow@1.0.0 wants node >=22.12.0"]);
    expect(narrower(semver, ">=20.19", [{ name: "ini", version: "6.0.0", engines: { node: "^20.17.0 || >=22.9.0" } }])).toHaveLength(1);
  });
});
