// The bash tool: guard verdict (its layer 0 is the literal check; all of it is skipped for is_input, which types into a
// program that already runs) → deny: not run, the blocked error object and a hint; ask: a person's approval; allow:
// run in the persistent shell, or start a background job. Cancelling the call (AbortSignal) interrupts the command.

import { needsMoreInput, toBlockedError, type Verdict } from "../guard/index.ts";
import { MESSAGES, SHELL } from "../limits.ts";
import type { Capabilities } from "../runtime/types.ts";
import { JobError } from "../shell/jobs.ts";
import type { ShellResult } from "../shell/session.ts";
import { commandText } from "../shell/wire.ts";
import { keyToBytes } from "../shell/keys.ts";
import { approverWords, type ApprovalOutcome, type ApprovalRequest } from "./approvals.ts";
import { exampleCall } from "./args.ts";
import { type CallInfo, errorOutcome, type ToolContext, type ToolOutcome, type ToolStatus } from "./context.ts";
import { clip, formatDuration } from "../lib/text.ts";
import { toolSpec, type ToolArgs } from "./specs.ts";

/** bash's arguments, from its zod spec (with is_input, enter false sends the text without Enter). */
export type BashArgs = ToolArgs<"bash">;

/**
 * Commands held because bash would read more lines first (an open heredoc): per shell session and per caller, unsent.
 * A held command belongs to its caller: only that caller's is_input continues it (another caller's is refused).
 */
const heldBySession = new WeakMap<object, Map<string, string>>();

function heldOf(session: object): Map<string, string> {
  let map = heldBySession.get(session);
  if (map === undefined) heldBySession.set(session, (map = new Map()));
  return map;
}

/** The key of a call's caller in the held map: its id, or "" for the sandbox's owner. */
function heldKey(caller: string | undefined): string {
  return caller === undefined ? "" : `c:${caller}`;
}

/** A caller is gone (its connection ended): its held, unsent command goes. True when there was one. */
export function dropHeld(session: object, caller: string | undefined): boolean {
  return heldBySession.get(session)?.delete(heldKey(caller)) ?? false;
}

function heldOutcome(text: string, cwd: string): ToolOutcome {
  return {
    text:
      "The command is not complete yet (an open heredoc or a trailing backslash), so nothing was sent. Send the next " +
      "lines with is_input=true; when the text is complete it is checked as a whole and run.\n[held · cwd " + cwd + "]",
    structured: { status: "running", held: true, heldChars: text.length, cwd },
  };
}

/**
 * Input for a shell that reads command lines (a nested bash, or one under python's pty.spawn): whole lines only, so the
 * guard checks exactly the line that runs. Keys that edit or complete the line (C-a, C-d, arrows, Tab), text without
 * Enter and a tab inside the text (completion) are refused: each would let checked text become another command in the
 * shell's line editor. C-c (clear the line, stop what runs) is the one key it takes.
 */
