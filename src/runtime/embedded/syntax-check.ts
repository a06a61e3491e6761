// `bash -n [-c TEXT | FILE]` (and `sh -n`), which just-bash does not know: the command line's rewrite (transform.ts)
// turns it into `__sandshell_syntax ARGS…`, which parses what bash would run, says whether it parses, and runs nothing.

import { literalText, type ScriptNode, type SimpleCommandNode } from "./ast.ts";

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** What the custom command gets of just-bash's command context. */
export interface SyntaxCheckContext {
  fs: { readFile(path: string): Promise<string> };
  cwd: string;
  stdin: unknown;
}

export async function syntaxCheck(args: string[], ctx: SyntaxCheckContext, parse: (text: string) => ScriptNode): Promise<CommandResult> {
  let text: string | null = null;
  let where = "bash";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-c") {
      text = args[i + 1] ?? "";
      if (args[i + 1] === undefined) return { stdout: "", stderr: "bash: -c: option requires an argument\n", exitCode: 2 };
      break;
    }
    if (a === "-o") {
      i++;
      continue;
    }
    if (a.startsWith("-") && a !== "-" && a !== "--") continue;
    const file = a === "--" ? args[i + 1] : a;
    if (file === undefined) break;
    where = file;
    const path = file.startsWith("/") ? file : `${ctx.cwd.replace(/\/$/, "")}/${file}`;
    try {
      text = await ctx.fs.readFile(path);
    } catch {
      return { stdout: "", stderr: `bash: ${file}: No such file or directory\n`, exitCode: 127 };
    }
    break;
  }
  // stdin is bytes, one per character (just-bash's ByteString)
  text ??= new TextDecoder().decode(Uint8Array.from(String(ctx.stdin), (c) => c.charCodeAt(0)));
  try {
    parse(text.startsWith("#!") ? text.slice(text.indexOf("\n") + 1 || text.length) : text);
    return { stdout: "", stderr: "", exitCode: 0 };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { stdout: "", stderr: `${where}: ${message}\n`, exitCode: 2 };
  }
}

/** `bash -n …` / `sh -n …` (also `-ne`, `-o noexec`): check the syntax only. */
export function syntaxOnly(c: SimpleCommandNode): boolean {
  const name = literalText(c.name);
  if (name !== "bash" && name !== "sh") return false;
  for (let i = 0; i < c.args.length; i++) {
    const text = literalText(c.args[i]);
    if (text === null || !text.startsWith("-") || text === "-" || text === "--") return false;
    if (/^-[a-z]*n[a-z]*$/.test(text)) return true;
    if (text === "-o" && literalText(c.args[i + 1]) === "noexec") return true;
  }
  return false;
}
