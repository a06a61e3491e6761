// The tools layer: tolerant arguments → the tool → an MCP CallToolResult. Never throws for bad input.

import { INPUT, MESSAGES } from "../limits.ts";
import { parseToolArguments, type ParsedArguments } from "./args.ts";
import { bashTool, type BashArgs } from "./bash.ts";
import { type CallInfo, type CallToolResult, type ToolHost, type ToolOutcome } from "./context.ts";
import { clip } from "../lib/text.ts";
import { editFileTool, listDirTool, readFileTool, writeFileTool } from "./files.ts";
import { jobKillTool, jobOutputTool } from "./jobs.ts";
import { TOOL_NAMES, toolSpec, type ToolName } from "./specs.ts";

export { listTools, toolSpecs, toolSpec, TOOL_NAMES, type ToolInfo, type ToolName, type ToolSpec } from "./specs.ts";
export { parseToolArguments, joinCommandWords, shellQuote, type ParsedArguments, type ArgumentsReport } from "./args.ts";
export {
  Approvals,
  normalizeAnswer,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalEvent,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Approver,
  type ApproverFunction,
  type HostApprover,
} from "./approvals.ts";
export type { CallInfo, CallToolResult, ToolHost, ToolOutcome, ToolStatus } from "./context.ts";

function toResult(outcome: ToolOutcome, parsed: ParsedArguments | null): CallToolResult {
  const lines = [outcome.text];
  const structured: Record<string, unknown> = { ...outcome.structured };
  if (parsed !== null) {
    for (const note of parsed.notes) lines.push(`Note: ${note}`);
    const renamed = Object.entries(parsed.renamed);
    if (renamed.length > 0) {
      lines.push(`Note: read ${renamed.map(([from, to]) => `${from} as ${to}`).join(", ")}.`);
      structured.renamedParameters = parsed.renamed;
    }
    if (parsed.ignored.length > 0) {
      lines.push(`Note: ignored unknown parameter${parsed.ignored.length > 1 ? "s" : ""} ${parsed.ignored.join(", ")}.`);
      structured.ignoredParameters = parsed.ignored;
    }
    if (parsed.repaired !== undefined) {
      lines.push(`Note: ${parsed.repaired.note}`);
      structured.repairedArguments = parsed.repaired.object;
    }
  }
  const result: CallToolResult = { content: [{ type: "text", text: lines.join("\n") }], structuredContent: structured };
  if (outcome.isError === true) result.isError = true;
  return result;
}

/** Past a size bound: nothing ran; the text says what to do instead. */
function tooLarge(problem: string, parameter: string | null): CallToolResult {
  const instead =
    parameter === "command"
      ? "Nothing was run. Write the script to a file with write_file (in parts if it is large) and run the file, e.g. bash {\"command\": \"bash script.sh\"}."
      : "Nothing was done. Send large content in parts: write_file the first part, then append the rest with bash (cat >> file) or edit_file.";
  return toResult({ text: `${problem}. ${instead}`, isError: true, structured: { status: "error", parameter, error: "too-large" } }, null);
}

/** Runs one tool call. `host` is the sandbox's side; `call` this call's (signal, streaming, audit). */
export async function runTool(host: ToolHost, name: string, rawArgs: unknown, call: CallInfo): Promise<CallToolResult> {
  const spec = typeof name === "string" ? toolSpec(name, host.workspace) : undefined;
  if (spec === undefined) {
    const shown = typeof name === "string" ? JSON.stringify(clip(name, MESSAGES.nameChars)) : String(name);
    return toResult(
      {
        text: `Unknown tool ${shown}. The tools are: ${TOOL_NAMES.join(", ")}.`,
        isError: true,
        structured: { status: "error", tools: [...TOOL_NAMES] },
      },
      null,
    );
  }
  if (typeof rawArgs === "string" && rawArgs.length > INPUT.maxArgumentChars) {
    return tooLarge(`The arguments are ${rawArgs.length.toLocaleString("en-US")} characters; at most ${INPUT.maxArgumentChars.toLocaleString("en-US")} are taken`, null);
  }
  const parsed = parseToolArguments(spec, rawArgs);
  if (parsed.ok) {
    for (const [key, value] of Object.entries(parsed.args)) {
      const max = spec.name === "bash" && key === "command" ? INPUT.maxCommandChars : INPUT.maxArgumentChars;
      if (typeof value === "string" && value.length > max) {
        const what = key === "command" ? "command" : `"${key}"`;
        return tooLarge(`The ${what} is ${value.length.toLocaleString("en-US")} characters; at most ${max.toLocaleString("en-US")} are taken`, key);
      }
    }
  }
  if (!parsed.ok) {
    return toResult({ text: parsed.message, isError: true, structured: { status: "error", parameter: parsed.parameter } }, { ...parsed, notes: [] });
  }
  const a = parsed.args;
  let outcome: ToolOutcome;
  try {
    switch (spec.name as ToolName) {
      case "bash":
        outcome = await bashTool(host, call, a as unknown as BashArgs);
        break;
      case "read_file":
        outcome = await readFileTool(host, a as { path: string; offset?: number; limit?: number });
        break;
      case "write_file":
        outcome = await writeFileTool(host, a as { path: string; content: string });
        break;
      case "edit_file":
        outcome = await editFileTool(host, a as { path: string; old_str: string; new_str: string; replace_all?: boolean });
        break;
      case "list_dir":
        outcome = await listDirTool(host, a as { path?: string; depth?: number });
        break;
      case "job_output":
        outcome = await jobOutputTool(host, a as { id: string; wait?: number });
        break;
      case "job_kill":
        outcome = await jobKillTool(host, a as { id: string });
        break;
    }
  } catch (err) {
    outcome = {
      text: `${spec.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
      isError: true,
      structured: { status: "error" },
    };
  }
  return toResult(outcome, parsed);
}
