// The names the session's own shell code uses (src/runtime/node.ts: the prompt hook `__sandshell_prompt`, its
// counters `__ss_seq`, `__ss_tok`, …). A command that sets, unsets or declares one of them could forge or silence
// the markers by which the session knows a command has ended: the guard refuses it (src/guard/rules/semantics.ts).

/** Prefixes of the variables and functions the session defines in the shell. */
export const SESSION_NAME_PREFIXES = ["__ss_", "__sandshell"] as const;

/** `name` (a variable, an array element or a function) is one of the session's own. */
export function isSessionName(name: string): boolean {
  return SESSION_NAME_PREFIXES.some((p) => name.startsWith(p));
}
