// Pending approvals for verdicts of `ask` (risky commands need a person's yes or no). One request per command that needs a person; it is answered by
// the playground UI, by the connected host (MCP elicitation/create, through a hook the API layer gives), by a function
// (Node callers), or refused at once (`deny`). Nobody answering within APPROVALS.expiryMs denies it, and says so.
//
// Nothing here is reachable from the tool channel: no tool answers an approval, so an agent never approves its own
// call. "Always allow" is returned as an outcome with a rule; the sandbox adds the rule to the session's guard.

import { APPROVALS } from "../limits.ts";
import { Listeners } from "../lib/listeners.ts";
import { compileRule, type Verdict } from "../guard/index.ts";

export type ApprovalDecision = "allow" | "always" | "deny";

export interface ApprovalRequest {
  id: string;
  /** bash; or a file tool, whose write is judged as the same write from bash would be (`tee PATH`). */
  tool: "bash" | "write_file" | "edit_file";
  /** The command exactly as it would run (a file tool: the bash command that writes the same file). */
  command: string;
  /** The shell's working directory when it was checked. */
  cwd: string;
  /** True when the command would start as a background job. */
  background: boolean;
  verdict: Verdict;
  /** The guard rule that asked (verdict.rule). */
  rule: string;
  /** Why it asks, for a person (verdict.reason). */
  reason: string;
  /** The rule "Always allow" adds unless the person edits it: `npm run build:*`. */
  suggestedRule: string;
  /** Who made the call (the API layer's connection id), when known. */
  caller?: string;
  /** The tool call that asks (as in the audit log). */
  callId?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  /** Who is asked: the UI, the connected host, or a function. */
  route: "ui" | "host" | "function";
}

/** A person's answer. `rule` (for "always") may be the suggested rule edited; `note` goes back to the agent. */
export interface ApprovalAnswer {
  decision: ApprovalDecision;
  rule?: string;
  note?: string;
}

export interface ApprovalOutcome {
  /** The request's id; absent when no request was opened (approver "deny", a closed sandbox, a call cancelled first). */
  id?: string;
  decision: ApprovalDecision;
  /** For "always": the rule to add (the suggested one unless edited). */
  rule?: string;
  note?: string;
  /** Who decided: a person through the UI, the host, the approver function, the `deny` approver, expiry, or a cancel. */
  by: "ui" | "host" | "function" | "policy" | "expiry" | "cancel" | "closed";
}

/** `(request) => true | false | { decision, rule?, note? }`, for Node callers. */
export type ApproverFunction = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<boolean | ApprovalAnswer> | boolean | ApprovalAnswer;

