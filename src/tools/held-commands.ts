// Commands the bash tool holds unsent because bash would read more lines first (an open heredoc, a trailing
// backslash): kept per shell session and per caller, completed by that caller's is_input, dropped when it goes.

import type { ToolOutcome } from "./context.ts";

/**
 * Commands held because bash would read more lines first (an open heredoc): per shell session and per caller, unsent.
 * A held command belongs to its caller: only that caller's is_input continues it (another caller's is refused).
 */
const heldBySession = new WeakMap<object, Map<string, string>>();

export function heldOf(session: object): Map<string, string> {
  let map = heldBySession.get(session);
  if (map === undefined) heldBySession.set(session, (map = new Map()));
  return map;
}

/** The key of a call's caller in the held map: its id, or "" for the sandbox's owner. */
export function heldKey(caller: string | undefined): string {
  return caller === undefined ? "" : `c:${caller}`;
}

/** A caller is gone (its connection ended): its held, unsent command goes. True when there was one. */
export function dropHeld(session: object, caller: string | undefined): boolean {
  return heldBySession.get(session)?.delete(heldKey(caller)) ?? false;
}

export function heldOutcome(text: string, cwd: string): ToolOutcome {
  return {
    text:
      "The command is not complete yet (an open heredoc or a trailing backslash), so nothing was sent. Send the next " +
      "lines with is_input=true; when the text is complete it is checked as a whole and run.\n[held · cwd " + cwd + "]",
    structured: { status: "running", held: true, heldChars: text.length, cwd },
  };
}
