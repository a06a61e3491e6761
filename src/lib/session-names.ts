// The names the session's own shell code uses (src/runtime/node.ts: the prompt hook `__sandshell_prompt`, its
// counters `__ss_seq`, `__ss_tok`, …, and the prompt variables that print the markers: PROMPT_COMMAND, PS0, and PS1,
// PS2, which the session sets). A command that sets, unsets or declares one of them could forge or silence the markers
// by which the session knows a command has ended: the guard refuses it (src/guard/rules/semantics.ts).

/** Prefixes of the variables and functions the session defines in the shell. */
export const SESSION_NAME_PREFIXES = ["__ss_", "__sandshell"] as const;

/** bash's prompt variables: the session sets them when the shell starts, and its markers come from them. */
export const SESSION_PROMPT_NAMES = ["PROMPT_COMMAND", "PS0", "PS1", "PS2"] as const;

const PROMPT = new Set<string>(SESSION_PROMPT_NAMES);

/** `name` (a variable, an array element or a function) is one of the session's own. */
export function isSessionName(name: string): boolean {
  return SESSION_NAME_PREFIXES.some((p) => name.startsWith(p)) || PROMPT.has(name.replace(/\[.*$/s, ""));
}
