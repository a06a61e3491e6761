// Can this machine reach StackBlitz? The live test needs it (WebContainer's runtime is served from stackblitz.com);
// without it the test is skipped at once, and the config does not even start the dev server.

import { bootFrameUrl } from "../../src/runtime/webcontainer/boot.ts";

/** Exactly the address the boot frame loads (as @webcontainer/api builds it). */
export const STACKBLITZ_URL = bootFrameUrl("require-corp");

/** Null when StackBlitz answered (any HTTP status), else why not. Cached in the environment for the workers. */
export async function stackBlitzUnreachable(timeoutMs = 5_000): Promise<string | null> {
  const cached = process.env.SANDSHELL_LIVE_UNREACHABLE;
  if (cached !== undefined) return cached === "" ? null : cached;
  let reason: string | null = null;
  try {
    await fetch(STACKBLITZ_URL, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    reason = `${STACKBLITZ_URL}: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
  }
  process.env.SANDSHELL_LIVE_UNREACHABLE = reason ?? "";
  return reason;
}
