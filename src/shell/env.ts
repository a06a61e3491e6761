// The shell's state carried over a respawn: bash's `export -p` output (and its $'…' quoting) parsed back into values.

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
      let v = "";
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < n && '"\\$`'.includes(text[i + 1]!)) {
          v += text[i + 1];
          i += 2;
        } else {
          v += text[i];
          i++;
        }
      }
      i++;
      value = v;
    } else if (text.startsWith("$'", i)) {
      const r = parseAnsiC(text, i + 2);
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

/** Bash's $'…' quoting, from just after the opening quote; octal and hex escapes are bytes (UTF-8 decoded). */
function parseAnsiC(text: string, start: number): { value: string; end: number } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const pushText = (s: string): void => {
    for (const b of encoder.encode(s)) bytes.push(b);
  };
  const simple: Record<string, number> = { a: 7, b: 8, e: 27, E: 27, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, "'": 39, '"': 34, "?": 63 };
  let i = start;
  const n = text.length;
  while (i < n && text[i] !== "'") {
    const c = text[i]!;
    if (c !== "\\" || i + 1 >= n) {
      const cp = text.codePointAt(i)!;
      pushText(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = text[i + 1]!;
    if (simple[e] !== undefined) {
      bytes.push(simple[e]);
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))!;
      bytes.push(parseInt(m[0], 8) & 0xff);
      i += 1 + m[0].length;
    } else if (e === "x") {
      const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 2, i + 4));
      if (m) {
        bytes.push(parseInt(m[0], 16));
        i += 2 + m[0].length;
      } else {
        pushText("\\x");
        i += 2;
      }
    } else if (e === "u" || e === "U") {
      const m = (e === "u" ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(text.slice(i + 2, i + 10));
      if (m) {
        pushText(String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff)));
        i += 2 + m[0].length;
      } else {
        pushText("\\" + e);
        i += 2;
      }
    } else if (e === "c" && i + 2 < n) {
      bytes.push(text.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      pushText("\\" + e);
      i += 2;
    }
  }
  return { value: new TextDecoder().decode(new Uint8Array(bytes)), end: i + 1 };
}

