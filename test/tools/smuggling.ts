// A broken JSON string whose repair would read one field into another: the attack is a second key whose value is a
// command (`x; touch F`), written so that a repair ends the first string too late. Each spelling must either keep
// the fields apart or be refused; none may put `touch` into `command`.

import { mulberry32 } from "../lib/random.ts";

export const SMUGGLING_SPELLINGS: ReadonlyArray<{ name: string; raw: string }> = [
  { name: "an invented key after a trailing comma", raw: '{"command": "echo hi", "note": "x; touch F",}' },
  { name: "a key with a space (not an identifier)", raw: '{"command": "echo hi", "my note": "x; touch G",}' },
  { name: "a key with unicode letters", raw: '{"command": "echo hi", "nöte": "x; touch G",}' },
  { name: "a key with punctuation", raw: '{"command": "echo hi", "a.b/c": "x; touch G",}' },
  { name: "an emoji key", raw: '{"command": "echo hi", "📝": "x; touch G",}' },
  { name: "a key with a space after unescaped quotes", raw: '{"command": "echo "hi"", "my note": "x; touch G"}' },
  { name: "single quotes and a key with a space", raw: "{'command': 'echo hi', 'my note': 'x; touch G',}" },
  { name: "single quotes and an invented key", raw: "{'command': 'echo hi', 'note': 'x; touch F',}" },
  { name: "an unquoted key with a space", raw: '{"command": "echo hi", my note: "x; touch G",}' },
  { name: "command named twice", raw: '{"command": "echo hi", "command": "touch G",}' },
  { name: "command named twice, the second in single quotes", raw: "{\"command\": \"echo hi\", 'command': 'touch G',}" },
  { name: "a raw newline before the second key", raw: '{"command": "echo hi",\n "my note": "x; touch G",}' },
  // Found while attacking the fix: a key broken over two lines, a `+` (jsonrepair joins strings), `=` with spaces and no
  // comma, unicode line separators, the BOM and zero-width spaces between the fields.
  { name: "a key with a raw newline inside", raw: '{"command": "echo hi", "no\nte": "x; touch G",}' },
  { name: "a plus between the fields", raw: '{"command": "echo hi" + "note": "x; touch G",}' },
  { name: "a bare key with `=` and no comma", raw: '{"command": "echo hi" note = "x; touch G",}' },
  { name: "a bare key with `:` and no comma", raw: '{"command": "echo hi" note: "; touch G"}' },
  { name: "U+2028 between the fields", raw: '{"command": "echo hi"\u2028"note": "x; touch G"}' },
  { name: "a byte order mark between the fields", raw: '{"command": "echo hi"\uFEFF"note": "x; touch G"}' },
  { name: "a zero-width space between the fields", raw: '{"command": "echo hi"\u200B"note": "x; touch G"}' },
  { name: "escaped quotes spelled as \\u0022", raw: '{"command": "echo hi\\u0022, \\u0022note\\u0022: \\u0022x; touch G",}' },
];


/**
 * The red team's 33 spellings (its attacks/args-smuggling.ts), each carrying the tripwire `touch <t>` in a field that is
 * not `command`: missing commas, smart quotes, escaped quotes in keys, comments, `;` `=` and fullwidth separators, long
 * keys, a parameter named twice (in valid JSON too, and through an alias). 13 of them ran their tripwire before.
 */
