// The guard: decides, before anything runs, whether an agent's command may run, needs a person's
// approval, or is refused, and tells the agent what to do instead. Pure TypeScript, no DOM, no I/O
// after createGuard() has loaded the parser; it runs unchanged in browsers, workers and Node.
//
// It is a safety net for an agent's mistakes, not a security boundary: the sandbox is.

import { createAnalyzer } from "./language.ts";
import { GUARD, MESSAGES, WORKSPACE } from "../limits.ts";
import { clip } from "../lib/text.ts";
import type { Command } from "./facts.ts";
import { looksLikePythonLiteralArgument } from "./literal.ts";
import { normalizePath } from "./paths.ts";
import { compileRules, exactRule, exactSubject, matchUserRules, presetDecision, ruleSubject, suggestRule, EXACT_ONLY, POLICIES } from "./policy.ts";
import { LAYER0 } from "./rules/layer0.ts";
import { LAYER1 } from "./rules/layer1.ts";
import { LAYER2 } from "./rules/layer2.ts";
import { LAYER3 } from "./rules/layer3.ts";
import { SEMANTICS } from "./rules/semantics.ts";
import { makeEnv, type RuleEnv, type RuleRow } from "./rules/row.ts";
import type { CheckContext, Decision, Guard, GuardOptions, Layer, Policy, Verdict } from "./types.ts";

export type { CheckContext, Decision, Guard, GuardOptions, Layer, Policy, UserRules, Verdict } from "./types.ts";
export { looksLikePythonLiteralArgument } from "./literal.ts";
export type { LiteralKind } from "./literal.ts";
export { POLICIES, POLICY_SUMMARY, suggestRule, compileRule } from "./policy.ts";
export { LAYER0, LAYER1, LAYER2, LAYER3, SEMANTICS };

/** Every rule row, in the order the guard reports them. */
export const RULES = [...LAYER0, ...LAYER1, ...SEMANTICS, ...LAYER2, ...LAYER3] as const;

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// C0 controls but tab and newline, DEL and C1 controls: a terminal or line editor acts on them (CR ends
// a line, ^U erases it, ESC [200~ starts a bracketed paste), so the text a shell runs would differ from
// the text checked. They are refused, never stripped or translated.
const CONTROL = /[\u0001-\u0008\u000B-\u001F\u007F-\u009F]/;

function controlCharacter(command: string): { detail: string; at: number } | null {
  const m = CONTROL.exec(command);
  if (!m) return null;
  const code = m[0].charCodeAt(0);
  const name = CONTROL_NAMES[code] ?? "a control character";
  return { detail: `U+${code.toString(16).toUpperCase().padStart(4, "0")} (${name})`, at: m.index + 1 };
}

const CONTROL_NAMES: Record<number, string> = { 0x0d: "carriage return", 0x1b: "escape", 0x15: "^U, erase line", 0x08: "backspace", 0x7f: "delete", 0x03: "^C", 0x04: "^D", 0x0c: "form feed", 0x0b: "vertical tab", 0x07: "bell" };

/** No unpaired surrogates (String.prototype.isWellFormed where the engine has it). */
function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(s) : !LONE_SURROGATE.test(s);
}

// Templates split once at their {placeholders}: odd entries are names. Every verdict fills one.
const compiled = new Map<string, string[]>();

function fill(template: string, values: Record<string, string | number>): string {
  let parts = compiled.get(template);
  if (!parts) compiled.set(template, (parts = template.split(/\{(\w+)\}/)));
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const k = parts[i]!;
    out += (k in values ? String(values[k]) : `{${k}}`) + parts[i + 1]!;
  }
  return out;
}

function shorten(text: string, max: number = MESSAGES.commandChars): string {
  return clip(text.trim(), max);
}

function layer0(id: string, values: Record<string, string | number> = {}): Verdict {
  const row = LAYER0.find((r) => r.id === id)!;
  return { decision: row.decision, layer: 0, rule: row.id, reason: fill(row.reason, values), hint: row.hint };
}

/** The error object for a refused command: `{ error: "Command blocked by safety rule: …", rule, layer }`. */
export function toBlockedError(verdict: Verdict): { error: string; rule: string; layer: Layer } {
  return { error: `Command blocked by safety rule: ${verdict.reason}`, rule: verdict.rule, layer: verdict.layer };
}

/** The rows name /tmp as the scratch folder; where that is another one (GuardOptions.scratch), they say which. */
function ownScratch(text: string, row: RuleRow, scratch: string): string {
  return scratch === "/tmp" || row.layer !== 2 ? text : text.replace(/\/tmp\b/g, scratch);
}

