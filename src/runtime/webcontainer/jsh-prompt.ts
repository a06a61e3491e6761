// Reading jsh's drawn prompt from terminal text. jsh draws a two-line prompt: the working directory (`~/project/sub`,
// `/tmp`), then `❯ ` on the next line, in colour. jsh reports the directory only there, and a prompt drawn without
// its marker is all there is to go by when the marker is late or missing (jsh-stream.ts).
//
// The `❯` may arrive as U+FFFD (WebContainer decodes each chunk without `stream: true`), so a run of U+FFFD counts
// as the prompt's glyph too.

/** A line that is only the prompt's glyph: `❯` (or what a split UTF-8 `❯` decodes to). */
const GLYPH_LINE = /^(?:❯|\uFFFD{1,3})\s*$/;

/** Terminal text → plain lines: escape sequences dropped, CR redraws applied per line. */
export function plainLines(text: string): string[] {
  const stripped = text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "") // OSC
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "") // CSI
    .replace(/\x1b[PX^_][^\x1b]*(?:\x1b\\)?/g, "") // DCS, SOS, PM, APC strings
    .replace(/\x1b[ -/]+[0-~]/g, "") // ESC with intermediates: charsets `ESC ( B`, `ESC # 8`, …
    .replace(/\x1b[0-~]/g, "") // other two-character escapes: ESC 7/8 (cursor save/restore), ESC =/>, ESC M, …
    .replace(/\x1b$/, "")
    .replace(/\r+\n/g, "\n");
  return stripped.split("\n").map((line) => {
    const cr = line.lastIndexOf("\r");
    if (cr === -1) return line;
    const after = line.slice(cr + 1);
    return after === "" ? line.slice(0, cr).replace(/\r/g, "") : after;
  });
}

/**
 * Whether `text` ends with a drawn prompt (a glyph line), and its path line when the line above is one (`~…` or `/…`,
 * no control characters), else null.
 */
export function promptPathAtEnd(text: string): { ended: boolean; path: string | null } {
  const lines = plainLines(text);
  const last = lines[lines.length - 1] ?? "";
  if (!GLYPH_LINE.test(last.trim()) || last.trim() === "") return { ended: false, path: null };
  const above = lines.length >= 2 ? lines[lines.length - 2]!.trim() : "";
  return { ended: true, path: /^(?:~|\/)/.test(above) && !/[\x00-\x1f]/.test(above) ? above : null };
}

/** Where a prompt (path line, then a glyph line) drawn at the end of `text` begins (its leading newline), or -1. */
export function trailingPromptStart(text: string): number {
  const drawn = promptPathAtEnd(text);
  if (!drawn.ended || drawn.path === null) return -1;
  const glyphNl = text.lastIndexOf("\n");
  if (glyphNl <= 0) return -1;
  const pathNl = text.lastIndexOf("\n", glyphNl - 1);
  if (pathNl === -1) return 0;
  return pathNl > 0 && text[pathNl - 1] === "\r" ? pathNl - 1 : pathNl;
}