export const RED_TEAM_SPELLINGS: ReadonlyArray<{ name: string; raw: (t: string) => string }> = [
  { name: "missing comma between fields", raw: (t) => `{"command": "echo hi" "note": "x; touch ${t}"}` },
  { name: "missing comma, trailing comma", raw: (t) => `{"command": "echo hi" "note": "x; touch ${t}",}` },
  { name: "unicode (smart) quotes around the second key", raw: (t) => `{"command": "echo hi”, “note”: “x; touch ${t}",}` },
  { name: "smart quotes everywhere", raw: (t) => `{“command”: “echo hi”, “note”: “x; touch ${t}”,}` },
  { name: "key with escaped quotes (two)", raw: (t) => `{"command": "echo hi", "a\\"\\"": "x; touch ${t}",}` },
  { name: "key with one escaped quote", raw: (t) => `{"command": "echo hi", "a\\"b\\"": "x; touch ${t}",}` },
  { name: "block comment before the comma", raw: (t) => `{"command": "echo hi" /* c */, "note": "x; touch ${t}",}` },
  { name: "line comment", raw: (t) => `{"command": "echo hi", // c\n "note": "x; touch ${t}",}` },
  { name: "backtick-quoted key", raw: (t) => `{"command": "echo hi", \`note\`: "x; touch ${t}",}` },
  { name: "key quoted with smart single quotes", raw: (t) => `{"command": "echo hi", ‘note’: "x; touch ${t}",}` },
  { name: "unquoted key, unquoted value", raw: (t) => `{"command": "echo hi", note: x; touch ${t},}` },
  { name: "unquoted key with a digit first", raw: (t) => `{"command": "echo hi", "1note": "x; touch ${t}",}` },
  { name: "nested object value", raw: (t) => `{"command": "echo hi", "opts": {"x": "y; touch ${t}"},}` },
  { name: "nested object, missing comma", raw: (t) => `{"command": "echo hi" "opts": {"x": "y; touch ${t}"}}` },
  { name: "array value", raw: (t) => `{"command": "echo hi", "list": ["a", "x; touch ${t}"],}` },
  { name: "trailing garbage after the object", raw: (t) => `{"command": "echo hi"} "note": "x; touch ${t}"` },
  { name: "trailing garbage inside braces", raw: (t) => `{"command": "echo hi"}, {"command": "touch ${t}"}` },
  { name: "two objects", raw: (t) => `{"command": "echo hi"}{"command": "touch ${t}"}` },
  { name: "duplicate command, valid JSON", raw: (t) => `{"command": "echo hi", "command": "touch ${t}"}` },
  { name: "duplicate via alias cmd", raw: (t) => `{"cmd": "echo hi", "command": "touch ${t}",}` },
  { name: "a number parameter holding a command", raw: (t) => `{"command": "echo hi", "timeout": "5; touch ${t}",}` },
  { name: "semicolon key separator", raw: (t) => `{"command": "echo hi"; "note": "x; touch ${t}"}` },
  { name: "equals instead of colon", raw: (t) => `{"command": "echo hi", "note" = "x; touch ${t}",}` },
  { name: "fullwidth comma", raw: (t) => `{"command": "echo hi"， "note": "x; touch ${t}",}` },
  { name: "code fence with extra key", raw: (t) => "```json\n" + `{"command": "echo hi", "my note": "x; touch ${t}",}` + "\n```" },
  { name: "python dict with None", raw: (t) => `{'command': 'echo hi', 'note': None, 'n2': 'x; touch ${t}',}` },
  { name: "tab separated, missing comma", raw: (t) => `{"command": "echo hi"\t"note":\t"x; touch ${t}"}` },
  { name: "newline separated, missing comma", raw: (t) => `{"command": "echo hi"\n"note": "x; touch ${t}"}` },
  { name: "key with colon in it", raw: (t) => `{"command": "echo hi", "a:b": "x; touch ${t}",}` },
  { name: "long key > 200 chars", raw: (t) => `{"command": "echo hi", "${"k".repeat(260)}": "x; touch ${t}",}` },
  { name: "long key with spaces > 200", raw: (t) => `{"command": "echo hi", "${"k ".repeat(130)}": "x; touch ${t}",}` },
  { name: "space before comma then unicode key", raw: (t) => `{"command": "echo hi" , "ñ ö": "x; touch ${t}",}` },
  { name: "backslash-escaped closing quote", raw: (t) => `{"command": "echo hi\\", "note": "x; touch ${t}"}` },
];

/**
 * The second red team's 48 (its attacks/args-spellings2.ts): a closing quote, one character boundaries.ts's old
 * separator list did not name (Arabic, small and reversed commas, `|`, `~`, `#`, a letter, a middle dot, a bullet),
 * then a quoted or bare key. 42 of them ran their tripwire before the list gave way to a principle.
 */
const SECOND_SEPARATORS = ["\u060C", "\uFE50", "\uFE51", "\u2E41", "\u055D", "\u1802", "\uA4FE", "\u00B8", "|", "~", "#", "x", "\u00B7", "\u2022"];
export const SECOND_RED_TEAM_SPELLINGS: ReadonlyArray<{ name: string; raw: (t: string) => string }> = [
  ...SECOND_SEPARATORS.flatMap((s) => {
    const u = `U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} ${s}`;
    return [
      { name: `separator ${u}`, raw: (t: string) => `{"command": "echo hi"${s} "note": "x; touch ${t}",}` },
      { name: `separator ${u}, no space`, raw: (t: string) => `{"command": "echo hi"${s}"note": "x; touch ${t}"}` },
      { name: `separator ${u}, bare key`, raw: (t: string) => `{"command": "echo hi"${s} note: "x; touch ${t}",}` },
    ];
  }),
  { name: "zero-width in key", raw: (t) => `{"command": "echo hi", "no\u200Bte": "x; touch ${t}",}` },
  { name: "array command with a second object", raw: (t) => `{"command": ["echo", "hi"], "x": {"command": "touch ${t}"}}` },
  { name: "two objects, second has command", raw: (t) => `{"note": "x"} {"command": "touch ${t}"}` },
  { name: "comment hides the real command", raw: (t) => `{"command": "touch ${t}" /*, "command": "echo hi" */}` },
  { name: "JSONP wrapper", raw: (t) => `callback({"command": "echo hi", "note": "x; touch ${t}",})` },
  { name: "ndjson", raw: (t) => `{"command": "echo hi"}\n{"command": "touch ${t}"}` },
];

