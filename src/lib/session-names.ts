// The names the session's own shell code uses (src/runtime/node/bash-scripts.ts: the prompt hook `__sandshell_prompt`, its
// counters `__ss_seq`, `__ss_tok`, …, and the prompt variables that print the markers: PROMPT_COMMAND, PS0, and PS1,
// PS2, which the session sets). A command that sets, unsets or declares one of them could forge or silence the markers
// by which the session knows a command has ended: the guard refuses it (src/guard/rules/semantics.ts).

/** Prefixes of the variables and functions the session defines in the shell. */
export const SESSION_NAME_PREFIXES = ["__ss_", "__sandshell"] as const;

/** bash's prompt variables: the session sets them when the shell starts, and its markers come from them. */
export const SESSION_PROMPT_NAMES = ["PROMPT_COMMAND", "PS0", "PS1", "PS2"] as const;

const PROMPT = new Set<string>(SESSION_PROMPT_NAMES);

function sessionName(name: string): boolean {
  return SESSION_NAME_PREFIXES.some((p) => name.startsWith(p)) || PROMPT.has(name.replace(/\[.*$/s, ""));
}

/**
 * `name` (a variable, an array element or a function) is one of the session's own, or a word that brace expansion
 * makes one of them (`read PS{1,2}`, `printf -v PROMPT_COMMAN{D,}`): `braceWords` is the caller's brace expansion
 * (the guard's follows bash: src/guard/braces.ts); a word it cannot expand (too many words) counts.
 */
export function isSessionName(name: string, braceWords: (word: string) => string[] | null): boolean {
  if (!name.includes("{")) return sessionName(name);
  return braceWords(name)?.some(sessionName) ?? true;
}
