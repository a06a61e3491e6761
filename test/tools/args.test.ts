// Tolerant tool arguments: every case, pure (no runtime).

import { describe, expect, it } from "vitest";
import { joinCommandWords, parseToolArguments, type ParsedArguments } from "../../src/tools/args.ts";
import { toolSpec } from "../../src/tools/specs.ts";
import { INPUT } from "../../src/limits.ts";
import { duplicateKey, fieldBoundary, joinedStrings } from "../../src/tools/boundaries.ts";
import { fuzzSpellings, RED_TEAM_SPELLINGS, SECOND_RED_TEAM_SPELLINGS, SMUGGLING_SPELLINGS } from "./smuggling.ts";

const spec = (name: string) => toolSpec(name)!;

function ok(p: ParsedArguments): Record<string, unknown> {
  if (!p.ok) throw new Error(`expected ok, got: ${p.message}`);
  return p.args;
}

function fail(p: ParsedArguments): Extract<ParsedArguments, { ok: false }> {
  if (p.ok) throw new Error(`expected an error, got ${JSON.stringify(p.args)}`);
  return p;
}

describe("arguments as an object or a JSON string", () => {
  it("takes a plain object as it is, with nothing reported", () => {
    const p = parseToolArguments(spec("bash"), { command: "ls -la", timeout: 30 });
    expect(ok(p)).toEqual({ command: "ls -la", timeout: 30 });
    expect(p.ignored).toEqual([]);
    expect(p.repaired).toBeUndefined();
  });

  it("takes the raw JSON string a model produced, without calling it a repair", () => {
    const p = parseToolArguments(spec("write_file"), '{"path": "a.txt", "content": "x\\ny\\n"}');
    expect(ok(p)).toEqual({ path: "a.txt", content: "x\ny\n" });
    expect(p.repaired).toBeUndefined();
  });

  it("decodes a JSON string that was encoded twice", () => {
    const p = parseToolArguments(spec("bash"), JSON.stringify(JSON.stringify({ command: "pwd" })));
    expect(ok(p)).toEqual({ command: "pwd" });
  });

  it("reads an empty string or null as no arguments (then names the missing parameter)", () => {
    expect(fail(parseToolArguments(spec("bash"), "")).parameter).toBe("command");
    expect(fail(parseToolArguments(spec("bash"), null)).parameter).toBe("command");
    expect(ok(parseToolArguments(spec("list_dir"), ""))).toEqual({});
  });
});

