// Layer 0: the shape of the input itself, before any command is judged. These rows are checked on the
// whole text, not per command; their rows still carry examples so that tests and README come from here.

import { GUARD } from "../../limits.ts";
import type { RuleRow } from "./row.ts";

export type Layer0Row = Omit<RuleRow, "match">;

export const LITERAL_HINT =
  "Put the code in a file with write_file and run it (`node /tmp/run.js`, `python3 /tmp/run.py`), " +
  "or pass it to the interpreter in a quoted heredoc: python3 - <<'EOF' … EOF.";

export const LAYER0: Layer0Row[] = [
  {
    id: "literal-argument",
    layer: 0,
    decision: "deny",
    title: "A Python/JSON literal instead of a command",
    reason: "The command looks like a Python/JSON {detail}, not a shell command. It starts with: {head}",
    hint: LITERAL_HINT,
    examples: ["[{'default': {'ENGINE': 'sqlite3'}}]", "[['col1', 'col2']]", '{"key": "value"}', "{'key': 'value'}", '  ["x"]'],
    nearMisses: ["[ -f x ]", '[[ -z "$a" ]]', "{ ls; }", "echo '[1, 2]'", "curl -d '{\"a\":1}' http://x"],
  },
  {
    id: "syntax-error",
    layer: 0,
    decision: "deny",
    title: "Commands the parser cannot parse (fail closed)",
    reason: "The command does not parse at line {line}, column {column}: {detail}.",
    hint: "Fix the syntax and send it again; for multi-line code, write it to a file with write_file and run the file.",
    examples: ["echo 'oops", "echo ok &&", "ls |", "cat <<'EOF'\nabc", "cat <<'EOF'\nabc\n EOF", "if true; then ls", "echo $(ls", "echo a )"],
    nearMisses: ["echo 'ok'", "cat <<'EOF'\nabc\nEOF", "ls | wc -l", "if true; then ls; fi"],
  },
  {
    id: "empty-command",
    layer: 0,
    decision: "deny",
    title: "An empty command",
    reason: "The command is empty.",
    hint: "Send a command. To wait for more output of a running command, send is_input with an empty command.",
    examples: ["", "   ", "\n\t"],
    nearMisses: ["true", ":"],
  },
  {
    id: "invalid-input",
    layer: 0,
    decision: "deny",
    title: "Input no shell can take (not a string, NUL bytes, lone surrogates, too large)",
    reason: "The command is not valid input: {detail}.",
    hint: "Send the command as a plain UTF-8 string.",
    examples: ["echo a\u0000b", "echo \ud800"],
    nearMisses: ["echo 'a b'", "echo \u00e9\u{1F600}"],
  },
  {
    id: "control-character",
    layer: 0,
    decision: "deny",
    title: "Control characters other than newline and tab (what is checked is what runs)",
    reason: "The command contains {detail} at character {at}; a terminal would act on it, so the shell would not run the text that was checked.",
    hint:
      "Send plain text: separate commands with newlines, not carriage returns; to put a control character in data, " +
      "write it as $'\\r' or printf '\\033', or write the data to a file with write_file.",
    examples: ["# note\rcurl x | sh", "ls\r\n", "echo a\u001b[200~b", "echo a\u0015rm -rf x", "echo \u007f", "echo \u0085", "ls\u0008"],
    nearMisses: ["echo a\tb", "ls\npwd", "printf '\\r'", "echo $'\\033[1m'"],
  },
  {
    id: "too-complex",
    layer: 0,
    decision: "deny",
    title: "Code nested too deep to check (fail closed)",
    reason: "The command could not be checked completely: {detail}.",
    hint: "Write the code to a file with write_file and run the file.",
    // Each `eval` re-parses its arguments: one level of nesting each.
    examples: ["eval ".repeat(GUARD.maxNestedShellDepth + 2) + "echo hi"],
    nearMisses: ["bash -c \"bash -c 'echo hi'\"", "eval eval echo hi"],
  },
];
