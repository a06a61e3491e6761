// The bash tool: guard verdict (its layer 0 is the literal check; all of it is skipped for is_input, which types into a
// program that already runs) → deny: not run, the blocked error object and a hint; ask: a person's approval
// (command-gate.ts); allow: run in the persistent shell, or start a background job; the result in words for the agent
// (bash-result.ts). A command bash would read more lines for is held (held-commands.ts). Cancelling the call
// (AbortSignal) interrupts the command.

import { needsMoreInput } from "../guard/index.ts";
import { MESSAGES, SHELL } from "../limits.ts";
import { JobError } from "../shell/jobs.ts";
import type { ShellResult } from "../shell/session.ts";
import { commandText } from "../shell/wire.ts";
import { keyToBytes } from "../shell/keys.ts";
import { exampleCall } from "./args.ts";
import { capabilityHints, formatShellResult } from "./bash-result.ts";
import { type Gate, gate } from "./command-gate.ts";
import { type CallInfo, errorOutcome, type ToolContext, type ToolOutcome } from "./context.ts";
import { heldKey, heldOf, heldOutcome } from "./held-commands.ts";
import { clip } from "../lib/text.ts";
import { toolSpec, type ToolArgs } from "./specs.ts";

/** bash's arguments, from its zod spec (with is_input, enter false sends the text without Enter). */
export type BashArgs = ToolArgs<"bash">;

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
