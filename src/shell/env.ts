// The shell's state carried over a respawn: bash's `export -p` output (and its $'…' quoting) parsed back into values.
import { readAnsiC } from "../lib/text.ts";

export const NOT_RESTORED = new Set(["PWD", "OLDPWD", "SHLVL", "_", "PS1", "PS2", "PS0", "PROMPT_COMMAND"]);

export function parseExportP(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const n = text.length;
  let i = 0;
  const nextLine = (from: number): number => {
    const nl = text.indexOf("\n", from);
    return nl === -1 ? n : nl + 1;
  };
  const nameRe = /[A-Za-z_][A-Za-z0-9_]*/y;
  while (i < n) {
    if (!text.startsWith("declare -", i)) {
      i = nextLine(i);
      continue;
    }
    const sp = text.indexOf(" ", i + 9);
    if (sp === -1) break;
    const flags = text.slice(i + 9, sp);
    nameRe.lastIndex = sp + 1;
    const m = nameRe.exec(text);
    if (m === null) {
      i = nextLine(sp);
      continue;
    }
    const name = m[0];
    i = sp + 1 + name.length;
    if (text[i] !== "=" || /[aA]/.test(flags)) {
      // exported without a value, or an array (not exportable): skip to the next declaration
      const next = text.indexOf("\ndeclare -", i);
      i = next === -1 ? n : next + 1;
      continue;
    }
    i++;
    let value: string;
    if (text[i] === '"') {
      // runs between escapes copied whole: one character at a time made a 64 MiB value take seconds and a rope
      const parts: string[] = [];
      i++;
      let run = i;
      while (i < n && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < n && '"\\$`'.includes(text[i + 1]!)) {
          parts.push(text.slice(run, i), text[i + 1]!);
          i += 2;
          run = i;
        } else {
          i++;
        }
      }
      parts.push(text.slice(run, i));
      i++;
      value = parts.join("");
    } else if (text.startsWith("$'", i)) {
      const r = readAnsiC(text, i + 2);
      value = r.value;
      i = r.end;
    } else {
      const end = text.indexOf("\n", i);
      value = text.slice(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    }
    out[name] = value;
    i = nextLine(i);
  }
  return out;
}