describe("broken JSON is repaired and the repair reported", () => {
  it("raw newlines and unescaped double quotes inside a heredoc", () => {
    const raw = '{"command": "cat > blog.py <<\'EOF\'\nprint("hi")\nx = {"a": 1}\nEOF"}';
    const p = parseToolArguments(spec("bash"), raw);
    expect(ok(p)).toEqual({ command: "cat > blog.py <<'EOF'\nprint(\"hi\")\nx = {\"a\": 1}\nEOF" });
    expect(p.repaired?.object).toEqual({ command: "cat > blog.py <<'EOF'\nprint(\"hi\")\nx = {\"a\": 1}\nEOF" });
    expect(p.repaired?.note).toMatch(/raw line breaks/);
    expect(p.repaired?.note).toMatch(/unescaped double quotes/);
  });

  it("unescaped quotes in a file's content, with a second parameter after it", () => {
    const raw = '{"path": "a.py", "content": "def f():\n\treturn "x"\n", "mode": "w"}';
    const p = parseToolArguments(spec("write_file"), raw);
    expect(ok(p)).toEqual({ path: "a.py", content: 'def f():\n\treturn "x"\n' });
    expect(p.ignored).toEqual(["mode"]);
    expect(p.repaired).toBeDefined();
  });

  it("JSON content with its own string keys inside a broken string is refused, not guessed (it looks like a second field)", () => {
    // Reading this whole would need the same guess that moves a note into a command (see "repair never moves text").
    const raw = '{"path": "package.json", "content": "{"name": "x", "version": "1.0.0"}"}';
    const p = fail(parseToolArguments(spec("write_file"), raw));
    expect(p.message).toMatch(/escape double quotes/);
    expect(p.message).toMatch(/Example call: write_file/);
  });

  it("JSON content with a second key inside a broken string is refused too, whatever its values (a quote, `: true,`, a key)", () => {
    // `"private": true, "version": 1` is shaped like `"command": "echo hi": 1, "note": "x; touch T"`: when in doubt, refuse.
    const raw = '{"path": "package.json", "content": "{"private": true, "version": 1}"}';
    const p = fail(parseToolArguments(spec("write_file"), raw));
    expect(p.message).toMatch(/escape double quotes/);
    // One key stays whole.
    expect(ok(parseToolArguments(spec("write_file"), '{"path": "package.json", "content": "{"private": true}"}'))).toEqual({
      path: "package.json",
      content: '{"private": true}',
    });
  });

  it("honest text with quotes and colons stays whole: messages, prompts after an opening quote, options, assignments", () => {
    for (const command of [
      'echo "Usage: deploy.sh <env>"',
      'printf "Total: %d\n" "$n"',
      'git commit -m "fix: the parser"',
      "awk -F: '{ total += $1 } END { print total }' /etc/passwd",
      'find . -name "*.tmp" -exec rm {} +',
      'FOO="a" BAR="b" make',
      '[ "$a" = "$b" ] && echo same',
      'awk \'{ a = $1; b = $2 } END { print a ": " b }\' f',
      'git checkout origin:main && echo "done"',
      'docker run "$image" node:20',
    ]) {
      const p = parseToolArguments(spec("bash"), `{"command": "${command}"}`);
      expect(ok(p), command).toEqual({ command });
    }
  });

  it("python -c with a dict inside unescaped quotes", () => {
    const raw = '{"command": "python3 -c "import json; print(json.dumps({"a": 1}))""}';
    expect(ok(parseToolArguments(spec("bash"), raw))).toEqual({ command: 'python3 -c "import json; print(json.dumps({"a": 1}))"' });
  });

  it("single quotes instead of double quotes", () => {
    const p = parseToolArguments(spec("bash"), "{'command': 'ls -la', 'timeout': 60}");
    expect(ok(p)).toEqual({ command: "ls -la", timeout: 60 });
    expect(p.repaired?.note).toMatch(/single quotes/);
  });

  it("a trailing comma", () => {
    const p = parseToolArguments(spec("read_file"), '{"path": "README.md", "limit": 10,}');
    expect(ok(p)).toEqual({ path: "README.md", limit: 10 });
    expect(p.repaired?.note).toMatch(/trailing comma/);
  });

  it("Python True, False and None", () => {
    const p = parseToolArguments(spec("bash"), '{"command": "npm run dev", "run_in_background": True, "timeout": None}');
    expect(ok(p)).toEqual({ command: "npm run dev", run_in_background: true });
    expect(p.repaired?.note).toMatch(/Python True\/False\/None/);
  });

  it("a code fence around the JSON", () => {
    const p = parseToolArguments(spec("bash"), '```json\n{"command": "git status"}\n```');
    expect(ok(p)).toEqual({ command: "git status" });
    expect(p.repaired?.note).toMatch(/code fence/);
  });

  it("an invented parameter next to a trailing comma stays a separate (ignored) parameter", () => {
    const p = parseToolArguments(spec("bash"), '{"command": "echo hi", "cwd": "/tmp",}');
    expect(ok(p)).toEqual({ command: "echo hi" });
    expect(p.ignored).toEqual(["cwd"]);
  });

  it("a hopeless string is an error that names the problem and shows an example call", () => {
    const p = fail(parseToolArguments(spec("bash"), "ls -la"));
    expect(p.parameter).toBeNull();
    expect(p.message).toMatch(/not a JSON object/);
    expect(p.message).toContain('Example call: bash {"command":"ls -la src","timeout":60}');
  });

  it("an array instead of an object is an error", () => {
    const p = fail(parseToolArguments(spec("read_file"), ["a.txt"]));
    expect(p.message).toMatch(/must be a JSON object, not an array/);
    expect(p.message).toContain("Example call: read_file");
  });
});

