// Text helpers every layer uses: strings of their own (not slices that keep a larger one alive), clipping for
// messages, shell quoting, bash's $'…' decoding, bytes as hex.

/**
 * The first `max` characters of `text` as a string of their own. A plain slice of a long string keeps the whole of it
 * alive in V8 (the slice points into it): 2,000 characters kept from a 5 MB argument would cost 5 MB.
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  // a new string of the head (the concatenation is flattened into fresh memory), then cut from that
  return (` ${text.slice(0, max)}`).slice(1);
}

/**
 * Copies a string that will be kept for long. Engines keep slices as views into their parent string; a 40-character
 * tail sliced from a 10 MB chunk would otherwise keep all 10 MB alive.
 */
export function detach(s: string): string {
  return s.length < 64 ? s : (" " + s).slice(1);
}

/** `text` cut to `max` characters, the last of them "…" when it was longer. */
export function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** `text` on one line (runs of white space become one space, ends trimmed), then clipped to `max` characters. */
export function clipLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

/** 1,234 B, 12.3 KB, 4.5 MB */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** 850 ms, 3.2 s, 5 min */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) {
    const s = ms / 1000;
    return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  }
  const min = ms / 60_000;
  return `${Number.isInteger(min) ? min : min.toFixed(1)} min`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : many}`;
}

/** One word quoted for bash when it needs it: `a.txt` stays, `it's` → `'it'\''s'`, `` → `''`. */
export function shellQuote(word: string): string {
  if (word === "") return "''";
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : singleQuote(word);
}

/** One word in single quotes for bash, always: `a.txt` → `'a.txt'`, `it's` → `'it'\''s'`. */
export function singleQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, e: 27, E: 27, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, "'": 39, '"': 34, "?": 63 };

/**
 * Bash's `$'…'` quoting read from `start` (just after the opening `$'`) to the closing quote: `value` decoded, `end`
 * just after the closing quote. Octal (`\NNN`, the byte's low 8 bits) and hex (`\xHH`) escapes are bytes and the
 * whole is UTF-8 decoded, as bash's output is; `\u`/`\U` are code points; `\cX` a control character; an unknown
 * escape stays as written. `untilQuote` false: to the end of `text`.
 */
export function readAnsiC(text: string, start: number, untilQuote = true): { value: string; end: number } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const pushText = (s: string): void => {
    for (const b of encoder.encode(s)) bytes.push(b);
  };
  let i = start;
  const n = text.length;
  while (i < n && !(untilQuote && text[i] === "'")) {
    const c = text[i]!;
    if (c !== "\\" || i + 1 >= n) {
      const cp = text.codePointAt(i)!;
      pushText(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = text[i + 1]!;
    if (SIMPLE_ESCAPES[e] !== undefined) {
      bytes.push(SIMPLE_ESCAPES[e]);
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

/** The body of a `$'…'` word (what stands between the quotes) decoded. */
export function decodeAnsiC(body: string): string {
  return readAnsiC(body, 0, false).value;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Bytes `start` to `end` (as subarray takes them) as lowercase hex digits. */
export function hex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = "";
  for (let i = start; i < end; i++) out += HEX[bytes[i]!]!;
  return out;
}
