// A value a model sent, as the tools' messages name it, and the one test of a JSON object the argument readers share.

import { MESSAGES } from "../limits.ts";
import { clip } from "../lib/text.ts";

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value in words for a message: `the string "…"`, `an array`, `number 3`. */
export function describe(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(clip(v, MESSAGES.valueChars))}`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}
