// Layer 0: models sometimes pack a Python/JSON literal into the `command` field
// (`[{'default': {...}}, ['apps']]`). Bash answers "command not found" and the model rarely
// understands why, so we catch the shape before parsing and say what to do instead.
// Real bash starts `[`, `[[` and `{` with whitespace after them, which is what keeps this exact.

export type LiteralKind = "list literal" | "nested list literal" | "dict literal";

export function looksLikePythonLiteralArgument(command: string): LiteralKind | null {
  if (typeof command !== "string") return null;
  const s = command.trimStart();
  if (s.length < 2) return null;
  const a = s[0];
  const b = s[1];
  if (a === "[" && (b === "{" || b === '"' || b === "'")) return "list literal";
  if (a === "[" && b === "[") {
    // `[[ -z "$a" ]]` always has whitespace after `[[`; `[[1, 2]]` does not.
    const c = s[2];
    return c !== undefined && c !== " " && c !== "\t" ? "nested list literal" : null;
  }
  if (a === "{" && (b === '"' || b === "'")) return "dict literal";
  return null;
}
