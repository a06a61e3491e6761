// A tool call's arguments sent as a string (OpenAI's tool calls carry one), read as JSON, and repaired when a model
// broke it (around heredocs, mostly): jsonrepair first (single quotes, trailing commas, Python True/None, code fences,
// raw newlines), and, where jsonrepair cannot see where a string ends (unescaped quotes inside a heredoc or a file's
// content), a parser anchored on the tool's own parameter names. The repair is always reported, and refused where it
// would move text from one parameter into another (boundaries.ts) or cannot tell which of two values was meant.
// Pure: no I/O.

import { jsonrepair } from "jsonrepair";
import { INPUT, MESSAGES } from "../limits.ts";
import { duplicateKey, fieldBoundary, joinedStrings } from "./boundaries.ts";
import { clip } from "../lib/text.ts";
import { describe, isPlainObject } from "./values.ts";

export type Decoded = { ok: true; value: unknown; repairNote?: string } | { ok: false; problem: string };

const IDENT = /^[A-Za-z_][\w-]*$/;

// ------------------------------------------------------------------------------------------------ decoding strings

/** The text inside the first ``` fence, when the string holds one. */
function unfence(text: string): string {
  const m = /```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(text);
  return m ? m[1]! : text;
}

/** Backslash escapes a model meant (JSON's, plus \' inside single quotes); any other backslash stays as typed. */
function unescapeLoose(s: string): string {
  return s.replace(/\\(["'\\/bfnrt]|u[0-9a-fA-F]{4})/g, (_m, e: string) => {
    switch (e[0]) {
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u":
        return String.fromCharCode(parseInt(e.slice(1), 16));
      default:
        return e;
    }
  });
}

function looseValue(raw: string): { value: unknown } | null {
  const v = raw.trim().replace(/,\s*$/, "").trim();
  if (v === "") return null;
  const q = v[0];
  if (q === '"' || q === "'") {
    const inner = v.length >= 2 && v.endsWith(q) ? v.slice(1, -1) : v.slice(1);
    return { value: unescapeLoose(inner) };
  }
  if (joinedStrings(v) !== null) return null; // jsonrepair would join `"a" + "b"`
  try {
    const value = JSON.parse(jsonrepair(v)) as unknown;
    // An unquoted value is a number, true, false or null; jsonrepair reads lines of words as an array (NDJSON), which
    // would join another field's text into a command.
    if (typeof value === "object" && value !== null && v[0] !== "[" && v[0] !== "{") return null;
    return { value };
  } catch {
    return null;
  }
}

/**
 * Reads `{"key": value, …}` by its keys instead of its quotes: each value runs from its key to the next key (or the
 * closing brace), so quotes inside a value need no escaping. `keys` null: any identifier-like key anchors.
 */
function anchoredParse(text: string, keys: readonly string[] | null): Record<string, unknown> | null {
  const s = unfence(text).trim();
  if (!s.startsWith("{")) return null;
  const close = s.lastIndexOf("}");
  const body = s.slice(1, close > 0 ? close : s.length);
  const names = keys === null ? "[A-Za-z_][\\w-]*" : keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const re = new RegExp(`(^|,)\\s*(["']?)(${names})\\2\\s*:\\s*`, "g");
  const anchors: Array<{ start: number; valueStart: number; key: string }> = [];
  const seen = new Set<string>();
  for (const m of body.matchAll(re)) {
    const key = m[3]!;
    if (seen.has(key)) continue; // a second `"path":` is inside a value (a file's JSON content, say)
    seen.add(key);
    anchors.push({ start: m.index, valueStart: m.index + m[0].length, key });
  }
  if (anchors.length === 0 || body.slice(0, anchors[0]!.start).trim() !== "") return null;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < anchors.length; i++) {
    const a = anchors[i]!;
    const end = i + 1 < anchors.length ? anchors[i + 1]!.start : body.length;
    const v = looseValue(body.slice(a.valueStart, end));
    if (v === null) return null;
    out[a.key] = v.value;
  }
  return out;
}

/** How many string values have unbalanced brackets: a sign that a value was cut in the wrong place. */
function imbalance(obj: Record<string, unknown>): number {
  let bad = 0;
  for (const v of Object.values(obj)) {
    if (typeof v !== "string") continue;
    const count = (c: string): number => v.split(c).length - 1;
    if (count("{") !== count("}") || count("[") !== count("]") || count("(") !== count(")")) bad++;
  }
  return bad;
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** Short words on what was broken, for the repair note. */
function breakages(text: string, parseError: string): string[] {
  const found: string[] = [];
  if (/```/.test(text)) found.push("a code fence around the JSON");
  if (/control character/i.test(parseError)) found.push("raw line breaks or tabs inside a string");
  if (/(^|[{,])\s*'[^'\n]*'\s*:/.test(text)) found.push("single quotes instead of double quotes");
  if (/,\s*[}\]]\s*(```\s*)?$/.test(text.trim()) || /,\s*}/.test(text)) found.push("a trailing comma");
  if (/[:[,]\s*(True|False|None)\s*[,}\]]/.test(text)) found.push("Python True/False/None");
  return found;
}

