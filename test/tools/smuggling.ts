// A broken JSON string whose repair would read one field into another: the attack is a second key whose value is a
// command (`x; touch F`), written so that a repair ends the first string too late. Each spelling must either keep
// the fields apart or be refused; none may put `touch` into `command`.
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