describe("unknown and renamed parameters", () => {
  it("ignores unknown parameters and reports them", () => {
    const p = parseToolArguments(spec("write_file"), { path: "a", content: "b", overwrite: true, line_end: "\\n" });
    expect(ok(p)).toEqual({ path: "a", content: "b" });
    expect(p.ignored).toEqual(["overwrite", "line_end"]);
  });

  it("takes a well-known other name for an absent parameter and reports it", () => {
    const p = parseToolArguments(spec("edit_file"), { file_path: "a.ts", old_string: "x", new_string: "y" });
    expect(ok(p)).toEqual({ path: "a.ts", old_str: "x", new_str: "y" });
    expect(p.renamed).toEqual({ file_path: "path", old_string: "old_str", new_string: "new_str" });
  });

  it("another name with the same value as the real parameter is taken once and reported as ignored", () => {
    const p = parseToolArguments(spec("read_file"), { path: "a.ts", file_path: "a.ts" });
    expect(ok(p)).toEqual({ path: "a.ts" });
    expect(p.ignored).toEqual(["file_path"]);
  });

  it("another name with a different value than the real parameter is refused: which was meant cannot be told", () => {
    const p = fail(parseToolArguments(spec("read_file"), { path: "a.ts", file_path: "b.ts" }));
    expect(p.parameter).toBe("path");
    expect(p.message).toMatch(/given twice with different values, as "path" and as "file_path"/);
    expect(p.message).toContain("Example call: read_file");
    const cmd = fail(parseToolArguments(spec("bash"), '{"cmd": "echo hi", "command": "touch T",}'));
    expect(cmd.message).toMatch(/"command" is given twice/);
  });
});

describe("coercion where it is unambiguous", () => {
  it('"60" becomes 60 and "true" becomes true', () => {
    expect(ok(parseToolArguments(spec("bash"), { command: "x", timeout: "60", run_in_background: "true" }))).toEqual({
      command: "x",
      timeout: 60,
      run_in_background: true,
    });
  });

  it('"30s", "false", 1 and a numeric job id are read as meant', () => {
    expect(ok(parseToolArguments(spec("job_output"), { id: 3, wait: "30s" }))).toEqual({ id: "3", wait: 30 });
    expect(ok(parseToolArguments(spec("edit_file"), { path: "a", old_str: "x", new_str: "y", replace_all: "false" }))).toMatchObject({ replace_all: false });
    expect(ok(parseToolArguments(spec("bash"), { command: "x", is_input: 1 }))).toMatchObject({ is_input: true });
  });

  it("a number that is not one is an error naming the parameter", () => {
    const p = fail(parseToolArguments(spec("bash"), { command: "x", timeout: "soon" }));
    expect(p.parameter).toBe("timeout");
    expect(p.message).toMatch(/must be a number of seconds/);
    expect(p.message).toContain("Example call: bash");
  });

  it("a boolean that is not one is an error", () => {
    expect(fail(parseToolArguments(spec("bash"), { command: "x", is_input: "maybe" })).parameter).toBe("is_input");
  });

  it("content sent as a JSON object is written as JSON text, and said so", () => {
    const p = parseToolArguments(spec("write_file"), { path: "p.json", content: { name: "x" } });
    expect(ok(p)).toEqual({ path: "p.json", content: '{\n  "name": "x"\n}\n' });
    expect(p.notes.join(" ")).toMatch(/written as JSON text/);
  });
});