/**
 * A repaired value (or key) that holds the end of one string and the start of another key (`hi", "my note": "x`) was
 * cut in the wrong place: repairing it would move text from one field into another (a note into the command). Such a
 * repair is refused, whatever the spelling (tools/boundaries.ts).
 */
function swallowedKey(obj: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(obj)) {
    const found = boundaryIn(key) ?? boundaryIn(value);
    if (found !== null) {
      return (
        `they are not valid JSON, and repairing them would put what looks like another parameter ` +
        `(\`${clip(found, MESSAGES.valueChars)}\`) inside "${key}"; nothing was run. ` +
        "Send valid JSON: escape double quotes inside strings as \\\" and newlines as \\n"
      );
    }
  }
  return null;
}

/** The first field boundary in a repaired value: a string, or any string (key or value) inside an array or object. */
function boundaryIn(value: unknown): string | null {
  if (typeof value === "string") return fieldBoundary(value);
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = boundaryIn(v);
      if (found !== null) return found;
    }
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const found = fieldBoundary(k) ?? boundaryIn(v);
      if (found !== null) return found;
    }
  }
  return null;
}

/** jsonrepair joins `"a" + "b"` into one string, which hides where one ended: such a repair is refused. */
function joined(text: string): string | null {
  const found = joinedStrings(text);
  if (found === null) return null;
  return (
    `they are not valid JSON, and repairing them would join two strings around a \`+\` (\`${clip(found, MESSAGES.valueChars)}\`) ` +
    "into one value; nothing was run. Send valid JSON: escape double quotes inside strings as \\\" and newlines as \\n"
  );
}

function namedTwice(key: string, valid: boolean): string {
  return (
    `they ${valid ? "are valid JSON but" : "are not valid JSON and"} name "${clip(key, MESSAGES.valueChars)}" more than once, ` +
    "so which value was meant cannot be told; nothing was run. Send each parameter once"
  );
}

/** A parameter named twice in a broken string: which one was meant cannot be told, so the repair is refused. */
function duplicateKnownKey(text: string, knownKeys: readonly string[]): string | null {
  for (const key of knownKeys) {
    const re = new RegExp(`(^|[{,])\\s*(["']?)${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\2\\s*:`, "g");
    if ([...text.matchAll(re)].length > 1) return namedTwice(key, false);
  }
  return null;
}

/** Valid JSON: a key named twice in the top object (JSON.parse keeps the last; a reader sees the first) is refused. */
function parsedValid(text: string, value: unknown): Decoded {
  if (isPlainObject(value)) {
    const twice = duplicateKey(text);
    if (twice !== null) return { ok: false, problem: namedTwice(twice, true) };
  }
  return { ok: true, value };
}

