// The names the session's own shell code uses (src/runtime/node/bash-scripts.ts: the prompt hook `__sandshell_prompt`, its
// counters `__ss_seq`, `__ss_tok`, …, and the prompt variables that print the markers: PROMPT_COMMAND, PS0, and PS1,
// PS2, which the session sets). A command that sets, unsets or declares one of them could forge or silence the markers
// by which the session knows a command has ended: the guard refuses it (src/guard/rules/semantics.ts).

/** Prefixes of the variables and functions the session defines in the shell. */
export const SESSION_NAME_PREFIXES = ["__ss_", "__sandshell"] as const;

/** bash's prompt variables: the session sets them when the shell starts, and its markers come from them. */
export const SESSION_PROMPT_NAMES = ["PROMPT_COMMAND", "PS0", "PS1", "PS2"] as const;

const PROMPT = new Set<string>(SESSION_PROMPT_NAMES);

/**
 * Bash's brace expansion of a word: `PS{0,1}` is PS0 PS1, `a{1..3}` a1 a2 a3, `{x,{y,z}}` nests. A brace with
 * neither a comma nor a `..` range is literal, as in bash. Null when it would make more than `limit` words.
 */
export function expandBraces(word: string, limit = 64): string[] | null {
  for (let open = word.indexOf("{"); open >= 0; open = word.indexOf("{", open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let i = open; i < word.length && close < 0; i++) {
      const c = word[i];
      if (c === "\\") i++;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) close = i;
      else if (c === "," && depth === 1) commas.push(i);
    }
    if (close < 0) return [word];
    const body = word.slice(open + 1, close);
    let parts: string[] | null = null;
    if (commas.length) parts = [open, ...commas].map((at, k) => word.slice(at + 1, k < commas.length ? commas[k] : close));
    else {
      const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?$/.exec(body);
      if (range) {
        const num = /\d/.test(range[1]!);
        const a = num ? Number(range[1]) : range[1]!.charCodeAt(0);
        const b = num ? Number(range[2]) : range[2]!.charCodeAt(0);
        if (Math.abs(b - a) >= limit) return null;
        parts = [];
        for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? 1 : -1) parts.push(num ? String(v) : String.fromCharCode(v));
      }
    }
    if (parts === null) continue;
    const out: string[] = [];
    for (const part of parts) {
      const more = expandBraces(word.slice(0, open) + part + word.slice(close + 1), limit);
      if (more === null || out.push(...more) > limit) return null;
    }
    return out;
  }
  return [word];
}

function sessionName(name: string): boolean {
  return SESSION_NAME_PREFIXES.some((p) => name.startsWith(p)) || PROMPT.has(name.replace(/\[.*$/s, ""));
}

/**
 * `name` (a variable, an array element or a function) is one of the session's own, or a word that brace expansion
 * makes one of them (`read PS{1,2}`, `printf -v PROMPT_COMMAN{D,}`); one that expands into too many words counts.
 */
export function isSessionName(name: string): boolean {
  if (!name.includes("{")) return sessionName(name);
  return expandBraces(name)?.some(sessionName) ?? true;
}
