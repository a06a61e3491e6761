// Tolerant tool arguments (models break JSON around heredocs and invent parameter names): a model's tool call is taken for what it plainly means instead of being refused
// for its form. Pure: no I/O.
//
// - `arguments` may be an object or the raw JSON string a model produced (OpenAI's tool calls carry a string).
// - A broken string is repaired (args-repair.ts: jsonrepair, or a parser anchored on the tool's own parameter names).
//   The repair is always reported.
// - Unknown parameters are ignored and reported; a well-known other name (file_path, old_string, cmd, …) is taken for
//   the real one when the real one is absent, and reported.
// - `"60"` → 60, `"true"` → true, a command sent as an array of words is joined with shell quoting.
// - A missing or hopeless argument gives an error naming the parameter, what was wrong and a correct example.

import { MESSAGES } from "../limits.ts";
import { clip, shellQuote } from "../lib/text.ts";
import { type Decoded, decodeArguments } from "./args-repair.ts";
import type { ParamSpec, ParamType, ToolSpec } from "./specs.ts";
import { describe, isPlainObject } from "./values.ts";

export interface ArgumentsReport {
  /** Parameters the tool does not have, ignored. */
  ignored: string[];
  /** Other names taken for a parameter: { file_path: "path" }. */
  renamed: Record<string, string>;
  /** Set when the arguments were a broken JSON string: what they were read as, and a short note on the repair. */
  repaired?: { object: Record<string, unknown>; note: string };
  /** Short facts for the model about how an argument was read (a joined command array, …). */
  notes: string[];
}

export type ParsedArguments =
  | ({ ok: true; args: Record<string, unknown> } & ArgumentsReport)
  | ({
      ok: false;
      /** The parameter at fault, or null when the arguments as a whole were unusable. */
      parameter: string | null;
      problem: string;
      /** The whole message for the model: problem, then an example call. */
      message: string;
    } & ArgumentsReport);

// ------------------------------------------------------------------------------------------------ coercion

export { shellQuote };

const OPERATORS = new Set(["|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>", "|&"]);

/** An argv array as one command line: words quoted, lone shell operators kept as operators. */
export function joinCommandWords(words: string[]): string {
  if (words.length === 1) return words[0]!;
  return words.map((w) => (OPERATORS.has(w) ? w : shellQuote(w))).join(" ");
}

type Coerced = { ok: true; value: unknown; absent?: boolean; note?: string } | { ok: false; problem: string };

function coerce(tool: string, param: ParamSpec, v: unknown): Coerced {
  if (v === null || v === undefined) return { ok: true, value: undefined, absent: true };
  switch (param.type) {
    case "string":
      return coerceString(tool, param.name, v);
    case "number":
      return coerceNumber(param.name, v);
    case "boolean":
      return coerceBoolean(param.name, v);
  }
}

function coerceString(tool: string, name: string, v: unknown): Coerced {
  if (typeof v === "string") return { ok: true, value: v };
  if (typeof v === "number" || typeof v === "boolean") return { ok: true, value: String(v) };
  if (tool === "bash" && name === "command" && Array.isArray(v)) {
    if (v.length > 0 && v.every((w) => typeof w === "string" || typeof w === "number")) {
      const joined = joinCommandWords(v.map(String));
      return { ok: true, value: joined, note: v.length > 1 ? `The command array was joined into one command line: ${joined}` : undefined };
    }
    return { ok: false, problem: `must be a string with the shell command, not ${describe(v)}${v.length > 0 ? " of non-strings" : ""}` };
  }
  if (name === "content" && (Array.isArray(v) || isPlainObject(v))) {
    return {
      ok: true,
      value: JSON.stringify(v, null, 2) + "\n",
      note: `content was ${Array.isArray(v) ? "an array" : "an object"}, not a string; it was written as JSON text (2-space indent).`,
    };
  }
  return { ok: false, problem: `must be a string, not ${describe(v)}` };
}

function coerceNumber(name: string, v: unknown): Coerced {
  if (typeof v === "number") {
    return Number.isFinite(v) ? { ok: true, value: v } : { ok: false, problem: `must be a finite number, not ${String(v)}` };
  }
  if (typeof v === "string") {
    const t = v.trim();
    if (t === "") return { ok: true, value: undefined, absent: true };
    const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:s|sec|secs|seconds?)?$/i.exec(t);
    if (m) return { ok: true, value: Number(m[1]) };
  }
  return { ok: false, problem: `must be a number${name === "timeout" || name === "wait" ? " of seconds" : ""}, not ${describe(v)}` };
}

