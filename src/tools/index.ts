// The tools layer: tolerant arguments → the tool → an MCP CallToolResult. Never throws for bad input.

import { INPUT, MESSAGES } from "../limits.ts";
import { parseToolArguments, type ParsedArguments } from "./args.ts";
import { bashTool } from "./bash.ts";
import { type CallInfo, type CallToolResult, type ToolContext, type ToolOutcome } from "./context.ts";
import { clip } from "../lib/text.ts";
import { editFileTool, listDirTool, readFileTool, writeFileTool } from "./files.ts";
import { jobKillTool, jobOutputTool } from "./jobs.ts";
import { TOOL_NAMES, toolSpec, type ToolArgs, type ToolName } from "./specs.ts";

export { listTools, toolSpecs, toolSpec, TOOL_NAMES, type ToolArgs, type ToolInfo, type ToolName, type ToolSpec } from "./specs.ts";
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
export type { CallInfo, CallToolResult, ToolContext, ToolOutcome, ToolStatus } from "./context.ts";

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

/** What runs each tool, typed by its zod spec's output (tools/specs.ts): a tool added to the specs must be added here. */
type ToolRegistry = { [N in ToolName]: (host: ToolContext, call: CallInfo, args: ToolArgs<N>) => Promise<ToolOutcome> };

const REGISTRY: ToolRegistry = {
  bash: bashTool,
  read_file: (host, _call, args) => readFileTool(host, args),
  write_file: (host, call, args) => writeFileTool(host, call, args),
  edit_file: (host, call, args) => editFileTool(host, call, args),
  list_dir: (host, _call, args) => listDirTool(host, args),
  job_output: (host, _call, args) => jobOutputTool(host, args),
  job_kill: (host, _call, args) => jobKillTool(host, args),
};

/**
 * Runs tool `name` on arguments that parseToolArguments has checked against the same tool's spec (every parameter
 * of the declared type, the required ones present, unknown ones dropped): the one place they become ToolArgs<N>.
 */
function runChecked<N extends ToolName>(name: N, host: ToolContext, call: CallInfo, checked: Record<string, unknown>): Promise<ToolOutcome> {
  const run: ToolRegistry[N] = REGISTRY[name];
  return run(host, call, checked as ToolArgs<N>);
}

/** Runs one tool call. `host` is the sandbox's side; `call` this call's (signal, streaming, audit). */
export async function runTool(host: ToolContext, name: string, rawArgs: unknown, call: CallInfo): Promise<CallToolResult> {
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
  let outcome: ToolOutcome;
  try {
    outcome = await runChecked(spec.name, host, call, parsed.args);
  } catch (err) {
    outcome = {
      text: `${spec.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
      isError: true,
      structured: { status: "error" },
    };
  }
  return toResult(outcome, parsed);
}
