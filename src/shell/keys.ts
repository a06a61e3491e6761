// Named keys for input to a running program: an agent cannot type a control character into JSON reliably, so it names the key and we
// send what a standard xterm sends in normal (not application) cursor mode.

const NAMED: Record<string, string> = {
  Up: "\x1b[A",
  Down: "\x1b[B",
  Right: "\x1b[C",
  Left: "\x1b[D",
  Home: "\x1b[H",
  End: "\x1b[F",
  PageUp: "\x1b[5~",
  PageDown: "\x1b[6~",
  Tab: "\t",
  Escape: "\x1b",
  Enter: "\r",
  Backspace: "\x7f",
};

const ALIASES: Record<string, string> = {
  pgup: "PageUp",
  pgdn: "PageDown",
  esc: "Escape",
  bs: "Backspace",
};

const CTRL_NAMES = Array.from({ length: 26 }, (_, k) => `C-${String.fromCharCode(0x61 + k)}`);

/** Every canonical key name, for tool descriptions. Matching is case-insensitive and accepts the aliases too. */
export const KEY_NAMES: readonly string[] = [...CTRL_NAMES, ...Object.keys(NAMED)];

/** `C-c`, `Ctrl-c`, `ctrl+c`, `Control-c`, `^C`: the letter is the only part that matters. */
const CTRL = /^(?:(?:c|ctrl|control)[-+]|\^)([a-z])$/i;

const BY_LOWER_NAME = new Map<string, string>();
for (const [name, bytes] of Object.entries(NAMED)) BY_LOWER_NAME.set(name.toLowerCase(), bytes);
for (const [alias, name] of Object.entries(ALIASES)) BY_LOWER_NAME.set(alias, NAMED[name] ?? "");

/**
 * The bytes for `input` when the whole input (surrounding whitespace aside) names a key; null when it is ordinary text
 * to be typed as it is.
 */
export function keyToBytes(input: string): string | null {
  const name = input.trim();
  const ctrl = CTRL.exec(name);
  if (ctrl !== null) return String.fromCharCode((ctrl[1] ?? "a").toLowerCase().charCodeAt(0) - 0x60);
  return BY_LOWER_NAME.get(name.toLowerCase()) ?? null;
}