function coerceBoolean(_name: string, v: unknown): Coerced {
  if (typeof v === "boolean") return { ok: true, value: v };
  if (v === 1 || v === 0) return { ok: true, value: v === 1 };
  if (typeof v === "string") {
    const t = v.trim().toLowerCase();
    if (["true", "yes", "1", "on"].includes(t)) return { ok: true, value: true };
    if (["false", "no", "0", "off", ""].includes(t)) return { ok: true, value: false };
  }
  return { ok: false, problem: `must be true or false, not ${describe(v)}` };
}

// ------------------------------------------------------------------------------------------------ the whole call

const TYPE_WORDS: Record<ParamType, string> = { string: "a string", number: "a number", boolean: "true or false" };

/** `Example call: bash {"command": "ls -la src", "timeout": 60}` */
export function exampleCall(spec: ToolSpec): string {
  return `Example call: ${spec.name} ${JSON.stringify(spec.example)}`;
}

function failure(spec: ToolSpec, parameter: string | null, problem: string, report: ArgumentsReport): ParsedArguments {
  const subject = parameter === null ? "The arguments" : `Parameter "${parameter}"`;
  const params = spec.params.map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`).join(", ");
  const message = `Invalid arguments for ${spec.name}: ${subject} ${problem}.\n${spec.name} takes {${params}}.\n${exampleCall(spec)}`;
  return { ok: false, parameter, problem, message, ...report };
}

/** bash with is_input=true and no command only waits: the command may be left out then. */
function optionalHere(spec: ToolSpec, param: ParamSpec, given: Map<string, unknown>): boolean {
  if (spec.name !== "bash" || param.name !== "command") return false;
  const flag = coerceBoolean("is_input", given.get("is_input"));
  return flag.ok && flag.value === true;
}

/** Reads a tool call's arguments as the tool's parameters. Never throws. */
export function parseToolArguments(spec: ToolSpec, raw: unknown): ParsedArguments {
  const report: ArgumentsReport = { ignored: [], renamed: {}, notes: [] };
  const names = spec.params.map((p) => p.name);
  let decoded: Decoded;
  if (raw === undefined || raw === null) decoded = { ok: true, value: {} };
  else if (typeof raw === "string") decoded = decodeArguments(raw, [...names, ...Object.keys(spec.aliases)]);
  else decoded = { ok: true, value: raw };
  if (!decoded.ok) return failure(spec, null, `could not be read: ${decoded.problem}`, report);
  const input = decoded.value;
  if (!isPlainObject(input)) return failure(spec, null, `must be a JSON object, not ${describe(input)}`, report);
  if (decoded.repairNote !== undefined) report.repaired = { object: input, note: decoded.repairNote };

  const args: Record<string, unknown> = {};
  const given = new Map<string, unknown>();
  for (const [key, value] of Object.entries(input)) {
    if (names.includes(key)) given.set(key, value);
  }
  const givenAs = new Map<string, string>([...given.keys()].map((k) => [k, k]));
  for (const [key, value] of Object.entries(input)) {
    if (names.includes(key) || value === undefined) continue;
    // A different case or a well-known other name, taken only when the real parameter is absent.
    const target = names.find((n) => n.toLowerCase() === key.toLowerCase()) ?? spec.aliases[key];
    if (target !== undefined && !given.has(target)) {
      given.set(target, value);
      givenAs.set(target, key);
      report.renamed[key] = target;
    } else if (target !== undefined && given.get(target) !== null && value !== null && JSON.stringify(given.get(target)) !== JSON.stringify(value)) {
      // `{"cmd": "echo hi", "command": "touch x"}`: which one was meant cannot be told, so neither is taken.
      const first = givenAs.get(target)!;
      return failure(
        spec,
        target,
        `is given twice with different values, as "${first}" and as "${clip(key, MESSAGES.valueChars)}"; which was meant cannot be told, ` +
          `so nothing was run. Send it once, as "${target}"`,
        report,
      );
    } else {
      report.ignored.push(key);
    }
  }
  for (const param of spec.params) {
    const c = coerce(spec.name, param, given.get(param.name));
    if (!c.ok) return failure(spec, param.name, c.problem, report);
    if (c.absent === true || c.value === undefined) {
      if (param.required && optionalHere(spec, param, given)) {
        args[param.name] = "";
        continue;
      }
      if (param.required) {
        const was = given.has(param.name) ? ` (it was ${describe(given.get(param.name))})` : "";
        return failure(spec, param.name, `is missing${was}: ${TYPE_WORDS[param.type]} is required`, report);
      }
      continue;
    }
    args[param.name] = c.value;
    if (c.note !== undefined) report.notes.push(c.note);
  }
  return { ok: true, args, ...report };
}
