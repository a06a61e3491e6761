// The facts a shell result states beyond its output, in words: a fresh shell, a kill, typeahead dropped, a command that
// ended unobserved, and why a call was refused. They name what happened, never a tool's parameters: advice on what
// to call next is the bash tool's (src/tools/bash.ts).

import type { RuntimeKind } from "../runtime/types.ts";
import type { Replacement } from "./process.ts";
import type { ShellResult } from "./types.ts";
import { head, secs } from "./util.ts";

export const REFUSED = {
  closed: "The shell session is closed.",
  noCommand: "No command given, and no command is running to wait for.",
  person:
    "A command typed by the person at the terminal is still running, so this command was NOT run. Try again when it has finished.",
  restarted: "The shell session was closed or restarted before the command could run.",
  shellEnded: "The shell ended before the command could run; call again to start a fresh one.",
  noInputTarget: "No command is running, so there is nothing to send input to (the input was not sent).",
  inputTaken: "Another call is already waiting on the running command; the input was not sent.",
  nothingToInterrupt: "No command is running, so there is nothing to interrupt.",
} as const;

export const NOTICE = {
  inputTooLate: "The command had already finished, so the input was not sent.",
  alreadyFinished: "The command had already finished.",
  restarted: "The shell was restarted: a fresh shell in the workspace; background jobs were stopped.",
  closed: "The shell session was closed.",
} as const;

export function shellNotStarted(message: string): string {
  return `The shell could not be started: ${message}`;
}

export function busy(command: string, startedAt: number, at: number): string {
  const ago = Math.round((at - startedAt) / 1000);
  return `A command is still running (started ${ago}s ago: ${JSON.stringify(head(command))}), so this command was NOT run.`;
}

export function savedCommand(chars: number, path: string): string {
  return `The command (${chars} characters) was saved to ${path} and run with \`. ${path}\`.`;
}

/** What a respawn carries over on this runtime. */
export function restoredWhat(kind: RuntimeKind): string {
  return kind === "node"
    ? "the working directory, exported and plain variables, functions and aliases"
    : "the working directory and exported variables (plain variables, functions and aliases are gone)";
}

export function replacedShell(r: Replacement, cwd: string, kind: RuntimeKind): string {
  return (
    `The previous shell had ended${r.exitCode !== null ? ` (exit code ${r.exitCode})` : ""}; this command runs in a ` +
    `fresh shell in ${cwd}${r.restored ? ` with ${restoredWhat(kind)} restored` : ""}.` +
    (kind === "node" && r.restored ? "" : " Shell variables, functions and aliases that were not exported are gone.")
  );
}

export function killedAndRespawned(
  timedOut: number | null,
  graceMs: number,
  outcome: { restored: boolean; cwd: string; kind: RuntimeKind } | { error: string },
): string {
  const restart =
    "error" in outcome
      ? `the shell was killed, and a fresh one could not be started (${outcome.error}); the next command tries again`
      : `the shell was killed (with anything it had started) and a fresh shell started in ${outcome.cwd}` +
        `${outcome.restored ? ` with ${restoredWhat(outcome.kind)} restored` : ""}`;
  const what = timedOut !== null ? `The command timed out after ${timedOut}s and` : "The command";
  return `${what} did not stop within ${secs(graceMs)} of C-c: ${restart}.`;
}

/** A typed command that never reached the shell: why, and that it did not run. */
export function lost(why: string): string {
  return `The command was typed, but ${why}; it was NOT run. Run it again.`;
}

type Outcome = { restored: boolean; cwd: string; kind: RuntimeKind } | { error: string };

/**
 * A process had taken the shell's terminal (a group that took it with tcsetpgrp, named; or one that read what was typed
 * to the shell): the shell and its session were replaced, with a fresh terminal.
 */
export function terminalTaken(holder: string | null, outcome: Outcome): string {
  const how =
    "error" in outcome
      ? `the shell was killed, and a fresh one could not be started (${outcome.error}); the next command tries again`
      : `the shell was replaced (with everything it had started, and its terminal) by a fresh shell in ${outcome.cwd}` +
        `${outcome.restored ? ` with ${restoredWhat(outcome.kind)} restored` : ""}`;
  const who = holder !== null ? `A process started in the shell (${holder}) had taken the terminal` : "A process read the shell's terminal input";
  return `${who}: ${how}.`;
}

export function timedOut(sec: number, code: number | null): string {
  return `The command timed out after ${sec}s and was stopped with C-c${code !== null ? ` (exit code ${code})` : ""}.`;
}

export function discarded(count: number): string {
  return `${count} typed-ahead character${count === 1 ? "" : "s"} the command did not read ${count === 1 ? "was" : "were"} discarded, not run.`;
}

export function shellExited(code: number, cwd: string): string {
  return `The shell exited (exit code ${code}). The next command starts a fresh shell in ${cwd}.`;
}

/** A command that ended after the last call returned, told to the next command's call. */
export function endedUnobserved(r: ShellResult): string {
  const tail = r.output.length > 2_000 ? `…${r.output.slice(-2_000)}` : r.output;
  let text =
    `The previous command ended (status ${r.status}${r.exitCode !== null ? `, exit code ${r.exitCode}` : ""}) ` +
    "after the last call returned.";
  if (r.notice) text += ` ${r.notice}`;
  if (tail.trim() !== "") text += ` Its output since then:\n${tail}${tail.endsWith("\n") ? "" : "\n"}`;
  if (r.fullOutputPath) text += ` (full output in ${r.fullOutputPath})`;
  return text;
}
