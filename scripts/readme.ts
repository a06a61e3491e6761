// The docs' generated sections: the guard's rule table in docs/rules.md (from the rule rows, with the
// verdict each example gets under each preset) and the limits table in docs/limits.md (from
// src/limits.ts). `npm run readme` rewrites them; test/readme.test.ts fails when a page is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createGuard, POLICIES, POLICY_SUMMARY, RULES, type Guard, type Policy } from "../src/guard/index.ts";
import * as limits from "../src/limits.ts";

export const README = fileURLToPath(new URL("../README.md", import.meta.url));
export const RULES_DOC = fileURLToPath(new URL("../docs/rules.md", import.meta.url));
export const LIMITS_DOC = fileURLToPath(new URL("../docs/limits.md", import.meta.url));

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, "⏎");
// Examples with control characters, lone surrogates or nothing visible are shown as JSON strings.
const unprintable = (s: string) => s.trim() === "" || /[\u0000-\u0008\u000b-\u001f\ud800-\udfff]/.test(s);
const code = (s: string) => {
  const t = unprintable(s) ? JSON.stringify(s).replace(/[\ud800-\udfff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16)) : s;
  return t.includes("`") ? "`` " + cell(t) + " ``" : "`" + cell(t) + "`";
};

export async function renderRules(): Promise<string> {
  const guards = Object.fromEntries(await Promise.all(POLICIES.map(async (p) => [p, await createGuard({ policy: p })] as const))) as Record<Policy, Guard>;
  const rows = ["| rule | layer | what it catches | example | strict | balanced | permissive |", "|---|---|---|---|---|---|---|"];
  for (const r of RULES) {
    const example = r.examples[0];
    const verdicts = example === undefined ? ["", "", ""] : POLICIES.map((p) => guards[p].check(example).decision);
    const shown = example === undefined ? "" : code(example.length > 60 ? example.slice(0, 57) + "…" : example);
    rows.push(`| \`${r.id}\` | ${r.layer} | ${cell(r.title)} | ${shown} | ${verdicts.join(" | ")} |`);
  }
  const presets = POLICIES.map((p) => `- \`${p}\`${p === "balanced" ? " (default)" : ""}: ${POLICY_SUMMARY[p]}`);
  const examples = RULES.map((r) => r.examples.length).reduce((a, b) => a + b, 0);
  const near = RULES.map((r) => r.nearMisses.length).reduce((a, b) => a + b, 0);
  return [
    ...presets,
    "",
    ...rows,
    "",
    `${RULES.length} rules, ${examples} examples that must match and ${near} near misses that must not; every one is a test (test/guard/rules.test.ts).`,
  ].join("\n");
}

export function renderLimits(): string {
  const rows = ["| module | limit | value |", "|---|---|---|"];
  for (const [group, value] of Object.entries(limits).sort(([a], [b]) => a.localeCompare(b))) {
    if (typeof value === "object" && value !== null) {
      const walk = (prefix: string, obj: object): void => {
        for (const [k, v] of Object.entries(obj)) {
          if (typeof v === "object" && v !== null) walk(`${prefix}${k}.`, v);
          else rows.push(`| ${group} | \`${prefix}${k}\` | ${typeof v === "number" ? v.toLocaleString("en-US") : String(v)} |`);
        }
      };
      walk("", value);
    } else rows.push(`| | \`${group}\` | ${String(value)} |`);
  }
  return rows.join("\n");
}

function replaceBlock(text: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`the page has no ${start} … ${end} block`);
  return text.slice(0, i + start.length) + "\n" + body + "\n" + text.slice(j);
}

/** Each generated page and its text as it should be. */
export async function renderDocs(): Promise<Array<{ path: string; text: string }>> {
  const rules = readFileSync(RULES_DOC, "utf8");
  const limitsPage = readFileSync(LIMITS_DOC, "utf8");
  return [
    { path: RULES_DOC, text: replaceBlock(rules, "rules", await renderRules()) },
    { path: LIMITS_DOC, text: replaceBlock(limitsPage, "limits", renderLimits()) },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { path, text } of await renderDocs()) {
    const before = readFileSync(path, "utf8");
    if (text !== before) writeFileSync(path, text);
    console.log(`${path.slice(path.lastIndexOf("/docs/") + 1)} ${text === before ? "is up to date" : "updated"}`);
  }
}