describe("a command sent as an array of words", () => {
  it("is joined with shell quoting", () => {
    const p = parseToolArguments(spec("bash"), { command: ["grep", "-rn", "hello world", "it's", "src/"] });
    expect(ok(p).command).toBe("grep -rn 'hello world' 'it'\\''s' src/");
    expect(p.notes[0]).toMatch(/joined/);
  });

  it("keeps lone operators as operators and a single element as the whole command", () => {
    expect(joinCommandWords(["ls", "-la", "|", "wc", "-l"])).toBe("ls -la | wc -l");
    expect(ok(parseToolArguments(spec("bash"), { command: ["cd src && npm test"] })).command).toBe("cd src && npm test");
    expect(joinCommandWords(["echo", "", "$HOME"])).toBe("echo '' '$HOME'");
  });

  it("an array of non-strings is an error", () => {
    const p = fail(parseToolArguments(spec("bash"), { command: [{ a: 1 }] }));
    expect(p.parameter).toBe("command");
    expect(p.message).toMatch(/must be a string with the shell command/);
  });
});

describe("missing arguments", () => {
  it("names the parameter, says what was wrong and shows a correct example call", () => {
    const p = fail(parseToolArguments(spec("write_file"), { path: "a.txt" }));
    expect(p.parameter).toBe("content");
    expect(p.message).toMatch(/Parameter "content" is missing: a string is required/);
    expect(p.message).toContain('Example call: write_file {"path":"src/hello.py","content":"print(\\"hello\\")\\n"}');
    expect(p.message).toContain("write_file takes {path: string, content: string}");
  });

  it("a null required parameter is missing too", () => {
    expect(fail(parseToolArguments(spec("job_kill"), { id: null })).message).toMatch(/"id" is missing \(it was null\)/);
  });

  it("bash with is_input and no command only waits: the command may be left out", () => {
    expect(ok(parseToolArguments(spec("bash"), { is_input: true }))).toEqual({ command: "", is_input: true });
  });
});

