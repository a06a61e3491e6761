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
];

