// A shell result in words for the agent: its output, a footer (exit code, cwd, how long), the shell's notices, and the
// advice on how to go on (the shell returns only facts; only the bash tool knows its parameter names), with hints for
// what this runtime's shell cannot do.

import type { Capabilities } from "../runtime/types.ts";
import type { ShellResult } from "../shell/session.ts";
import type { ToolOutcome, ToolStatus } from "./context.ts";
import { formatDuration } from "../lib/text.ts";

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
