// Commands whose effect outlasts their call and reaches every other caller of the shared shell: a function, an alias, a
// trap, an exported or special variable, a shell option, a sourced or eval'd script (which may do any of these), a
// write to a file that configures later commands, or anything done to the shell's own process: replacing it (`exec`),
// ending or stopping it, moving it to another directory, its jobs, a signal to it or any process (shell-process.ts). Under approver "host" the connected client answers approvals for its
// own calls; such a command is not its own call's business alone, so its approval goes to the sandbox's owner (the
// person at the UI, or the Node code that made the sandbox) instead (src/sandbox.ts).
//
// Every part of the command counts, not only the one the verdict names: `rm -f x; ls() { touch P; }` asks because of
// its rm, and defines a function all the same. Read with the guard's own parser and rule rows.

import { GUARD } from "../limits.ts";
import { createAnalyzer } from "../guard/language.ts";
import { LAYER3 } from "../guard/rules/layer3.ts";
import { makeEnv } from "../guard/rules/row.ts";
import { normalizePath } from "../lib/paths.ts";
import type { Policy } from "../guard/index.ts";
import { SHELL_PROCESS_ROWS } from "./shell-process.ts";

/** The guard's rows about lasting changes: shell state, risky variables, tool configuration files. */
const LASTING_ROWS = new Set(["shell-state", "environment", "config-write"]);

/** Builtins that change the shell itself (or run text in it): their effect stays after the command. */
const LASTING_BUILTINS = new Set([
  "source", ".", "eval", "exec", "set", "shopt", "unset", "export", "declare", "typeset", "readonly", "local", "alias", "unalias",
  "trap", "umask", "ulimit", "enable", "hash", "bind", "complete", "compopt", "history", "fc", "builtin", "function",
  // Builtins that set a variable of the shell by name (`read PATH`, `printf -v PATH …`).
  "read", "mapfile", "readarray", "getopts", "let",
  // The shell's positional parameters.
  "shift",
]);

/** A program's own command that writes its configuration, read by later commands (`git config core.pager …`). */
function configCommand(name: string, words: string[]): string | null {
  const [sub, verb] = words;
  if (name === "git" && words.includes("config")) {
    const readOnly = words.some((w) => /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|--show-scope|--name-only)$/.test(w) || w === "get" || w === "list");
    return readOnly ? null : "git config";
  }
  if ((name === "npm" || name === "pnpm" || name === "yarn") && (sub === "set" || (sub === "config" && verb !== "get" && verb !== "list" && verb !== "ls"))) return `${name} ${sub}`;
  if ((name === "pip" || name === "pip3") && sub === "config" && verb !== "get" && verb !== "list" && verb !== "debug") return `${name} config`;
  return null;
}

/** What makes a command's effect last: the rule row or builtin, and the part of the command. Null: nothing lasts. */
export type LastingCheck = (command: string, cwd: string) => { why: string; part: string } | null;

export async function createLastingCheck(options: { policy: Policy; workspace: string; home?: string }): Promise<LastingCheck> {
  const analyzer = await createAnalyzer();
  const workspace = normalizePath(options.workspace);
  const home = normalizePath(options.home ?? workspace);
  const rows = LAYER3.filter((r) => LASTING_ROWS.has(r.id));
  return (command, cwd) => {
    let script;
    try {
      script = analyzer.analyze(command, { cwd: cwd.startsWith("/") ? normalizePath(cwd) : workspace, home, maxNestedDepth: GUARD.maxNestedShellDepth });
    } catch {
      return { why: "the command could not be analysed", part: command };
    }
    if (script.problem !== null || script.incomplete !== null) return { why: "the command could not be analysed completely", part: command };
    // Any function definition, a nested shell's too (`bash -c 'f() { …; }'` does not last, but is not told apart here).
    if (script.functions.length > 0) return { why: "it defines a shell function", part: command };
    const env = makeEnv(script, workspace, home, options.policy);
    for (const cmd of script.commands) {
      const eff = env.effective(cmd);
      // Before builtins: `exec bash` is a wrapper peeled to `bash`, and `exec` is judged by what it does.
      const shell = SHELL_PROCESS_ROWS.find((row) => row.match(cmd, eff, env));
      if (shell !== undefined) return { why: shell.why.replace("{name}", eff.name ?? "it"), part: cmd.text };
      if (eff.name !== null && LASTING_BUILTINS.has(eff.name)) return { why: `\`${eff.name}\` changes the shell itself`, part: cmd.text };
      const words = eff.argv.slice(1).map((w) => w.value);
      if (eff.name === "printf" && words.some((w) => w.startsWith("-v"))) return { why: "`printf -v` sets a variable of the shell", part: cmd.text };
      const config = eff.name !== null ? configCommand(eff.name, words) : null;
      if (config !== null) return { why: `\`${config}\` writes configuration that later commands read`, part: cmd.text };
      for (const row of rows) {
        // `PAGER=x git log` sets the variable for that one program; `PAGER=x` alone sets it in the shell.
        if (row.id === "environment" && eff.argv.length > 0) continue;
        const m = row.match(cmd, eff, env);
        if (m) return { why: row.reason.replace("{detail}", m.detail), part: cmd.text };
      }
    }
    return null;
  };
}
