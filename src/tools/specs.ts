// The seven tools' names, parameters and descriptions (fixed in shared/ARCHITECTURE.md). Schemas are zod; listTools()
// turns them into plain JSON Schema that OpenAI, Anthropic and MCP clients accept as is: an object with properties,
// required and descriptions, nothing else (no $schema, no additionalProperties: unknown parameters are ignored and
// reported, never refused). Every number in a description comes from src/limits.ts.

import { z } from "zod";
import { SHELL, TOOLS, WORKSPACE } from "../limits.ts";
import { KEY_NAMES } from "../shell/keys.ts";

export const TOOL_NAMES = ["bash", "read_file", "write_file", "edit_file", "list_dir", "job_output", "job_kill"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export type ParamType = "string" | "number" | "boolean";

export interface ParamSpec {
  name: string;
  type: ParamType;
  required: boolean;
}

export interface ToolSpec {
  name: ToolName;
  description: string;
  schema: z.ZodObject;
  params: ParamSpec[];
  /** A correct call, shown when an argument is missing or hopeless. */
  example: Record<string, unknown>;
  /** Names models often use for a parameter (only taken when the real one is absent). */
  aliases: Record<string, string>;
}

/** What tools/list shows for a tool. */
export interface ToolInfo {
  name: ToolName;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

function kb(chars: number): string {
  return chars.toLocaleString("en-US");
}

/** `C-a…C-z, Up, Down, …` from KEY_NAMES. */
export function keyNamesText(): string {
  const ctrl = KEY_NAMES.filter((k) => /^C-[a-z]$/.test(k));
  const other = KEY_NAMES.filter((k) => !/^C-[a-z]$/.test(k));
  const range = ctrl.length > 1 ? `${ctrl[0]}…${ctrl[ctrl.length - 1]}` : ctrl.join("");
  return [range, ...other].filter(Boolean).join(", ");
}

/** Each tool's parameters as a zod object (descriptions name the workspace); ToolArgs is derived from these. */
function toolSchemas(workspace: string) {
  const pathHint = `Relative to the workspace (${workspace}) or absolute inside it.`;
  const bash = z.object({
    command: z
      .string()
      .describe(
        "The shell command. With is_input=true: text to type into the running program (Enter is added), or one " +
          `named key: ${keyNamesText()}; an empty command waits for more output.`,
      ),
    timeout: z
      .number()
      .optional()
      .describe(`Seconds before the command is stopped with C-c. Default ${SHELL.defaultTimeoutSec}, at most ${SHELL.maxTimeoutSec}.`),
    is_input: z
      .boolean()
      .optional()
      .describe("Send command to the program that is still running (status running) instead of running a new command."),
    enter: z
      .boolean()
      .optional()
      .describe(
        "With is_input=true: false sends the text without the Enter that is otherwise added, for programs that read " +
          "single keys (read -n 1, less, y/n prompts). Default true.",
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe(`Start the command as a background job (servers, watchers) and return its id at once; at most ${SHELL.maxJobs} jobs.`),
  });
  const readFile = z.object({
    path: z.string().describe(`The file to read. ${pathHint}`),
    offset: z.number().optional().describe("First line to show, 1-based (default 1)."),
    limit: z.number().optional().describe(`Number of lines to show (default ${kb(TOOLS.readDefaultLines)}).`),
  });
  const writeFile = z.object({
    path: z.string().describe(`The file to write; missing folders are created. ${pathHint}`),
    content: z.string().describe("The whole new content, written exactly as given (no escaping needed beyond JSON)."),
  });
  const editFile = z.object({
    path: z.string().describe(`The file to edit. ${pathHint}`),
    old_str: z.string().describe("Exact text to replace, including whitespace; must occur exactly once unless replace_all."),
    new_str: z.string().describe("The text to put in its place."),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_str (default false)."),
  });
  const listDir = z.object({
    path: z.string().optional().describe(`The folder to list (default: the workspace). ${pathHint}`),
    depth: z.number().optional().describe(`Levels of subfolders to show (default ${TOOLS.listDefaultDepth}, at most ${TOOLS.listMaxDepth}).`),
  });
  const jobOutput = z.object({
    id: z.string().describe("The job id that bash with run_in_background returned, e.g. job-1."),
    wait: z
      .number()
      .optional()
      .describe(`Seconds to wait for new output or the job's end when there is none yet (default 0, at most ${TOOLS.jobMaxWaitSec}).`),
  });
  const jobKill = z.object({
    id: z.string().describe("The job id to stop, e.g. job-1."),
  });
  return {
    bash,
    read_file: readFile,
    write_file: writeFile,
    edit_file: editFile,
    list_dir: listDir,
    job_output: jobOutput,
    job_kill: jobKill,
  } satisfies Record<ToolName, z.ZodObject>;
}

type ToolSchemas = ReturnType<typeof toolSchemas>;

/** The arguments a tool receives once tools/args.ts has checked them against its spec: the zod schema's output. */
export type ToolArgs<N extends ToolName> = z.output<ToolSchemas[N]>;

function specs(workspace: string): ToolSpec[] {
  const schema = toolSchemas(workspace);
  const list: Array<Omit<ToolSpec, "params">> = [
    {
      name: "bash",
      description:
        "Run a command in a persistent bash shell: the working directory, variables and functions persist between " +
        `calls. It starts in ${workspace}. Returns the output (stdout and stderr together), then the exit code and ` +
        `working directory. Output over ${kb(SHELL.maxOutputChars)} characters keeps its start and end and saves the ` +
        `whole to a file (the path is given). Timeout ${SHELL.defaultTimeoutSec} s by default, at most ` +
        `${SHELL.maxTimeoutSec} s. After ${SHELL.softTimeoutSec} s without new output, or when the program waits ` +
        "for input, the call returns with status running and the command keeps running: then call again with " +
        'is_input=true and an empty command to wait, text to answer, or "C-c" to stop it. Use run_in_background for ' +
        "servers and watchers, then job_output and job_kill. Write files with write_file rather than heredocs. " +
        "Some commands wait for a person's approval; dangerous ones are refused with a hint on what to do instead.",
      schema: schema.bash,
      example: { command: "ls -la src", timeout: 60 },
      aliases: { cmd: "command", script: "command", input: "command", background: "run_in_background" },
    },
    {
      name: "read_file",
      description:
        `Read a text file with numbered lines (like cat -n). Shows up to ${kb(TOOLS.readDefaultLines)} lines from ` +
        `offset; lines longer than ${kb(TOOLS.readMaxLineChars)} characters are cut, and at most ` +
        `${kb(TOOLS.readMaxChars)} characters come back per call (it says how to read on). Binary files and files ` +
        `over ${kb(TOOLS.readMaxFileBytes / 1024 / 1024)} MB are refused. Works in the workspace and the temp folder (/tmp, or $TMPDIR where the node runtime shares the host's /tmp).`,
      schema: schema.read_file,
      example: { path: "src/index.ts", offset: 1, limit: 200 },
      aliases: { file_path: "path", filePath: "path", file: "path", filename: "path", start_line: "offset", lines: "limit" },
    },
    {
      name: "write_file",
      description:
        "Create or overwrite a file with the given content, byte for byte, creating missing folders. This is the way " +
        "to put code into the sandbox: no heredocs, no shell quoting. Only inside the workspace and the temp folder (/tmp, or $TMPDIR where the node runtime shares the host's /tmp).",
      schema: schema.write_file,
      example: { path: "src/hello.py", content: 'print("hello")\n' },
      aliases: { file_path: "path", filePath: "path", file: "path", filename: "path", text: "content", contents: "content", data: "content" },
    },
    {
      name: "edit_file",
      description:
        "Replace old_str with new_str in a file. old_str must match exactly (whitespace included) and occur exactly " +
        "once, unless replace_all is true; otherwise nothing changes and the line numbers of every match are listed. " +
        `Returns the edited lines with ${TOOLS.editSnippetLines} lines of context. Only inside the workspace and the temp folder (/tmp, or $TMPDIR where the node runtime shares the host's /tmp).`,
      schema: schema.edit_file,
      example: { path: "src/app.js", old_str: "const port = 3000;", new_str: "const port = 8080;" },
      aliases: {
        file_path: "path",
        filePath: "path",
        file: "path",
        old_string: "old_str",
        new_string: "new_str",
        old: "old_str",
        new: "new_str",
        search: "old_str",
        replace: "new_str",
      },
    },
    {
      name: "list_dir",
      description:
        `List a folder as a tree with file sizes, folders marked with a trailing /, to the given depth (default ` +
        `${TOOLS.listDefaultDepth}). node_modules and .git are shown by name only. At most ` +
        `${kb(TOOLS.listMaxEntries)} entries. Works in the workspace and the temp folder (/tmp, or $TMPDIR where the node runtime shares the host's /tmp).`,
      schema: schema.list_dir,
      example: { path: "src", depth: 2 },
      aliases: { dir: "path", directory: "path", folder: "path", file_path: "path", max_depth: "depth" },
    },
    {
      name: "job_output",
      description:
        "Get a background job's new output since the last read, its status and, once it ended, its exit code. " +
        `wait (seconds, at most ${TOOLS.jobMaxWaitSec}) waits for output when there is none yet.`,
      schema: schema.job_output,
      example: { id: "job-1", wait: 5 },
      aliases: { job_id: "id", jobId: "id", job: "id", timeout: "wait" },
    },
    {
      name: "job_kill",
      description: "Stop a background job (and everything it started).",
      schema: schema.job_kill,
      example: { id: "job-1" },
      aliases: { job_id: "id", jobId: "id", job: "id" },
    },
  ];
  return list.map((s) => ({ ...s, params: paramsOf(s.schema) }));
}

/** The parameters of a z.object of plain strings, numbers and booleans (optional or not). */
function paramsOf(schema: z.ZodObject): ParamSpec[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    let t = field as z.ZodType;
    let required = true;
    while (t instanceof z.ZodOptional) {
      required = false;
      t = t.unwrap() as z.ZodType;
    }
    const type: ParamType = t instanceof z.ZodNumber ? "number" : t instanceof z.ZodBoolean ? "boolean" : "string";
    return { name, type, required };
  });
}

const cache = new Map<string, ToolSpec[]>();

/** The tool specs for a sandbox whose workspace is `workspace`. */
export function toolSpecs(workspace: string = WORKSPACE): ToolSpec[] {
  let list = cache.get(workspace);
  if (list === undefined) {
    list = specs(workspace);
    cache.set(workspace, list);
  }
  return list;
}

export function toolSpec(name: string, workspace: string = WORKSPACE): ToolSpec | undefined {
  return toolSpecs(workspace).find((s) => s.name === name);
}

/** Only these keywords appear in an input schema: the subset every tool-calling API accepts. */
export const SCHEMA_KEYWORDS = ["type", "properties", "required", "description"] as const;

function plainSchema(schema: z.ZodObject): ToolInfo["inputSchema"] {
  // io "input": what a caller sends; zod then leaves additionalProperties out (it would refuse unknown parameters).
  const json = z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
  const properties: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries((json.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    const clean: Record<string, unknown> = {};
    for (const key of ["type", "description"]) if (prop[key] !== undefined) clean[key] = prop[key];
    properties[name] = clean;
  }
  const required = Array.isArray(json.required) ? (json.required as string[]) : [];
  return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
}

/** Each workspace's list, computed once: the MCP server reads the names on every tools/call (zod's conversion to JSON
 *  Schema took a tenth of the page's time per `bash echo hi`). */
const listed = new Map<string, ToolInfo[]>();

/** tools/list: name, description and JSON Schema of every tool, in a fixed order. */
export function listTools(workspace: string = WORKSPACE): ToolInfo[] {
  let list = listed.get(workspace);
  if (list === undefined) {
    list = toolSpecs(workspace).map((s) => ({ name: s.name, description: s.description, inputSchema: deepFreeze(plainSchema(s.schema)) }));
    listed.set(workspace, list);
  }
  return list.map((t) => ({ ...t })); // the schemas are shared and frozen: no caller changes the next one's
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
