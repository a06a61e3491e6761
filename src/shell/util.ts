// Small helpers of the shell layer: time, listener safety, timeouts, and text for notices.

import { SHELL } from "../limits.ts";
import { callListener } from "../lib/listeners.ts";
import { clipLine } from "../lib/text.ts";

export { shellQuote } from "../lib/text.ts";

/** Listeners belong to others: one that throws must not break the stream. */
export function safely(fn: () => void): void {
  callListener("shell session", fn);
}

export function now(): number {
  return performance.now();
}

export function clampTimeout(sec: number | undefined, fallback: number): number {
  const v = typeof sec === "number" && Number.isFinite(sec) && sec > 0 ? sec : fallback;
  return Math.min(v, SHELL.maxTimeoutSec);
}

/** The command on one line, cut after `chars` characters. */
export function head(command: string, chars = 80): string {
  return clipLine(command, chars + 1);
}

export function secs(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}
