// listTools(): JSON Schema that OpenAI, Anthropic and MCP clients accept as is, with numbers from the limits module.

import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { SHELL, TOOLS } from "../../src/limits.ts";
import { KEY_NAMES } from "../../src/shell/keys.ts";
import { listTools, SCHEMA_KEYWORDS, TOOL_NAMES } from "../../src/tools/specs.ts";

const tools = listTools("/home/project");

function keywords(schema: unknown, out = new Set<string>()): Set<string> {
  if (typeof schema !== "object" || schema === null) return out;
  for (const [k, v] of Object.entries(schema)) {
    out.add(k);
    if (k === "properties") for (const p of Object.values(v as object)) keywords(p, out);
  }
  return out;
}

describe("listTools", () => {
  it("lists the seven fixed tools with their fixed parameters", () => {
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const params = Object.fromEntries(tools.map((t) => [t.name, { all: Object.keys(t.inputSchema.properties), required: t.inputSchema.required ?? [] }]));
    expect(params).toEqual({
      bash: { all: ["command", "timeout", "is_input", "enter", "run_in_background"], required: ["command"] },
      read_file: { all: ["path", "offset", "limit"], required: ["path"] },
      write_file: { all: ["path", "content"], required: ["path", "content"] },
      edit_file: { all: ["path", "old_str", "new_str", "replace_all"], required: ["path", "old_str", "new_str"] },
      list_dir: { all: ["path", "depth"], required: [] },
      job_output: { all: ["id", "wait"], required: ["id"] },
      job_kill: { all: ["id"], required: ["id"] },
    });
  });

  it("compiles every input schema with ajv (strict mode) and validates a correct example", () => {
    const ajv = new Ajv({ strict: true });
    for (const t of tools) {
      const validate = ajv.compile(t.inputSchema);
      expect(validate({ command: "ls", path: "a", content: "", old_str: "a", new_str: "b", id: "job-1" }), t.name).toBe(true);
    }
    const bash = ajv.compile(tools[0]!.inputSchema);
    expect(bash({ timeout: 5 })).toBe(false); // command is required
    expect(bash({ command: 1 })).toBe(false);
  });

  it("uses only type, properties, required and description: no $schema, no additionalProperties", () => {
    for (const t of tools) {
      const used = keywords(t.inputSchema);
      for (const k of used) expect(SCHEMA_KEYWORDS as readonly string[], `${t.name}: ${k}`).toContain(k);
      expect(t.inputSchema.type).toBe("object");
      expect(JSON.stringify(t.inputSchema)).not.toMatch(/\$schema|additionalProperties|\$ref|anyOf|oneOf/);
    }
  });

  it("accepts unknown parameters at the schema level (they are ignored, not refused)", () => {
    const ajv = new Ajv();
    expect(ajv.compile(tools[0]!.inputSchema)({ command: "ls", cwd: "/tmp" })).toBe(true);
  });

  it("descriptions carry the numbers of the limits module and the named keys", () => {
    const bash = tools.find((t) => t.name === "bash")!;
    const text = bash.description + JSON.stringify(bash.inputSchema);
    expect(text).toContain(`${SHELL.defaultTimeoutSec}`);
    expect(text).toContain(`at most ${SHELL.maxTimeoutSec}`);
    expect(text).toContain(SHELL.maxOutputChars.toLocaleString("en-US"));
    expect(text).toContain(`at most ${SHELL.maxJobs} jobs`);
    expect(text).toContain("/home/project");
    for (const key of KEY_NAMES.filter((k) => !k.startsWith("C-"))) expect(text).toContain(key);
    expect(text).toContain("C-a…C-z");
    const read = tools.find((t) => t.name === "read_file")!;
    expect(read.description).toContain(TOOLS.readDefaultLines.toLocaleString("en-US"));
    expect(read.description).toContain(TOOLS.readMaxChars.toLocaleString("en-US"));
    expect(tools.find((t) => t.name === "job_output")!.description).toContain(`at most ${TOOLS.jobMaxWaitSec}`);
  });

  it("keeps descriptions short", () => {
    for (const t of tools) expect(t.description.length, t.name).toBeLessThan(1_000);
  });
});