function rowVerdict(row: RuleRow, detail: string, decision: Decision, cmd: Command, scratch = "/tmp"): Verdict {
  const via = cmd.via ? ` (inside ${cmd.via})` : "";
  const v: Verdict = { decision, layer: row.layer, rule: row.id, reason: fill(ownScratch(row.reason, row, scratch), { detail }) + via, part: shorten(cmd.text) };
  if (row.hint) v.hint = ownScratch(row.hint, row, scratch);
  return v;
}

export async function createGuard(options: GuardOptions = {}): Promise<Guard> {
  const policy: Policy = options.policy ?? "balanced";
  if (!POLICIES.includes(policy)) throw new TypeError(`policy must be one of ${POLICIES.join(", ")}, not ${JSON.stringify(policy)}`);
  const workspace = normalizePath(options.workspace ?? WORKSPACE);
  const home = normalizePath(options.home ?? workspace);
  const scratch = normalizePath(options.scratch ?? "/tmp");
  const rules = compileRules(options.rules);
  const analyzer = await createAnalyzer();

  const hardRows = [...LAYER1, ...SEMANTICS, ...LAYER2, LAYER3[0]!];
  const defaultRows = LAYER3.slice(1);
  // The rows' match functions, in arrays beside them: the rows are object literals of several shapes, so reading
  // `row.match` in judgePart's loops would be a megamorphic property load for every row of every part.
  const hardMatch = hardRows.map((row) => row.match);
  const defaultMatch = defaultRows.map((row) => row.match);
  const hasUserRules = rules.allow.length + rules.ask.length + rules.deny.length > 0;

  /**
   * A part's decision: from a rule row or from a user's rule. Its text is rendered only for the part
   * that decides the whole command, and it is plain data, not a closure: every part of every check makes one.
   */
  type Pending =
    // `permissive`: allowed only because the policy is permissive, which the verdict says.
    | { decision: Decision; layer: Layer; cmd: Command; row: RuleRow; detail: string; permissive: boolean }
    | { decision: Decision; layer: 3; cmd: Command; user: { rule: string; subject: string } };

  function fromRow(row: RuleRow, detail: string, decision: Decision, cmd: Command, permissive = false): Pending {
    return { decision, layer: row.layer, cmd, row, detail, permissive };
  }

  function render(p: Pending): Verdict {
    if ("user" in p) {
      const word = p.decision === "allow" ? "allows" : p.decision === "ask" ? "asks for" : "refuses";
      return {
        decision: p.decision,
        layer: 3,
        rule: `user-${p.decision}`,
        reason: `Your rule \`${p.user.rule}\` ${word} \`${shorten(p.user.subject, MESSAGES.shortCommandChars)}\`.`,
        ...(p.decision === "deny" ? { hint: "This command is refused by a rule of this sandbox; do it another way or ask the person." } : {}),
        part: shorten(p.cmd.text),
      };
    }
    const v = rowVerdict(p.row, p.detail, p.decision, p.cmd, scratch);
    if (p.permissive) {
      v.rule = "permissive";
      v.reason = `Runs under the permissive policy: ${v.reason}`;
      delete v.hint;
    }
    return v;
  }

  const exactOnlyRows = [...hardRows, ...defaultRows].filter((r) => EXACT_ONLY.has(r.id));
  function exactOnly(cmd: Command, eff: ReturnType<RuleEnv["effective"]>, env: RuleEnv): boolean {
    return exactOnlyRows.some((row) => row.match(cmd, eff, env) !== null);
  }

  function judgePart(cmd: Command, env: RuleEnv): Pending {
    const eff = env.effective(cmd);
    let soft: Pending | null = null;
    for (let i = 0; i < hardMatch.length; i++) {
      const row = hardRows[i]!;
      const m = hardMatch[i]!.call(row, cmd, eff, env);
      if (!m) continue;
      const decision = m.decision ?? row.decision;
      if (decision === "deny") return fromRow(row, m.detail, "deny", cmd);
      soft ??= fromRow(row, m.detail, decision, cmd);
    }
    if (hasUserRules) {
      const subject = ruleSubject(cmd, eff);
      let user = matchUserRules(rules, subject);
      if (user?.decision === "allow" && exactOnly(cmd, eff, env)) {
        // A write to a config file, shell state or a variable: only an exact rule for this very command allows it.
        const exact = exactRule(rules.allow, exactSubject(cmd, eff));
        user = exact ? { decision: "allow", rule: exact } : null;
      }
      if (user) return { decision: user.decision, layer: 3, cmd, user: { rule: user.rule, subject } };
    }
    let base: Pending | null = null;
    for (let i = 0; i < defaultMatch.length; i++) {
      const row = defaultRows[i]!;
      const m = defaultMatch[i]!.call(row, cmd, eff, env);
      if (!m) continue;
      const decision = row.decisions?.[policy] ?? presetDecision(policy, row.decision);
      base = fromRow(row, m.detail, decision, cmd, decision === "allow" && row.decision !== "allow");
      break;
    }
    if (!soft) return base!;
    return RANK[soft.decision] >= RANK[base!.decision] ? soft : base!;
  }

  function check(command: string, context: CheckContext = {}): Verdict {
    if (typeof command !== "string") {
      return layer0("invalid-input", { detail: `expected a string, got ${command === null ? "null" : Array.isArray(command) ? "an array" : typeof command}` });
    }
    if (command.length > GUARD.maxCommandChars) return layer0("invalid-input", { detail: `${command.length} characters, more than the ${GUARD.maxCommandChars} a command may have` });
    if (command.includes("\u0000")) return layer0("invalid-input", { detail: "it contains a NUL byte, which no shell command can carry" });
    if (!isWellFormed(command)) return layer0("invalid-input", { detail: "it contains an unpaired UTF-16 surrogate, which is not valid text" });
    const control = controlCharacter(command);
    if (control) return layer0("control-character", control);
    if (command.trim() === "") return layer0("empty-command");
    const kind = looksLikePythonLiteralArgument(command);
    if (kind) {
      return layer0("literal-argument", { detail: kind, head: JSON.stringify(command.trimStart().slice(0, GUARD.headChars)) });
    }
    const cwd = typeof context.cwd === "string" && context.cwd.startsWith("/") ? normalizePath(context.cwd) : workspace;
    let script;
    try {
      script = analyzer.analyze(command, { cwd, home, maxNestedDepth: GUARD.maxNestedShellDepth });
    } catch (error) {
      // Fail closed: whatever the parser or a rule could not handle is refused, never allowed.
      return layer0("too-complex", { detail: `the guard could not analyse it (${error instanceof Error ? error.message : String(error)})` });
    }
    if (script.problem) {
      const p = script.problem;
      return layer0("syntax-error", { line: p.line, column: p.column, detail: p.where ? `${p.cause} (${p.where})` : p.cause });
    }
    if (script.incomplete) return layer0("too-complex", { detail: script.incomplete });
    const runnable = script.commands;
    if (runnable.length === 0) {
      return { decision: "allow", layer: 3, rule: "allowlist", reason: "Nothing runs: the command holds only comments." };
    }
    const env = makeEnv(script, workspace, home, policy, scratch, command.length);
    let worst: Pending | null = null;
    for (const cmd of runnable) {
      const v = judgePart(cmd, env);
      if (!worst || RANK[v.decision] > RANK[worst.decision] || (RANK[v.decision] === RANK[worst.decision] && v.layer < worst.layer)) worst = v;
    }
    if (decided) decided.part = { cmd: worst!.cmd, eff: env.effective(worst!.cmd), rule: "user" in worst! ? null : worst!.row.id };
    return render(worst!);
  }

  /** Set by suggest() around a check: the part that decided, and its rule. */
  let decided: { part: { cmd: Command; eff: ReturnType<RuleEnv["effective"]>; rule: string | null } | null } | null = null;

  /**
   * The rule "Always allow" would add for `command`: about the part that asked, never broader than it where a
   * prefix could write elsewhere (EXACT_ONLY: the exact part), else its program's prefix (`npm run build:*`).
   */
  function suggest(command: string, context: CheckContext = {}): string {
    decided = { part: null };
    try {
      check(command, context);
      const part = decided.part;
      if (!part) return suggestRuleFor(command);
      return part.rule !== null && EXACT_ONLY.has(part.rule) ? exactSubject(part.cmd, part.eff) : suggestRule(ruleSubject(part.cmd, part.eff));
    } catch {
      return suggestRuleFor(command);
    } finally {
      decided = null;
    }
  }

  return {
    policy,
    workspace,
    check(command, context) {
      try {
        return check(command, context);
      } catch (error) {
        return layer0("too-complex", { detail: `the guard failed on it (${error instanceof Error ? error.message : String(error)})` });
      }
    },
    suggestRule: suggest,
  };
}

/**
 * The rule "Always allow" would add, from the text alone (the first part's program): for callers without a guard.
 * Guard.suggestRule knows which part asked and why, and is never broader than a write it was asked about.
 */
export function suggestRuleFor(command: string): string {
  return suggestRule(command.trim().split(/\s*(?:&&|\|\||;|\|)\s*/)[0] ?? command);
}

export { needsMoreInput } from "./incomplete.ts";