/** Set by the API layer per connection: asks the connected client (MCP elicitation/create). Throwing falls back to the UI. */
export type HostApprover = (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean | ApprovalAnswer>;

export type Approver = "ui" | "host" | "deny" | ApproverFunction;

export type ApprovalEvent =
  | { type: "requested"; request: ApprovalRequest }
  | { type: "resolved"; request: ApprovalRequest; outcome: ApprovalOutcome }
  /** A host hook failed; the request now waits for the UI. */
  | { type: "rerouted"; request: ApprovalRequest; reason: string };

export interface ApprovalsOptions {
  approver?: Approver;
  /** Default APPROVALS.expiryMs. */
  expiryMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** The calling connection's host hook (MCP elicitation); takes precedence over setHost(). */
  host?: HostApprover;
}

interface Pending {
  request: ApprovalRequest;
  resolve(outcome: ApprovalOutcome): void;
}

const ALLOW_WORDS = new Set(["allow", "allow-once", "allow_once", "once", "approve", "approved", "yes", "accept"]);
const ALWAYS_WORDS = new Set(["always", "allow-always", "allow_always", "always-allow", "always_allow"]);
const DENY_WORDS = new Set(["deny", "denied", "reject", "rejected", "no", "decline", "cancel"]);

/** A boolean or an answer object as an answer; null when it is neither. */
export function normalizeAnswer(value: unknown): ApprovalAnswer | null {
  if (value === true) return { decision: "allow" };
  if (value === false) return { decision: "deny" };
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const word = typeof v.decision === "string" ? v.decision.trim().toLowerCase() : "";
  const decision: ApprovalDecision | null = ALLOW_WORDS.has(word)
    ? "allow"
    : ALWAYS_WORDS.has(word)
      ? "always"
      : DENY_WORDS.has(word)
        ? "deny"
        : null;
  if (decision === null) return null;
  const answer: ApprovalAnswer = { decision };
  if (typeof v.rule === "string" && v.rule.trim() !== "") answer.rule = v.rule.trim();
  if (typeof v.note === "string" && v.note.trim() !== "") answer.note = v.note.trim();
  return answer;
}

/** The words a result uses for who approved: a connected client is "the host page", never "a person". */
export function approverWords(by: ApprovalOutcome["by"]): string {
  switch (by) {
    case "host":
      return "the host page (the connected client, not necessarily a person)";
    case "function":
      return "this sandbox's approver";
    case "ui":
      return "a person";
    default:
      return "policy";
  }
}

function normalRule(rule: string): string {
  const wrapped = /^Bash\((.*)\)$/s.exec(rule.trim());
  return (wrapped ? wrapped[1]! : rule).trim().replace(/\s+/g, " ");
}

/**
 * True when `rule` allows nothing that `suggested` does not: the same rule, one with a longer fixed head (`npm run
 * build:*` or `npm run build *` within `npm run:*`), or one exact command it matches. `*`, `r*`, `rm*` are broader.
 */
export function ruleWithin(rule: string, suggested: string): boolean {
  const r = normalRule(rule);
  const s = normalRule(suggested);
  if (r === "" || s === "") return false;
  if (r === s) return true;
  const sPrefix = s.endsWith(":*") ? s.slice(0, -2).trimEnd() : null;
  const star = r.indexOf("*");
  if (star !== -1) {
    // Rules match one simple command's words, so a `*` cannot reach past it: a rule whose fixed head is a longer
    // prefix of the suggested one (`rm -r junk*`, `npm run build:prod:*` within `rm:*`, `npm run build:*`) is narrower.
    if (sPrefix === null || sPrefix.includes("*")) return false;
    const head = r.slice(0, star);
    return head.startsWith(sPrefix + " ") || head.startsWith(sPrefix + ":");
  }
  return compileRule(s).test(r);
}

export class Approvals {
  readonly mode: "ui" | "host" | "deny" | "function";
  readonly expiryMs: number;
  private readonly fn: ApproverFunction | null;
  private readonly waiting = new Map<string, Pending>();
  private readonly listeners = new Listeners<ApprovalEvent>("approvals");
  private hostHook: HostApprover | null = null;
  private counter = 0;
  private closed = false;

  constructor(options: ApprovalsOptions = {}) {
    const approver = options.approver ?? "ui";
    if (typeof approver === "function") {
      this.mode = "function";
      this.fn = approver;
    } else if (approver === "ui" || approver === "host" || approver === "deny") {
      this.mode = approver;
      this.fn = null;
    } else {
      throw new TypeError(`approver must be "ui", "host", "deny" or a function, not ${JSON.stringify(approver)}`);
    }
    const expiry = options.expiryMs ?? APPROVALS.expiryMs;
    if (!(expiry > 0)) throw new RangeError(`approval expiry must be a positive number of milliseconds, not ${expiry}`);
    this.expiryMs = expiry;
  }

  /** Requests waiting for an answer, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((p) => p.request);
  }

  /** Answers a pending request (from the UI). False when no such request waits (answered, expired or cancelled). */
  answer(id: string, answer: ApprovalAnswer | boolean): boolean {
    const normalized = normalizeAnswer(answer);
    if (normalized === null) {
      throw new TypeError(`an answer is true, false or { decision: "allow" | "always" | "deny", rule?, note? }`);
    }
    const p = this.waiting.get(id);
    if (p === undefined) return false;
    p.resolve({ ...normalized, by: p.request.route === "host" ? "host" : "ui" });
    return true;
  }

  on(listener: (event: ApprovalEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** The host hook for approver "host" when a call brings none of its own; null removes it. */
  setHost(hook: HostApprover | null): void {
    this.hostHook = hook;
  }

  /** Asks for approval; resolves with the outcome (never rejects). */
  request(
    input: Omit<ApprovalRequest, "id" | "createdAt" | "expiresAt" | "route">,
    options: RequestOptions = {},
  ): Promise<ApprovalOutcome> {
    if (this.closed) return Promise.resolve({ decision: "deny", by: "closed" });
    if (this.mode === "deny") return Promise.resolve({ decision: "deny", by: "policy" });
    const host = this.mode === "host" ? (options.host ?? this.hostHook) : null;
    const route: ApprovalRequest["route"] = this.mode === "function" ? "function" : host !== null ? "host" : "ui";
    const createdAt = Date.now();
    const request: ApprovalRequest = {
      ...input,
      id: `approval-${++this.counter}`,
      createdAt,
      expiresAt: createdAt + this.expiryMs,
      route,
    };
    const signal = options.signal;
    if (signal?.aborted) return Promise.resolve({ decision: "deny", by: "cancel" });

    return new Promise<ApprovalOutcome>((resolve) => {
      const inner = new AbortController();
      let done = false;
      const finish = (result: ApprovalOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        inner.abort();
        this.waiting.delete(request.id);
        const outcome: ApprovalOutcome = { id: request.id, ...result };
        this.emit({ type: "resolved", request, outcome });
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ decision: "deny", by: "expiry" }), this.expiryMs);
      const onAbort = (): void => finish({ decision: "deny", by: "cancel" });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(request.id, { request, resolve: finish });
      this.emit({ type: "requested", request });

      const ask = route === "function" ? this.fn! : route === "host" ? host! : null;
      if (ask === null) return; // the UI answers through answer()
      let reply: Promise<boolean | ApprovalAnswer>;
      try {
        reply = Promise.resolve(ask(request, inner.signal));
      } catch (err) {
        reply = Promise.reject(err);
      }
      reply.then(
        (value) => {
          const normalized = normalizeAnswer(value);
          if (normalized === null) {
            finish({ decision: "deny", by: route, note: `The approver gave no usable answer (${String(JSON.stringify(value))}).` });
          } else if (route === "host" && normalized.decision === "always" && !ruleWithin(normalized.rule ?? request.suggestedRule, request.suggestedRule)) {
            // A client answering its own approval may not widen it: the call runs once, and no rule is added.
            const note = `The host page asked to always allow \`${normalized.rule}\`, which is broader than the suggested \`${request.suggestedRule}\`; this call was approved once and no rule was added.`;
            finish({ decision: "allow", by: route, note: normalized.note !== undefined ? `${normalized.note} (${note})` : note });
          } else {
            finish({ ...normalized, by: route });
          }
        },
        (err: unknown) => {
          if (done) return;
          if (route === "host") {
            // The client could not be asked (no elicitation, a broken connection): the person at the UI decides.
            request.route = "ui";
            this.emit({ type: "rerouted", request, reason: err instanceof Error ? err.message : String(err) });
            return;
          }
          finish({ decision: "deny", by: route, note: `The approver failed: ${err instanceof Error ? err.message : String(err)}` });
        },
      );
    });
  }

  /** Cancels (denies, `by: "cancel"`) every request of one caller still pending: its connection is gone. How many. */
  cancelFor(caller: string): number {
    const mine = [...this.waiting.values()].filter((p) => p.request.caller === caller);
    for (const p of mine) p.resolve({ decision: "deny", by: "cancel" });
    return mine.length;
  }

  /** Denies everything still pending; later requests are denied at once. */
  close(): void {
    this.closed = true;
    for (const p of [...this.waiting.values()]) p.resolve({ decision: "deny", by: "closed" });
  }

  private emit(event: ApprovalEvent): void {
    this.listeners.emit(event);
  }
}
