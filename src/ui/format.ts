// Small formatting helpers for the UI (the tools' own, so that numbers read the same everywhere).

import { MESSAGES } from "../limits.ts";
import { clip } from "../lib/text.ts";

export { formatBytes, formatDuration } from "../lib/text.ts";

/** 14:03:07 */
export function clock(iso: string | number): string {
  const d = new Date(iso);
  return d.toLocaleTimeString("en-GB", { hour12: false });
}

/** The first line of a long text, cut to `max` characters. */
export function headline(text: string, max: number = MESSAGES.shortCommandChars): string {
  return clip(text.split("\n", 1)[0] ?? "", max);
}

/** 4:59 */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
