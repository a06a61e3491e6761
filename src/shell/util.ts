// Small helpers of the shell layer: time, listener safety, timeouts, and text for notices.

import { SHELL } from "../limits.ts";

/** Listeners belong to others: one that throws must not break the stream. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    console.error("sandshell: a shell session listener threw:", err);
  }
}

export function now(): number {
  return performance.now();
}

export function clampTimeout(sec: number | undefined, fallback: number): number {
  const v = typeof sec === "number" && Number.isFinite(sec) && sec > 0 ? sec : fallback;
  return Math.min(v, SHELL.maxTimeoutSec);
}

export function head(command: string, chars = 80): string {
  const one = command.replace(/\s+/g, " ").trim();
  return one.length > chars ? `${one.slice(0, chars)}…` : one;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function secs(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}
