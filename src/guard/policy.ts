// Presets and user rules. User rules use Claude Code's grammar and are evaluated deny, then ask, then
// allow; a compound command is allowed only when every part is, because each part is matched alone.

import type { Command } from "./facts.ts";
import type { Effective } from "./wrappers.ts";
import type { Decision, Policy, UserRules } from "./types.ts";

export const POLICIES: readonly Policy[] = ["strict", "balanced", "permissive"];

export const POLICY_SUMMARY: Record<Policy, string> = {
  strict:
    "Read-only: only known-safe commands that write no file run; writes inside the workspace (a redirect to a file, touch, mkdir, sed -i, " +
    "the file tools) and project code (scripts, npm test, make) ask; everything else is refused (reads outside the workspace and cd out of it ask).",
  balanced: "Known-safe commands and project code run, dangerous ones are refused, deletions, network and everything else ask a person.",
  permissive: "Everything runs except what layers 0 to 2 refuse (literals, syntax errors, dangerous operations, writes outside the workspace).",
};

/** What a layer-3 default ("ask" for unknown, deletion and network under balanced) becomes under each preset. */
export function presetDecision(policy: Policy, balanced: Decision): Decision {
  if (balanced !== "ask") return balanced;
  if (policy === "strict") return "deny";
  if (policy === "permissive") return "allow";
  return "ask";
}

interface CompiledRule {
  source: string;
  test(command: string): boolean;
  /** The subject an exact rule (no `*`) names; undefined for a prefix or pattern. */
  exact?: string;
}

/** `Bash(npm run test:*)` or `npm run test:*` → prefix at a word boundary; `*` elsewhere → any text; else exact. */
export function compileRule(rule: string): CompiledRule {
  let body = rule.trim();
  const wrapped = /^Bash\((.*)\)$/s.exec(body);
  if (wrapped) body = wrapped[1]!.trim();
  body = body.replace(/\s+/g, " ");
  if (body.endsWith(":*")) {
    const prefix = body.slice(0, -2).trimEnd();
    return { source: rule, test: (c) => c === prefix || c.startsWith(prefix + " ") || c.startsWith(prefix + ":") };
  }
  if (body.includes("*")) {
    const parts = body.split("*");
    return { source: rule, test: (c) => wildcard(parts, c) };
  }
  return { source: rule, test: (c) => c === body, exact: body };
}

/**
 * Whether `text` is `parts` joined by any texts: the first a prefix, the last a suffix, the others found in order,
 * each as far left as it goes (which finds a match whenever there is one). Linear in the text for a given rule,
 * where a regular expression with several `.*` backtracks in polynomial time on a long command.
 */
function wildcard(parts: readonly string[], text: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (let k = 1; k < parts.length - 1; k++) {
    const i = text.indexOf(parts[k]!, at);
    if (i < 0 || i + parts[k]!.length > end) return false;
    at = i + parts[k]!.length;
  }
  return true;
}

export interface CompiledRules {
  allow: CompiledRule[];
  ask: CompiledRule[];
  deny: CompiledRule[];
}

export function compileRules(rules: UserRules | undefined): CompiledRules {
  const list = (xs: unknown): CompiledRule[] =>
    Array.isArray(xs) ? xs.filter((x): x is string => typeof x === "string" && x.trim() !== "").map(compileRule) : [];
  return { allow: list(rules?.allow), ask: list(rules?.ask), deny: list(rules?.deny) };
}

// Wrappers that do not change what a command is, as Claude Code strips them before matching.
const TRANSPARENT = new Set(["time", "nice", "nohup", "timeout", "stdbuf", "command", "builtin", "ionice", "setsid", "env"]);

/**
 * The text a user rule is matched against: program and arguments without assignments or transparent wrappers, then
 * the redirects (with a heredoc's or herestring's text), so that an exact rule for `echo x > a` is not a rule for
 * `echo x > .bashrc`.
 */
export function ruleSubject(cmd: Command, eff: Effective): string {
  const opaque = eff.wrappers.some((w) => !TRANSPARENT.has(w));
  const argv = opaque ? cmd.argv : eff.argv;
  const words = argv.map((w) => (w.dynamic ? w.raw : w.value));
  for (const r of cmd.redirects) words.push(`${r.fd ?? ""}${r.op}`, r.body ? r.body.text : (r.target?.raw ?? ""));
  return words.join(" ").replace(/\s+/g, " ").trim();
}

/** The exact subject: the assignments before the command too (`PATH=/tmp/x ls` is not `ls`). */
export function exactSubject(cmd: Command, eff: Effective): string {
  const assignments = cmd.assignments.map((a) => `${a.name}=${a.value.dynamic ? a.value.raw : a.value.value}`);
  return [...assignments, ruleSubject(cmd, eff)].join(" ").replace(/\s+/g, " ").trim();
}

/** Whether one of the rules, taken exactly (no `*`), is `subject`. */
export function exactRule(rules: readonly CompiledRule[], subject: string): string | null {
  return rules.find((r) => r.exact === subject)?.source ?? null;
}

export type UserMatch = { decision: Decision; rule: string } | null;

export function matchUserRules(rules: CompiledRules, subject: string): UserMatch {
  for (const decision of ["deny", "ask", "allow"] as const) {
    const hit = rules[decision].find((r) => r.test(subject));
    if (hit) return { decision, rule: hit.source };
  }
  return null;
}

/**
 * Rules whose ask only an exact rule answers: a file that configures later commands, shell state, a variable. A
 * prefix rule (`echo:*`, `npm run build:*`) allows the program, not every file it may write or every variable set
 * before it; the suggestion for "Always allow" is then the exact command (Guard.suggestRule).
 */
export const EXACT_ONLY: ReadonlySet<string> = new Set(["config-write", "shell-state", "shell-rules", "environment"]);

/** The rule a person would most likely want for "Always allow": `npm run build:*` for `npm run build --watch`. */
export function suggestRule(subject: string): string {
  const words = subject.split(" ").filter(Boolean);
  if (words.length === 0) return subject;
  const keep = ["npm", "pnpm", "yarn", "git", "cargo", "go", "pip", "pip3", "docker", "kubectl", "python3", "python", "node", "npx"].includes(words[0]!)
    ? words[1] === "run" || words[1] === "run-script" ? 3 : 2
    : 1;
  const head = words.slice(0, keep).filter((w) => !w.startsWith("-"));
  return head.join(" ") + ":*";
}