describe("argument repair never moves text between fields", () => {
  for (const { name, raw } of SMUGGLING_SPELLINGS) {
    it(`${name}: the command never holds the other field's text`, () => {
      const p = parseToolArguments(spec("bash"), raw);
      if (p.ok) {
        expect(p.args.command).toBe("echo hi");
      } else {
        expect(p.message).toMatch(/Example call: bash/);
        expect(p.message).toMatch(/nothing was run/);
      }
    });
  }

  it("a key the parameter-aware parser does not know (with a space) is refused with the example call", () => {
    const p = fail(parseToolArguments(spec("bash"), '{"command": "echo hi", "my note": "x; touch G",}'));
    expect(p.parameter).toBeNull();
    expect(p.message).toMatch(/"my note"/);
    expect(p.message).toMatch(/Send valid JSON/);
  });

  for (const [i, { name, raw }] of RED_TEAM_SPELLINGS.entries()) {
    it(`the red team's "${name}": the command never holds the other field's text`, () => {
      const p = parseToolArguments(spec("bash"), raw(`T${i + 1}`));
      if (p.ok) {
        // `echo hi\"` keeps its own escaped quote (then bash holds it as incomplete); nothing of the other field.
        expect(p.args.command).toMatch(/^echo hi"?$/);
      } else {
        expect(p.message).toMatch(/Example call: bash/);
        expect(p.message).not.toMatch(/touch T\d+[^"]*$/m);
      }
    });
  }

  it("a parameter named twice in valid JSON is refused (JSON.parse keeps the last; a reader sees the first)", () => {
    const p = fail(parseToolArguments(spec("bash"), '{"command": "echo hi", "command": "touch T"}'));
    expect(p.message).toMatch(/are valid JSON but name "command" more than once/);
    expect(p.message).toMatch(/nothing was run/);
    // Twice in a nested object is nobody's parameter: taken as sent.
    expect(ok(parseToolArguments(spec("write_file"), { path: "a", content: "b" }))).toEqual({ path: "a", content: "b" });
    expect(fail(parseToolArguments(spec("bash"), JSON.stringify('{"command": "a", "command": "b"}'))).message).toMatch(/more than once/);
  });

  for (const [i, { name, raw }] of SECOND_RED_TEAM_SPELLINGS.entries()) {
    it(`the second red team's "${name}" (attacks/args-spellings2.ts): the command never holds the other field's text`, () => {
      const p = parseToolArguments(spec("bash"), raw(`S${i + 1}`));
      if (p.ok) expect(String(p.args.command)).not.toMatch(/touch/);
      else expect(p.message).toMatch(/Example call: bash/);
    });
  }

  it("fuzz: 20,000 random spellings (separators, unicode, white space, comments, quotes, keys) never put the other field into the command", () => {
    let read = 0;
    for (const { name, raw } of fuzzSpellings(20_251, 20_000)) {
      const p = parseToolArguments(spec("bash"), raw("T"));
      if (!p.ok) continue;
      read++;
      expect(String(p.args.command), name).not.toMatch(/touch/);
    }
    expect(read).toBeGreaterThan(100); // some spellings are read (as `echo hi` with the other field apart), not all refused
  });

  it("a `+` before a string is refused when a repair would join the two (jsonrepair joins `\"a\" + \"b\"`)", () => {
    const p = fail(parseToolArguments(spec("bash"), '{"command": "echo hi"\t+"timeout"\uFF1A "x; touch T"}'));
    expect(p.message).toMatch(/join two strings around a `\+`/);
    // Code with `+` inside a string that the parameter-aware parser keeps whole is not touched.
    expect(ok(parseToolArguments(spec("bash"), '{"command": "python3 -c "print("a" + "b")""}'))).toEqual({
      command: 'python3 -c "print("a" + "b")"',
    });
  });

  it("a string opened by an escaped quote: all quotes escaped is read unescaped, a mix is refused (jsonrepair drops backslashes)", () => {
    expect(ok(parseToolArguments(spec("bash"), '{\\"command\\": \\"ls -la\\", \\"timeout\\": 5}'))).toEqual({ command: "ls -la", timeout: 5 });
    const p = fail(parseToolArguments(spec("bash"), '{"command": \\"echo hi\\u0022?6q "a:b"\uFF1D "x; touch T}'));
    expect(p.message).toMatch(/escaped quote/);
  });

  it("an unquoted value that jsonrepair reads as lines of words (an array) is not joined into the command", () => {
    const p = parseToolArguments(spec("bash"), '{"command": \u201Cecho hi\u201C\u200B// c\n1note: x; touch T}');
    if (p.ok) expect(String(p.args.command)).not.toMatch(/touch/);
  });

  it("valid JSON is never second-guessed: a command that holds `\", \"k\":` in real quotes runs as sent", () => {
    const command = 'echo "a", "b": 1';
    expect(ok(parseToolArguments(spec("bash"), JSON.stringify({ command })))).toEqual({ command });
  });
});

describe("repair is bounded by size", () => {
  it("broken JSON longer than INPUT.maxRepairChars is refused with what to do instead, never repaired", () => {
    // jsonrepair took 41 s on this shape at 1 MB (the red team's args-cpu.ts).
    const raw = `{"command": "echo hi` + `, "k": "v`.repeat(Math.ceil(INPUT.maxRepairChars / 4)) + `",}`;
    expect(raw.length).toBeGreaterThan(INPUT.maxRepairChars);
    const p = fail(parseToolArguments(spec("bash"), raw));
    expect(p.message).toMatch(/too long to be repaired/);
    expect(p.message).toMatch(/Send valid JSON/);
    expect(p.message).toContain("Example call: bash");
  });

  it("valid JSON of any size within the argument bound is read as it is", () => {
    const command = `echo ${"x".repeat(INPUT.maxRepairChars * 4)}`;
    expect(ok(parseToolArguments(spec("bash"), JSON.stringify({ command })))).toEqual({ command });
  });

  it("broken JSON just under the bound is still repaired", () => {
    const body = "y".repeat(INPUT.maxRepairChars - 40);
    expect(ok(parseToolArguments(spec("bash"), `{"command": "echo ${body}",}`))).toEqual({ command: `echo ${body}` });
  });
});

describe("field boundaries (tools/boundaries.ts)", () => {
  it("finds the end of one string and the start of a key in every spelling", () => {
    for (const text of [
      'echo hi" "note": "x',
      "echo hi\u201D, \u201Cnote\u201D: \u201Cx",
      'echo hi", "a""": "x',
      'echo hi", // c\n "note": "x',
      'echo hi"; "note": "x',
      'echo hi", "note" = "x',
      'echo hi"\uFF0C "note": "x',
      `echo hi", "${"k ".repeat(300)}": "x`,
      'echo hi", my note: "x',
      'echo hi" note: "x',
      'echo hi"} {"command": "x',
      // The second red team's separators and others: the principle, not a list.
      'echo hi"\u060C "note": "x',
      'echo hi"|"note": "x',
      'echo hi"~ note: "x',
      'echo hi"# note: "x',
      'echo hi"x"note": "x',
      'echo hi"\u2022 "note": "x',
      'echo hi" and "note": "x',
      'echo hi"| note: x; touch T',
      'echo hi"\u200B\u00B7\u200Bno\u200Bte: "x',
      'echo hi"|/* "note": "x; touch T" */',
      'echo hi"//* c */"note": "x',
      'echo hi&quot;, &quot;note&quot;: &quot;x',
      'echo hi\\u0022, \\u0022note\\u0022: \\u0022x',
      'echo hi\u00B4 \u00B4note\u00B4: "x',
      'print("hi", {"a": 1})',
      'x = ["a", {"b": 1}]',
    ]) {
      expect(fieldBoundary(text), text).not.toBeNull();
    }
  });

  it("leaves quotes in code alone", () => {
    for (const text of [
      "cat > blog.py <<'EOF'\nprint(\"hi\")\nx = {\"a\": 1}\nEOF",
      'python3 -c "import json; print(json.dumps({"a": 1}))"',
      '{"private": true}',
      '[ "$a" = "$b" ] && echo "same"',
      "FOO=\"a\" BAR=\"b\" make",
      "git commit -m 'fix: the parser'",
      "echo 'done'; git checkout origin:main",
      'echo "Error: not found"',
      'read -r x; echo "$x" | cut -c1-3',
      "awk '{ a = $1 }'",
      'find . -exec rm {} +"',
    ]) {
      expect(fieldBoundary(text), text).toBeNull();
    }
  });

  it("is linear: a long run of quotes, separators or comments takes one pass", () => {
    expect(fieldBoundary('" ,'.repeat(200_000))).toBeNull();
    expect(fieldBoundary(`"${" ".repeat(200_000)}`)).toBeNull();
    expect(fieldBoundary('"/*'.repeat(100_000))).toBeNull();
    expect(fieldBoundary('"//'.repeat(100_000))).toBeNull();
    expect(joinedStrings('"+/*'.repeat(100_000))).toBeNull();
    expect(joinedStrings("+".repeat(300_000))).toBeNull();
  });

  it("duplicateKey finds a key twice in one object, not in different objects or in values", () => {
    expect(duplicateKey('{"a": 1, "b": {"a": 2}, "c": "a"}')).toBeNull();
    expect(duplicateKey('{"a": 1, "b": 2, "a": 3}')).toBe("a");
    expect(duplicateKey('{"x": [{"a": 1}, {"a": 2}]}')).toBeNull();
    expect(duplicateKey('{"\\u0061": 1, "a": 2}')).toBe("a");
  });
});
