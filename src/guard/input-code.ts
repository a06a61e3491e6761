// Programs that run the text they read on stdin as code, besides shells and interpreters reading their
// program from stdin: `sed e` and `s///e` run the pattern space, `awk '{system($0)}'` and `print | "sh"`
// run each line, `sed -f -`, `awk -f -` and `make -f -` read their script from stdin, and `xargs sh -c`
// (or `xargs -I{} sh -c '… {} …'`) makes the input the shell's code. Fed by a download they are
// download-exec; fed by anything else the guard cannot read, they are `| sh`.

import { parseArgs } from "./argv.ts";
import { inlineCode, programFileSource, SHELLS } from "./interpreters.ts";
import type { Effective } from "./wrappers.ts";
import { DYN } from "./facts.ts";
import { parseSed } from "./sed.ts";

/** Why the program runs what it reads on stdin as code, or null (worked out once per command). */
export function runsInput(eff: Effective): string | null {
  if (eff.runsInput !== undefined) return eff.runsInput;
  return (eff.runsInput = findRunsInput(eff));
}

function findRunsInput(eff: Effective): string | null {
  const n = eff.name;
  if (n === null) return null;
  const args = eff.argv.slice(1);
  if (eff.stdinArgs && SHELLS.has(n)) {
    // `xargs sh -c` (the first input word is the code), `xargs -I{} sh -c 'echo {}'` (the input is pasted into it).
    const code = inlineCode(eff);
    if (args.some((w) => /^-[a-zA-Z]*c/.test(w.value)) && (code === null || (eff.replace !== undefined && eff.replace !== "" && code.value.includes(eff.replace)))) {
      return `xargs makes its input the code of ${n} -c`;
    }
  }
  if (n === "sed" || n === "gsed") {
    const p = parseArgs(args, "efl", ["expression", "file", "line-length"]);
    const file = p.values.get("f") ?? p.values.get("file");
    if (file && programFileSource(file) === "stdin") return "sed reads its script from stdin";
    const scripts = [...(p.values.has("e") || p.values.has("expression") ? [p.values.get("e") ?? p.values.get("expression")] : file ? [] : [p.operands[0]])];
    for (const w of scripts) {
      if (!w || w.value.includes(DYN)) continue;
      const parsed = parseSed(w.value);
      if (parsed.ok && parsed.script.runsInput) return "sed's `e` runs each input line as a shell command";
    }
    return null;
  }
  if (n === "awk" || n === "gawk" || n === "mawk" || n === "nawk") {
    const p = parseArgs(args, "fvF", ["file", "assign", "field-separator"]);
    const file = p.values.get("f") ?? p.values.get("file");
    if (file) return programFileSource(file) === "stdin" ? "awk reads its program from stdin" : null;
    const program = p.operands[0]?.value ?? "";
    // system() of something other than a string literal, or a print piped to a shell.
    if (/\bsystem\s*\(\s*[^"\s)]/.test(program) || /\|\s*"\s*(?:\/\S*\/)?(?:ba|da|z|k)?sh\b/.test(program)) return "awk runs its input through a shell";
    return null;
  }
  if (n === "make" || n === "gmake") {
    const p = parseArgs(args, "fCIjloW", ["file", "makefile", "directory", "include-dir", "jobs", "load-average", "old-file", "what-if"]);
    const file = p.values.get("f") ?? p.values.get("file") ?? p.values.get("makefile");
    return file && programFileSource(file) === "stdin" ? "make reads its makefile from stdin" : null;
  }
  return null;
}