function shellInputRefusal(shell: string, command: string, enter: boolean): string | null {
  const key = keyToBytes(command);
  if (key === "\x03") return null;
  const hint =
    `Send the whole command line as text with is_input=true (Enter is added), "C-c" to clear the line or stop what ` +
    `runs in ${shell}, or "exit" to leave it.`;
  if (key !== null) {
    return `${shell} reads this input as command lines, so is_input takes whole lines only: the key ${JSON.stringify(command.trim())} would edit the line the shell runs after the guard checked it. Nothing was sent. ${hint}`;
  }
  if (!enter && command !== "") {
    return `${shell} reads this input as command lines, so is_input takes whole lines only: text with enter=false would stay in the shell's line, to be changed by later keys. Nothing was sent. ${hint}`;
  }
  if (command.includes("\t")) {
    return `${shell} reads this input as command lines, and a tab in it would be completion (the line would change after the guard checked it). Nothing was sent. Write the command without tabs. ${hint}`;
  }
  return null;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The timeout to use, and a note when the asked one was changed. */
export function effectiveTimeout(asked: number | undefined): { sec: number | undefined; note?: string } {
  if (asked === undefined) return { sec: undefined };
  const max = SHELL.maxTimeoutSec;
  if (!(asked > 0)) return { sec: undefined, note: `timeout ${asked} is not a positive number of seconds; the default ${SHELL.defaultTimeoutSec} s applies.` };
  if (asked > max) {
    // 120000 is Claude Code's way of saying two minutes: milliseconds, when that reading fits.
    if (asked >= 1_000 && asked / 1_000 <= max) {
      const sec = asked / 1_000;
      return { sec, note: `timeout is in seconds; ${asked} was read as milliseconds, so ${sec} s applies.` };
    }
    return { sec: max, note: `timeout ${asked} s is more than the ${max} s allowed; ${max} s applies.` };
  }
  return { sec: asked };
}

/** Hints for what this runtime's shell cannot do, when the command uses it. */
export function capabilityHints(command: string, caps: Capabilities, result?: ShellResult): string[] {
  const hints: string[] = [];
  // Quoted text and redirections such as 2>&1 or &> say nothing about lists, pipes or background jobs.
  const bare = command
    .replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''")
    .replace(/\d*[<>]&\d*-?|&>>?/g, ">");
  if (!caps.heredocs && /<<-?\s*['"]?[A-Za-z_]/.test(command)) {
    hints.push("This runtime's shell does not support heredocs (<<EOF); write files with the write_file tool instead.");
  }
  if (!caps.pipes && /(^|[^|])\|(?![|&])/.test(bare)) {
    hints.push("This runtime's shell does not support pipes; write the first command's output to a file and read that.");
  }
  if (!caps.redirects && /(^|[^<])[<>](?!\()/.test(bare.replace(/<<-?\s*['"]?\w+['"]?/g, ""))) {
    hints.push("This runtime's shell does not support redirections; use write_file and read_file for files.");
  }
  if (!caps.lists && /;|\|\||\$\?/.test(bare)) {
    hints.push("This runtime's shell does not support `;`, `||` or `$?`; run the parts as separate calls.");
  }
  if (!caps.background && /(^|[^&|])&(?!&)/.test(bare)) {
    hints.push("This runtime's shell cannot put commands in the background with &; use run_in_background=true.");
  }
  if (result?.exitCode === 127) {
    const first = /^\s*(?:[A-Za-z_]\w*=\S*\s+)*([^\s;|&<>()]+)/.exec(command)?.[1];
    if (first !== undefined && caps.programs[first] === false) {
      const have = Object.entries(caps.programs)
        .filter(([, ok]) => ok)
        .map(([p]) => p);
      const shown = have.length > 30 ? `${have.slice(0, 30).join(", ")}, …` : have.join(", ");
      hints.push(`${first} is not available in this runtime.${have.length > 0 ? ` Programs it has include: ${shown}.` : ""}`);
    }
  }
  return hints;
}

function footer(r: ShellResult): string {
  const code = r.exitCode !== null ? `exit code ${r.exitCode}` : null;
  const where = `cwd ${r.cwd}`;
  switch (r.status) {
    case "completed":
      return `[${code ?? "exit code unknown"} · ${where}]`;
    case "running":
      return `[still running (${formatDuration(r.durationMs)} so far) · ${where}]`;
    case "timeout":
      return `[timed out after ${formatDuration(r.durationMs)}${code ? ` · ${code}` : ""} · ${where}]`;
    case "interrupted":
      return `[interrupted${code ? ` · ${code}` : ""} · ${where}]`;
  }
}

const HOW_TO_GO_ON =
  'To wait for more output, send an empty command with is_input=true; to answer the running program, send text with ' +
  'is_input=true (Enter is added; enter=false sends keys alone); to stop it, send "C-c" with is_input=true.';

/** The words for the agent on how to go on from a `running` result or a refusal (the shell returns only facts). */
export function advice(r: ShellResult): string | undefined {
  if (r.refused === "busy") return HOW_TO_GO_ON;
  if (r.refused === "idle") return "Run a command instead (without is_input).";
  const w = r.waiting;
  if (w === undefined) return undefined;
  if (w.reason === "prompt") {
    return (
      `The command seems to wait for input (its last line is ${JSON.stringify(w.lastLine.slice(-80))}). ` +
      'Send the answer with is_input=true (Enter is added), "C-c" with is_input=true to stop it, or an empty ' +
      "command with is_input=true to keep waiting."
    );
  }
  return `The command is still running: no new output for ${formatDuration(w.quietMs)}. ${HOW_TO_GO_ON}`;
}

/** A shell result as text for a model: output, footer, then notices and hints. */
export function formatShellResult(r: ShellResult, hints: string[] = [], lead: string[] = []): ToolOutcome {
  const hint = advice(r);
  if (r.error !== undefined && r.refused === "busy") {
    // A normal result (as OpenHands does): the command was not run, and here is what the running one printed since.
    const text = [...lead, r.error, r.output !== "" ? r.output.replace(/\n$/, "") : "(no new output)", footer(r), `Hint: ${hint}`];
    return {
      text: text.join("\n"),
      structured: { status: "running", exitCode: null, cwd: r.cwd, durationMs: r.durationMs, truncated: r.truncated, refused: "busy", notRun: true },
    };
  }
  if (r.error !== undefined) {
    return {
      text: [...lead, hint !== undefined ? `${r.error} ${hint}` : r.error, `[cwd ${r.cwd}]`].join("\n"),
      isError: true,
      structured: { status: "error", exitCode: null, cwd: r.cwd, durationMs: r.durationMs, truncated: false, error: r.error },
    };
  }
  const parts: string[] = [...lead];
  if (r.output !== "") parts.push(r.output.endsWith("\n") ? r.output.slice(0, -1) : r.output);
  else parts.push(r.status === "running" ? "(no new output)" : "(no output)");
  parts.push(footer(r));
  if (r.truncated) {
    parts.push(
      r.fullOutputPath !== undefined
        ? `Output truncated: the whole output is in ${r.fullOutputPath} (read_file it with offset/limit, or grep it).`
        : "Output truncated (the whole output could not be saved).",
    );
  }
  if (r.notice) parts.push(`Notice: ${r.notice}`);
  if (hint) parts.push(`Hint: ${hint}`);
  for (const h of hints) parts.push(`Hint: ${h}`);
  const structured: ToolOutcome["structured"] = {
    status: r.status as ToolStatus,
    exitCode: r.exitCode,
    cwd: r.cwd,
    durationMs: r.durationMs,
    truncated: r.truncated,
  };
  if (r.fullOutputPath !== undefined) structured.fullOutputPath = r.fullOutputPath;
  if (r.notice) structured.notice = r.notice;
  if (hint) structured.hint = hint;
  return { text: parts.join("\n"), isError: r.status === "timeout", structured };
}

function blockedOutcome(v: Verdict, cwd: string, t0: number): ToolOutcome {
  const error = toBlockedError(v);
  const lines = [error.error, `Rule: ${v.rule} (layer ${v.layer})${v.part && v.part !== "" ? ` · part: ${v.part}` : ""}`];
  if (v.hint) lines.push(`Hint: ${v.hint}`);
  lines.push("The command was not run.");
  return {
    text: lines.join("\n"),
    isError: true,
    structured: { status: "blocked", error, verdict: v, cwd, durationMs: Math.round(performance.now() - t0) },
  };
}

function expiryText(ms: number): string {
  return formatDuration(ms).replace(/^1 min$/, "1 minute").replace(/ min$/, " minutes");
}

function deniedOutcome(host: ToolContext, v: Verdict, o: ApprovalOutcome, cwd: string, t0: number): ToolOutcome {
  const approval = { id: o.id, decision: o.decision, by: o.by, ...(o.note ? { note: o.note } : {}) };
  const base = { verdict: v, cwd, durationMs: Math.round(performance.now() - t0), approval };
  if (o.by === "cancel") {
    return {
      text: "The call was cancelled while the command waited for approval; the command was not run.",
      isError: true,
      structured: { status: "interrupted", ...base },
    };
  }
  const lines: string[] = [];
  if (o.by === "expiry") {
    lines.push(`No one answered the approval request within ${expiryText(host.approvals.expiryMs)}, so it was denied. The command was not run.`);
  } else if (o.by === "policy") {
    lines.push('This sandbox refuses every command that needs approval (approver "deny"). The command was not run.');
  } else if (o.by === "closed") {
    lines.push("The sandbox was closed before the command was approved. The command was not run.");
  } else {
    const who = o.by === "function" ? "This sandbox's approver" : o.by === "host" ? "The host page" : "A person";
    lines.push(`${who} denied this command${o.by === "host" ? " (asked through the host application)" : ""}. It was not run.`);
  }
  lines.push(`It needed approval because: ${v.reason}`);
  if (o.note) lines.push(`${o.by === "function" ? "Note from the approver" : o.by === "host" ? "Note from the host page" : "Note from the person"}: ${o.note}`);
  else if (o.by === "ui" || o.by === "host" || o.by === "function") lines.push("Do not retry the same command; ask the person or do it another way.");
  if (o.by === "policy" && v.hint) lines.push(`Hint: ${v.hint}`);
  return { text: lines.join("\n"), isError: true, structured: { status: "denied", ...base } };
}

async function runWithCancel(host: ToolContext, call: CallInfo, start: () => Promise<ShellResult>): Promise<ShellResult> {
  const signal = call.signal;
  let settled = false;
  const stop = async (): Promise<void> => {
    // The command may still be on its way into the shell: try again until it is there to interrupt, or has ended.
    while (!settled) {
      const r = await host.session.interrupt();
      if (r.error === undefined || settled) return;
      await delay(20);
    }
  };
  const onAbort = (): void => void stop();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await start();
  } finally {
    settled = true;
    signal?.removeEventListener("abort", onAbort);
  }
}

export interface Gate {
  verdict: Verdict;
  approvalLine: string | null;
  approval: Record<string, unknown> | undefined;
}

/**
 * The guard's verdict on `command`, and a person's approval when it asks: a result to return, or leave to run. The file
 * tools ask it too, about the same write from bash (files.ts), with their tool's name and an exact suggested rule.
 */
export async function gate(
  host: ToolContext,
  call: CallInfo,
  command: string,
  cwd: string,
  background: boolean,
  t0: number,
  tool: ApprovalRequest["tool"] = "bash",
  exactRule?: string,
): Promise<Gate | { outcome: ToolOutcome }> {
  const verdict = host.guard().check(command, { cwd });
  call.record("verdict", { command, cwd, verdict });
  if (verdict.decision === "deny") return { outcome: blockedOutcome(verdict, cwd, t0) };

  let approvalLine: string | null = null;
  let approval: Record<string, unknown> | undefined;
  if (verdict.decision === "ask") {
    // About the part that asked, and never broader than a write it asks about (only when it asks: it parses again).
    const suggestedRule = exactRule ?? host.guard().suggestRule(command, { cwd });
    const outcome = await host.approvals.request(
      {
        tool,
        command,
        cwd,
        background,
        verdict,
        rule: verdict.rule,
        reason: verdict.reason,
        suggestedRule,
        ...(call.caller !== undefined ? { caller: call.caller } : {}),
        callId: call.id,
      },
      { signal: call.signal, host: call.host },
    );
    approval = { id: outcome.id, decision: outcome.decision, by: outcome.by, ...(outcome.note ? { note: outcome.note } : {}) };
    if (outcome.decision === "deny") return { outcome: deniedOutcome(host, verdict, outcome, cwd, t0) };
    const who = approverWords(outcome.by);
    if (outcome.decision === "always") {
      const rule = outcome.rule ?? suggestedRule;
      approval.rule = rule;
      await host.alwaysAllow(rule, {
        command,
        callId: call.id,
        tool,
        ...(call.caller !== undefined ? { caller: call.caller } : {}),
        ...(outcome.id ? { approvalId: outcome.id } : {}),
      });
      approvalLine = `Approved by ${who}, who also allowed \`${rule}\` for the rest of this session.`;
    } else {
      approvalLine = `Approved by ${who} for this one run.`;
    }
    if (outcome.note) approvalLine += ` Their note: ${outcome.note}`;
    if (call.signal?.aborted) {
      return { outcome: { text: "The call was cancelled before the command ran.", isError: true, structured: { status: "interrupted", cwd, verdict, approval } } };
    }
  }

  return { verdict, approvalLine, approval };
}

export async function bashTool(host: ToolContext, call: CallInfo, args: BashArgs): Promise<ToolOutcome> {
  const t0 = performance.now();
  const session = host.session;
  const notes: string[] = [];
  const timeout = effectiveTimeout(args.timeout);
  if (timeout.note) notes.push(`Note: ${timeout.note}`);
  const onOutput = call.onOutput;

  if (call.signal?.aborted) {
    return { text: "The call was cancelled before the command ran.", isError: true, structured: { status: "interrupted", cwd: session.cwd } };
  }

  const held = heldOf(session);
  const who = heldKey(call.caller);
  const pending = held.get(who);
  if (args.is_input === true && pending !== undefined && !session.busy && keyToBytes(args.command) === null) {
    // The rest of a held command: complete → checked as a whole and run; still open → held on.
    const whole = `${pending}\n${args.command.replace(/\n+$/, "")}`;
    if (needsMoreInput(whole)) {
      held.set(who, whole);
      return heldOutcome(whole, session.cwd);
    }
    held.delete(who);
    return bashTool(host, call, { ...args, command: whole, is_input: false });
  }
  if (args.is_input === true && pending !== undefined && args.command === "C-c") {
    held.delete(who);
    return { text: "The held, incomplete command was dropped; nothing had run.", structured: { status: "interrupted", cwd: session.cwd } };
  }
  if (args.is_input === true && pending === undefined && !session.busy && held.size > 0) {
    // Another caller's command is held (nothing runs): its lines are that caller's to send.
    return errorOutcome(
      "Another caller's command is held, waiting for the rest of its lines (an open heredoc), and no command runs: input " +
        "goes only to your own command, so nothing was sent. Run a command of your own without is_input.",
      { cwd: session.cwd, reason: "not-owner", input: true },
    );
  }

  if (args.is_input !== true && pending !== undefined) {
    held.delete(who);
    notes.push("Note: the held, incomplete command was dropped (nothing of it had run).");
  }

  if (args.is_input === true) {
    if (args.run_in_background === true) notes.push("Note: run_in_background was ignored: is_input sends input to the running command.");
    // Text typed into a shell (a nested bash, sh, zsh … reading its next line, also under another program such as
    // python's pty.spawn) is a command: whole lines only, checked and audited as one.
    const reader = session.foreground();
    const shell = session.busy ? session.readerShell() : undefined;
    let gated: Gate | null = null;
    if (shell !== undefined) {
      const refusal = shellInputRefusal(shell, args.command, args.enter !== false);
      if (refusal !== null) return errorOutcome(refusal, { cwd: session.cwd, refused: "shell-input", readBy: shell, input: true });
    }
    if (shell !== undefined && keyToBytes(args.command) === null && args.command.trim() !== "") {      const wire = commandText(args.command);
      if (!wire.ok) return errorOutcome(wire.error, { cwd: session.cwd, refused: "control", input: true });
      const g = await gate(host, call, wire.text, session.cwd, false, t0);
      if ("outcome" in g) return g.outcome;
      gated = g;
      if (g.approvalLine !== null) notes.unshift(g.approvalLine);
    }
    // Input that reaches a running command is a security entry (with its verdict); input refused because nothing runs
    // is never sent and leaves none (a caller could otherwise fill the log with it at will).
    if (session.busy) {
      call.record("input", {
        input: args.command,
        cwd: session.cwd,
        ...(shell !== undefined ? { readBy: shell } : reader !== undefined ? { readBy: reader } : {}),
        verdict: gated?.verdict ?? { decision: "allow", rule: "is-input", reason: "Input typed to the running program (not a shell), which the guard does not judge." },
      });
    }
    const r = await runWithCancel(host, call, () => session.input(args.command, { timeoutSec: timeout.sec, onOutput, enter: args.enter !== false }));
    const out = formatShellResult(r, [], notes);
    out.structured.input = true;
    if (gated !== null) {
      out.structured.verdict = gated.verdict;
      out.structured.readBy = shell;
      if (gated.approval) out.structured.approval = gated.approval;
    }
    return out;
  }

  if (args.command.trim() === "") {
    const spec = toolSpec("bash")!;
    return errorOutcome(
      'Invalid arguments for bash: Parameter "command" is empty: give the command to run, or set is_input=true to wait ' +
        `for a running command.\n${exampleCall(spec)}`,
      { cwd: session.cwd },
    );
  }

  // A shell without heredocs (jsh) reads one line at a time: the lines of a multi-line command would run as
  // separate commands the session cannot follow. Refuse before anything runs.
  if (!host.runtime.capabilities.heredocs && /\r|\n/.test(args.command.trim())) {
    return errorOutcome(
      "This runtime's shell runs one line at a time, so a multi-line command (a script, a heredoc) cannot run here. " +
        "Write the script with write_file (e.g. /tmp/run.js) and run it with one line: node /tmp/run.js.",
      { cwd: session.cwd },
    );
  }

  // What is checked is what runs: the guard sees the exact text the shell will receive, and the session sends it.
  const wire = commandText(args.command);
  if (!wire.ok) {
    return errorOutcome(wire.error, { cwd: session.cwd, refused: "control", position: wire.position });
  }
  const command = wire.text;
  const cwd = session.cwd;
  const background = args.run_in_background === true;
  if (!background && !session.busy && needsMoreInput(command)) {
    held.set(who, command);
    return heldOutcome(command, cwd);
  }
  const gated = await gate(host, call, command, cwd, background, t0);
  if ("outcome" in gated) return gated.outcome;
  const { verdict, approvalLine, approval } = gated;

  const lead = approvalLine !== null ? [approvalLine, ...notes] : notes;
  if (background) {
    try {
      const job = await session.startJob(command);
      const text = [
        ...lead,
        `Started background job ${job.id}: ${clip(command, MESSAGES.commandChars)} (cwd ${job.cwd}).`,
        `Read its output with job_output {"id": "${job.id}", "wait": 5}; stop it with job_kill {"id": "${job.id}"}.`,
      ].join("\n");
      return {
        text,
        structured: { status: "running", jobId: job.id, cwd: job.cwd, verdict, durationMs: Math.round(performance.now() - t0), ...(approval ? { approval } : {}) },
      };
    } catch (err) {
      const message =
        err instanceof JobError
          ? `${err.message}${err.code === "limit" ? ' Stop one with job_kill {"id": "…"}.' : ""}`
          : `The background job could not start: ${(err as Error).message}`;
      return errorOutcome([...lead, message].join("\n"), { cwd, verdict, ...(approval ? { approval } : {}) });
    }
  }

  const r = await runWithCancel(host, call, () => session.run(command, { timeoutSec: timeout.sec, onOutput }));
  const out = formatShellResult(r, r.error === undefined ? capabilityHints(command, host.runtime.capabilities, r) : [], lead);
  out.structured.verdict = verdict;
  if (approval) out.structured.approval = approval;
  return out;
}
