// The layering, pinned: data flows one way (docs/layout.md). Every import in src/ (static, `export … from`, dynamic
// `import("…")` and `typeof import("…")`) is read from the source text and checked against one row per layer: what
// that layer may import of ours. Leaf modules (src/lib) and src/limits.ts are ground every layer may use; the leaf
// imports nothing of ours.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const GROUND = ["lib/", "limits.ts"];

interface Row {
  layer: string;
  /** Path prefixes under src/ this layer may import (besides its own folder and the ground). */
  may: string[];
  why: string;
}

const ROWS: Row[] = [
  { layer: "lib/", may: [], why: "leaf modules: every layer may use them, so they use nothing of ours" },
  { layer: "guard/", may: [], why: "pure: command text → Verdict; it imports only the ground" },
  { layer: "runtime/", may: [], why: "the bottom: it knows nothing of the shell, tools, API or UI (the canary gets its session factory passed in)" },
  { layer: "shell/", may: ["runtime/"], why: "one persistent shell on a runtime" },
  { layer: "audit/", may: [], why: "the audit log is a leaf of the sandbox" },
  { layer: "tools/", may: ["guard/", "shell/", "runtime/"], why: "tools sit on the guard and the shell" },
  { layer: "sandbox/", may: ["guard/", "tools/", "audit/"], why: "the sandbox's own parts" },
  { layer: "sandbox.ts", may: ["sandbox/", "guard/", "tools/", "shell/", "runtime/", "audit/"], why: "the one door" },
  {
    layer: "api/",
    may: ["sandbox.ts"],
    why: "a peer on top of the sandbox: only its public surface, and only types (the API serves whatever fits)",
  },
  {
    layer: "client/",
    may: ["api/protocol.ts", "api/handshake.ts", "api/transport.ts"],
    why: "the host page's SDK: the wire's names and the port transport, never the server or the sandbox",
  },
  { layer: "embed/", may: ["client/"], why: "embedSandbox is the client plus an iframe" },
  { layer: "ui/", may: ["sandbox.ts", "client/index.ts"], why: "views watch the sandbox through its public surface" },
  {
    layer: "playground/",
    may: ["ui/", "sandbox.ts", "api/index.ts", "client/index.ts", "runtime/select.ts", "runtime/types.ts", "shell/session.ts", "tools/specs.ts"],
    why: "the playground's wiring: the composition root of the page (it picks the runtime and hands the canary its shell)",
  },
  { layer: "cli/", may: ["guard/index.ts"], why: "the commands: the guard CLI and the static server" },
  {
    layer: "node.ts",
    may: ["sandbox.ts", "runtime/", "shell/session.ts", "tools/index.ts", "tools/approvals.ts", "guard/index.ts"],
    why: "the Node entry: the composition root for Node",
  },
  { layer: "index.ts", may: ["sandbox.ts", "api/index.ts"], why: "the browser entry" },
  { layer: "limits.ts", may: [], why: "ground" },
];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
  line: string;
}

/** Our imports of one file, as paths under src/ (package imports are not ours and are skipped). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const from = relative(SRC, file);
  const out: Import[] = [];
  const patterns = [
    /^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+["']([^"']+)["']/gms,
    /^\s*import\s+["']([^"']+)["']/gm,
    /import\(\s*(?:\/\*[^*]*\*\/\s*)?["']([^"']+)["']\s*\)/g,
  ];
  for (const [i, re] of patterns.entries()) {
    for (const m of text.matchAll(re)) {
      const spec = i === 0 ? m[3]! : m[1]!;
      if (!spec.startsWith(".")) continue;
      const to = relative(SRC, resolve(dirname(file), spec));
      out.push({ from, to, typeOnly: i === 0 && m[2] !== undefined, line: m[0].split("\n")[0]! });
    }
  }
  return out;
}

function rowOf(path: string): Row | undefined {
  return ROWS.find((r) => (r.layer.endsWith("/") ? path.startsWith(r.layer) : path === r.layer));
}

const FILES = sources(SRC);
const IMPORTS = FILES.flatMap(importsOf);

describe("layering: data flows one way", () => {
  it("every file under src/ belongs to a layer with a row", () => {
    const orphans = FILES.map((f) => relative(SRC, f)).filter((p) => rowOf(p) === undefined);
    expect(orphans).toEqual([]);
  });

  it("reads the imports it checks (the scan is not blind)", () => {
    expect(IMPORTS.length).toBeGreaterThan(200);
    expect(IMPORTS).toContainEqual(expect.objectContaining({ from: "sandbox.ts", to: "tools/index.ts" }));
    expect(IMPORTS).toContainEqual(expect.objectContaining({ from: "playground/app.ts", to: "playground/boot.ts" })); // a dynamic import
  });

  for (const row of ROWS) {
    it(`${row.layer} imports only ${[...row.may, ...GROUND].join(", ") || "the ground"}: ${row.why}`, () => {
      const own = row.layer.endsWith("/") ? row.layer : null;
      const wrong = IMPORTS.filter((imp) => rowOf(imp.from) === row)
        .filter((imp) => {
          if (own !== null && imp.to.startsWith(own)) return false;
          if (row.layer === "lib/") return true; // nothing of ours outside lib/
          if (GROUND.some((g) => imp.to.startsWith(g))) return false;
          return !row.may.some((m) => imp.to.startsWith(m));
        })
        .map((imp) => `${imp.from} → ${imp.to}`);
      expect(wrong).toEqual([]);
    });
  }

  it("api/ takes the sandbox's types only (no sandbox code in the API's bundle)", () => {
    const wrong = IMPORTS.filter((imp) => imp.from.startsWith("api/") && imp.to === "sandbox.ts" && !imp.typeOnly).map((imp) => `${imp.from}: ${imp.line}`);
    expect(wrong).toEqual([]);
  });

  it("nothing below the playground imports it, and nothing below the views imports ui/", () => {
    const wrong = IMPORTS.filter(
      (imp) =>
        (imp.to.startsWith("playground/") && !imp.from.startsWith("playground/")) ||
        (imp.to.startsWith("ui/") && !imp.from.startsWith("ui/") && !imp.from.startsWith("playground/")),
    ).map((imp) => `${imp.from} → ${imp.to}`);
    expect(wrong).toEqual([]);
  });
});
