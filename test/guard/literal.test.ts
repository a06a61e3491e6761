// The Python/JSON-literal matrix: the heuristic cases of OpenHands' test_literal_arg_guard.py, then the guard-level
// behaviour (structured deny with an actionable hint, before anything reaches a shell).
import { describe, expect, it } from "vitest";
import { looksLikePythonLiteralArgument } from "../../src/guard/index.ts";
import { guardFor } from "./helpers.ts";

const LITERALS: [string, string][] = [
  ["[['col1', 'col2'], ['col1', 'col2']]", "nested list literal"],
  ["[{'default': {'ENGINE': 'django.db.backends.sqlite3'}}, ['django.contrib.auth']]", "list literal"],
  ['["field.column]\\n\\nwith connection.schema_editor() ..."]', "list literal"],
  ['{"key": "value"}', "dict literal"],
  ["{'key': 'value'}", "dict literal"],
  ["   [{'a': 1}]", "list literal"],
  ['\t["x"]', "list literal"],
];

const NOT_LITERALS = [
  "[ -f /tmp/foo ]",
  "[ -d /workspace ]",
  '[[ "$x" = "y" ]]',
  "[[ -z $VAR ]]",
  "{ ls; echo done; }",
  "ls -la",
  "python -c 'print(1)'",
  "echo '[1, 2, 3]'",
  'curl -d \'{"a": 1}\' http://x',
  "",
  "[",
  "{",
  " ",
];

describe("looksLikePythonLiteralArgument", () => {
  it.each(LITERALS)("flags %j as a %s", (command, kind) => {
    expect(looksLikePythonLiteralArgument(command)).toBe(kind);
  });

  it.each(NOT_LITERALS)("leaves real bash %j alone", (command) => {
    expect(looksLikePythonLiteralArgument(command)).toBeNull();
  });

  it("flags `[[` only when a non-space follows it", () => {
    expect(looksLikePythonLiteralArgument("[[1, 2]]")).toBe("nested list literal");
    expect(looksLikePythonLiteralArgument("[[ 1 ]]")).toBeNull();
    expect(looksLikePythonLiteralArgument("[[\t-n x ]]")).toBeNull();
    expect(looksLikePythonLiteralArgument("[[")).toBeNull();
  });
});

describe("the literal-argument verdict", () => {
  it("denies at layer 0 with the kind and the head of the command, before parsing", async () => {
    const v = (await guardFor()).check("[{'default': {'ENGINE': 'sqlite3'}}]");
    expect(v).toMatchObject({ decision: "deny", layer: 0, rule: "literal-argument" });
    expect(v.reason).toContain("list literal");
    expect(v.reason).toContain(`"[{'default': {'ENGINE': 'sqlite3'}}]"`);
  });

  it("names both ways out: a file written with write_file and run, or a quoted heredoc", async () => {
    const v = (await guardFor()).check('{"key": "value"}');
    expect(v.hint).toContain("write_file");
    expect(v.hint).toContain("node /tmp/run.js");
    expect(v.hint).toContain("python3 /tmp/run.py");
    expect(v.hint).toMatch(/heredoc/);
    expect(v.hint).toContain("<<'EOF'");
  });

  it("shows at most the first 80 characters of a long literal", async () => {
    const long = "[" + JSON.stringify("x".repeat(500)) + "]";
    const v = (await guardFor()).check(long);
    expect(v.reason).toContain(JSON.stringify(long.slice(0, 80)));
    expect(v.reason).not.toContain(long.slice(0, 81));
  });

  it("lets a bash test through to the parser and the rules", async () => {
    const v = (await guardFor()).check("[ -f /tmp/foo ]");
    expect(v.rule).not.toBe("literal-argument");
    expect(v.decision).toBe("allow");
  });

  it("does not flag a literal quoted as an argument", async () => {
    const v = (await guardFor()).check("echo '[1, 2]'");
    expect(v.decision).toBe("allow");
  });
});