/** A tool call's arguments sent as a string, read as JSON, or repaired with the repair reported; never throws. */
export function decodeArguments(text: string, knownKeys: readonly string[]): Decoded {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: {} };
  let parseError: string;
  try {
    let value = JSON.parse(trimmed) as unknown;
    // Encoded twice: "{\"command\": …}".
    if (typeof value === "string" && value.trim().startsWith("{")) {
      const inner = value;
      try {
        value = JSON.parse(inner) as unknown;
      } catch {
        return decodeArguments(inner, knownKeys);
      }
      return parsedValid(inner, value);
    }
    return parsedValid(trimmed, value);
  } catch (err) {
    parseError = (err as Error).message;
  }
  // Repair takes time that grows faster than the text (jsonrepair: seconds past 64 KB): only short text is repaired.
  if (trimmed.length > INPUT.maxRepairChars) {
    return {
      ok: false,
      problem:
        `they are not valid JSON (${clip(parseError, MESSAGES.errorChars)}), and at ${trimmed.length.toLocaleString("en-US")} characters ` +
        `too long to be repaired (at most ${INPUT.maxRepairChars.toLocaleString("en-US")}); nothing was run. Send valid JSON: escape ` +
        "double quotes inside strings as \\\" and newlines as \\n",
    };
  }
  // A string opened by an escaped quote (`{"command": \"ls\"}`) makes jsonrepair drop every backslash in it, `\u0022`
  // included: what it reads is then not what a reader sees. Every quote escaped is JSON escaped once too often (a model
  // quoting its own call): it is read unescaped. A mix is refused.
  if (/(^|[{[,:])\s*\\["']/.test(trimmed)) {
    if (!/(^|[^\\])"/.test(trimmed)) return decodeArguments(trimmed.replace(/\\(["\\])/g, "$1"), knownKeys);
    return {
      ok: false,
      problem:
        "they are not valid JSON: a string starts with an escaped quote (\\\"), which a repair would read by dropping " +
        "backslashes; nothing was run. Send valid JSON: escape double quotes inside strings as \\\" and newlines as \\n",
    };
  }
  let r1: Record<string, unknown> | null = null;
  let r1Value: unknown;
  try {
    const repaired = jsonrepair(trimmed);
    r1Value = JSON.parse(repaired) as unknown;
    if (isPlainObject(r1Value)) {
      // jsonrepair keeps a key named twice (with or without a comma between): JSON.parse would keep the last.
      const twice = duplicateKey(repaired);
      if (twice !== null) return { ok: false, problem: namedTwice(twice, false) };
      r1 = r1Value;
    }
  } catch {
    r1Value = undefined;
  }
  const generic = anchoredParse(trimmed, null);
  let chosen: Record<string, unknown> | null = null;
  let anchored = false;
  if (r1 !== null && Object.keys(r1).every((k) => IDENT.test(k)) && (generic === null || sameKeys(r1, generic))) {
    chosen = r1;
  } else {
    const known = anchoredParse(trimmed, knownKeys);
    const genericClean = generic !== null && Object.keys(generic).every((k) => knownKeys.includes(k));
    if (genericClean) chosen = generic;
    else if (generic !== null && known !== null) chosen = imbalance(known) < imbalance(generic) ? known : generic;
    else chosen = known ?? generic ?? r1;
    anchored = chosen !== r1;
  }
  if (chosen !== null) {
    const moved = swallowedKey(chosen) ?? duplicateKnownKey(trimmed, knownKeys) ?? (anchored ? null : joined(trimmed));
    if (moved !== null) return { ok: false, problem: moved };
  }
  if (chosen === null) {
    if (r1Value !== undefined && !isPlainObject(r1Value)) {
      return { ok: false, problem: `they are not a JSON object but ${describe(r1Value)} (JSON error: ${parseError})` };
    }
    return { ok: false, problem: `they are not valid JSON and could not be repaired (${parseError})` };
  }
  const what = breakages(trimmed, parseError);
  if (anchored) what.push("unescaped double quotes inside a string");
  const note =
    `The arguments were not valid JSON (${what.length > 0 ? what.join(", ") : parseError}); they were repaired and ` +
    "read as shown in repairedArguments. Check that the result is what you meant.";
  return { ok: true, value: chosen, repairNote: note };
}