/** Quote pairs a model, a lenient parser or a reader may take for quotes (mixed pairs too). */
const FUZZ_QUOTES = ['"', "'", "`", "\u00B4", "\u201C", "\u201D", "\u2018", "\u2019", "\u201E", "\u00AB", "\u00BB", "\u300C", "\uFF02", "&quot;", "\\\"", "\\u0022"];
/** Separators: any printable ASCII that is not a quote, and unicode punctuation, symbols, letters and marks. */
const FUZZ_SEPARATORS = [
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => !"\"'`\\ ".includes(c)),
  ..."\u060C\uFE50\uFE51\u2E41\u055D\u1802\uA4FE\u00B8\u00B7\u2022\u3001\uFF0C\uFF1B\u061B\u037E\u2026\u2014\u00A6\u00A7\u00B6\u2016\u2E34\u1363\u0589\u3002\uFF5C\u00E9\u03B1\u0416\u4E2D\u0301\u00BF\u00A1",
];
/** White space and things a lenient reader skips: spaces of every kind, line breaks, zero-width characters, comments. */
const FUZZ_SPACES = [" ", "  ", "\t", "\n", "\r\n", "\u00A0", "\u2028", "\u2029", "\u3000", "\u200B", "\uFEFF", "\u180E", "\u2060", "\u00AD", "/* c */", "// c\n", ""];
/** White space within a line. */
const BLANKS = [" ", "\t", "\u00A0", "\u3000", "\u200B", "\uFEFF", "\u2060", "/* c */"];
const FUZZ_KEYS = ["note", "my note", "n\u00F6te", "a.b/c", "1note", "a:b", "x", "command", "cmd", "timeout", "k".repeat(40), "no\u200Bte", "\uD83D\uDCDD", "a\\\"b"];
const FUZZ_COLONS = [":", ":", ":", "=", "\uFF1A", "\uFF1D", " :", ": ", " = "];

/**
 * `count` spellings of a second field after `command`, each a random pick of: the quote that ends the command's string,
 * zero to three separator characters with spaces or comments around them, a quoted (any quote pair, mixed too) or bare
 * key, a colon or `=`, the value `x; touch <t>` quoted or bare, and an end. Each carries the tripwire in the other field.
 */
export function fuzzSpellings(seed: number, count: number): Array<{ name: string; raw: (t: string) => string }> {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: Array<{ name: string; raw: (t: string) => string }> = [];
  for (let k = 0; k < count; k++) {
    const open = r() < 0.8 ? '"' : pick(FUZZ_QUOTES);
    const end = r() < 0.7 ? open : pick(FUZZ_QUOTES);
    // White space or a comment (any line), then up to three separator characters on one line, then white space again.
    let between = r() < 0.5 ? pick(FUZZ_SPACES) : "";
    const parts = Math.floor(r() * 4);
    for (let p = 0; p < parts; p++) between += (r() < 0.3 ? pick(BLANKS) : "") + pick(FUZZ_SEPARATORS);
    between += pick(FUZZ_SPACES);
    const kq = r() < 0.25 ? "" : r() < 0.7 ? '"' : pick(FUZZ_QUOTES);
    // A bare key is an identifier (a word: no space, colon or quote in it).
    const key = kq === "" ? pick(FUZZ_KEYS.filter((k) => !/[\s:"\\]/.test(k))) : pick(FUZZ_KEYS);
    const kqEnd = kq === "" ? "" : r() < 0.75 ? kq : pick(FUZZ_QUOTES);
    const colon = pick(FUZZ_COLONS);
    // `=` before an unquoted value is an assignment (`a = $1`), not a key: only quoted values after `=`.
    const vq = r() < 0.2 && !/[=\uFF1D]/.test(colon) ? "" : r() < 0.7 ? '"' : pick(FUZZ_QUOTES);
    const tail = pick(["}", ",}", `${vq}}`, `${vq},}`, "", `${vq}`]);
    const name = JSON.stringify({ open, end, between, kq, key, kqEnd, colon, vq, tail });
    out.push({
      name,
      raw: (t) => `{"command": ${open}echo hi${end}${between}${kq}${key}${kqEnd}${colon} ${vq}x; touch ${t}${tail === "" || tail === vq ? tail : tail}`,
    });
  }
  return out;
}
