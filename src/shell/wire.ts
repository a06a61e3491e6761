// What is checked is what runs: the one function that turns an agent's command into the exact text the shell
// receives. The bash tool checks this text with the guard and the session sends it and nothing else (wrapped only in
// the bracketed-paste switches, which the line editor strips, or saved verbatim to a file that is sourced).
// Control characters other than newline and tab are refused, never transformed: a carriage return, a ^U or a paste
// switch inside a command would make the shell see a different command than the one that was checked.

export type CommandText = { ok: true; text: string } | { ok: false; error: string; position: number; char: string };

const NAMES: Record<number, string> = {
  0x00: "NUL",
  0x03: "C-c",
  0x04: "C-d",
  0x08: "backspace",
  0x0d: "carriage return",
  0x15: "C-u",
  0x1b: "escape",
  0x7f: "delete",
};

// C0 controls except \t and \n, DEL, and the C1 controls a terminal may act on.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

export function commandText(command: string): CommandText {
  const m = CONTROL.exec(command);
  if (m !== null) {
    const code = m[0].charCodeAt(0);
    const name = NAMES[code] ?? "control character";
    const u = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    return {
      ok: false,
      position: m.index,
      char: m[0],
      error:
        `The command contains a ${name} (${u}) at character ${m.index + 1}; a shell command may hold no control ` +
        "characters other than newline and tab, so it was not run. Remove it (use a newline to separate lines, " +
        "and printf '\\r' or $'\\r' where the command itself needs the character).",
    };
  }
  // Trailing newlines would be empty lines typed after the command: dropped here, before the check.
  return { ok: true, text: command.replace(/\n+$/, "") };
}
