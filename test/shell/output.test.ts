import { describe, expect, it } from "vitest";
import { SHELL } from "../../src/limits.ts";
import { OutputCollector, omissionNotice } from "../../src/shell/output-collector.ts";
import { EDITABLE_LINES, MAX_LINE_CHARS, TerminalTextCleaner, cleanTerminalOutput } from "../../src/shell/terminal-text.ts";
import type { CleanerOptions } from "../../src/shell/terminal-text.ts";

const clean = cleanTerminalOutput;

/** Cleans `chunks` pushed one after the other; the result must not depend on where they were cut. */
function cleanChunks(chunks: string[], options?: CleanerOptions): string {
  const c = new TerminalTextCleaner(options);
  return chunks.map((ch) => c.push(ch)).join("") + c.end();
}

describe("TerminalTextCleaner: line editing", () => {
  it("keeps only the final state of a carriage-return progress line", () => {
    expect(clean("10%\r20%\r100%\n")).toBe("100%\n");
  });

  it("moves left one column per backspace and overwrites there", () => {
    expect(clean("abc\b\bX\n")).toBe("aXc\n");
  });

  it("does not backspace past column 0", () => {
    expect(clean("ab\b\b\b\bX\n")).toBe("Xb\n");
  });

  it("turns CRLF into LF", () => {
    expect(clean("a\r\nb\r\n")).toBe("a\nb\n");
  });

  it("turns CRLF into LF when the CR and LF arrive in different chunks", () => {
    expect(cleanChunks(["a\r", "\nb"])).toBe("a\nb");
  });

  it("keeps the tail of a longer line redrawn shorter, as a terminal shows it", () => {
    expect(clean("downloading 50%\rdone\n")).toBe("doneloading 50%\n");
  });

  it("drops the tail when the redraw erases to the end of the line", () => {
    expect(clean("downloading 50%\rdone\x1b[K\n")).toBe("done\n");
    expect(clean("downloading 50%\r\x1b[2Kdone\n")).toBe("done\n");
  });

  it("treats \\v and \\f as line feeds, as terminals do", () => {
    expect(clean("a\vb\fc")).toBe("a\nb\nc");
  });

  it("keeps tabs as characters", () => {
    expect(clean("a\tb\n\t\n")).toBe("a\tb\n\t\n");
  });

  it("keeps the last line without a newline when the output has none", () => {
    expect(clean("$ ")).toBe("$ ");
    expect(clean("")).toBe("");
  });
});

describe("TerminalTextCleaner: erase in line", () => {
  it("ESC[K and ESC[0K erase from the cursor to the end", () => {
    expect(clean("abcdef\x1b[3D\x1b[K\n")).toBe("abc\n");
    expect(clean("abcdef\x1b[3D\x1b[0K\n")).toBe("abc\n");
  });

  it("ESC[1K blanks from the start through the cursor, keeping the rest in place", () => {
    expect(clean("abcdef\x1b[3D\x1b[1K\n")).toBe("    ef\n");
  });

  it("ESC[2K blanks the whole line but leaves the cursor where it was", () => {
    expect(clean("abcdef\x1b[2KX\n")).toBe("      X\n");
    expect(clean("abcdef\x1b[2K\rX\n")).toBe("X\n");
  });

  it("ESC[K past the end of the line changes nothing", () => {
    expect(clean("ab\x1b[5C\x1b[K\n")).toBe("ab\n");
  });
});

describe("TerminalTextCleaner: cursor columns", () => {
  it("ESC[nG moves to column n (1-based), ESC[G to column 1", () => {
    expect(clean("abcdef\x1b[3GX\n")).toBe("abXdef\n");
    expect(clean("abc\x1b[GX\n")).toBe("Xbc\n");
  });

  it("ESC[nC moves right over text without erasing it", () => {
    expect(clean("abcdef\r\x1b[2CX\n")).toBe("abXdef\n");
  });

  it("ESC[nC past the end pads with spaces once text is written there", () => {
    expect(clean("ab\x1b[3Cc\n")).toBe("ab   c\n");
  });

  it("ESC[nD moves left, by one without a count, and stops at column 0", () => {
    expect(clean("abcdef\x1b[2DX\n")).toBe("abcdXf\n");
    expect(clean("abc\x1b[DX\n")).toBe("abX\n");
    expect(clean("abc\x1b[99DX\n")).toBe("Xbc\n");
  });

  it("treats a count of 0 as 1, as terminals do", () => {
    expect(clean("abc\x1b[0DX\n")).toBe("abX\n");
  });
});

describe("TerminalTextCleaner: multi-line redraws", () => {
  it("redraws the lines above after ESC[nA (docker/npm multi-line progress)", () => {
    const raw =
      "layer1: Waiting\nlayer2: Waiting\n" +
      "\x1b[2A\x1b[2Klayer1: Downloading\n\x1b[2Klayer2: Waiting\n" +
      "\x1b[2A\x1b[2Klayer1: Pull complete\n\x1b[2Klayer2: Pull complete\n";
    expect(clean(raw)).toBe("layer1: Pull complete\nlayer2: Pull complete\n");
  });

  it("follows the log-update pattern (erase line, up, …, column 1) used by ink and listr", () => {
    const eraseLines2 = "\x1b[2K\x1b[1A\x1b[2K\x1b[G";
    expect(clean("⠋ build\n⠋ test" + eraseLines2 + "✔ build\n✔ test\n")).toBe("✔ build\n✔ test\n");
  });

  it("ESC[nF goes up to column 0 and ESC[nE down to column 0", () => {
    expect(clean("aaa\nbbb\nccc\x1b[2FX\x1b[1EY\n")).toBe("Xaa\nYbb\nccc");
  });

  it("ESC[nB moves down without leaving the lines drawn so far", () => {
    expect(clean("a\nb\x1b[1A\x1b[5BX\n")).toBe("a\nbX\n");
  });

  it("ESC[J erases from the cursor to the end of the screen", () => {
    expect(clean("keep\nold1\nold2\x1b[1A\r\x1b[Jnew\n")).toBe("keep\nnew\n");
  });

  it("a line feed above the bottom moves to the next drawn line instead of inserting one", () => {
    expect(clean("1\n2\n3\x1b[2A\rA\nB\n")).toBe("A\nB\n3");
  });

  it("clamps cursor-up at the oldest editable line: earlier lines are already final", () => {
    expect(cleanChunks(["1\n2\n3\n4\n\x1b[9AX"], { editableLines: 3 })).toBe("1\n2\nX\n4\n");
  });

  it("finalizes a line once it scrolls out of the editable window, not before", () => {
    const c = new TerminalTextCleaner({ editableLines: 2 });
    expect(c.push("a\n")).toBe("");
    expect(c.push("b\n")).toBe("a\n");
    expect(c.peek()).toBe("b\n");
    expect(c.push("c")).toBe("");
    expect(c.push("\n")).toBe("b\n");
    expect(c.end()).toBe("c\n");
  });

  it(`keeps the last ${EDITABLE_LINES} lines (counting the cursor's) editable by default`, () => {
    const lines = Array.from({ length: 60 }, (_, k) => `L${k}\n`);
    const c = new TerminalTextCleaner();
    expect(c.push(lines.join(""))).toBe(lines.slice(0, 60 - (EDITABLE_LINES - 1)).join(""));
    expect(c.end()).toBe(lines.slice(60 - (EDITABLE_LINES - 1)).join(""));
  });

  it("gives the same result through the many-lines fast path as line by line", () => {
    const body = Array.from({ length: 300 }, (_, k) => `row ${k}\n`).join("");
    const cases = [
      body,
      "a\nb\nc\n\x1b[3A" + body, // cursor above the bottom: the first lines overwrite
      "progress 10%\r" + body + "tail",
      "x\x1b[5C" + body,
    ];
    for (const raw of cases) {
      for (const editableLines of [1, 2, 7, EDITABLE_LINES]) {
        const oneChunk = cleanChunks([raw], { editableLines });
        expect(cleanChunks([...raw], { editableLines })).toBe(oneChunk);
      }
    }
    expect(clean(cases[1] ?? "")).toBe(body);
  });
});

describe("TerminalTextCleaner: removed sequences", () => {
  it("removes SGR colours", () => {
    expect(clean("\x1b[1;32mPASS\x1b[0m a.test.ts\x1b[m\n")).toBe("PASS a.test.ts\n");
  });

  it("removes private-mode CSI such as bracketed paste and cursor hiding", () => {
    expect(clean("\x1b[?2004h\x1b[?25l$ ls\x1b[?25h\x1b[?2004l\n")).toBe("$ ls\n");
  });

  it("removes CSI that positions or scrolls the screen, and clear-screen", () => {
    expect(clean("\x1b[2J\x1b[3J\x1b[H\x1b[5;10Hx\x1b[2;20r\x1b[Sy\x1b[6n\n")).toBe("xy\n");
  });

  it("removes an OSC 8 hyperlink and keeps its text", () => {
    expect(clean("see \x1b]8;;https://example.com/a?b=c\x1b\\the docs\x1b]8;;\x1b\\.\n")).toBe("see the docs.\n");
  });

  it("removes OSC terminated by BEL, by ST and by 8-bit ST", () => {
    expect(clean("\x1b]0;title\x07a\x1b]2;t\x1b\\b\x1b]7;file://h/p\u009cc")).toBe("abc");
  });

  it("removes OSC 654 markers that reach the cleaner", () => {
    expect(clean("ok\n\x1b]654;exit=-1:0\x07\x1b]654;prompt\x07")).toBe("ok\n");
  });

  it("removes DCS, SOS, PM and APC strings, which end only at ST", () => {
    expect(clean("a\x1bPq#0;2\x07still dcs\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_Gapc\x1b\\e")).toBe("abcde");
  });

  it("removes two-byte ESC sequences and charset designations", () => {
    expect(clean("\x1b=\x1b>\x1b7\x1b8\x1bM\x1bcx\x1b(B\x1b)0\x1b#8y\n")).toBe("xy\n");
  });

  it("drops stray C0 and C1 controls but keeps \\n and \\t", () => {
    expect(clean("a\x07b\x00c\x01d\x7fe\x0ef\u0085g\u009bh\t\n")).toBe("abcdefgh\t\n");
  });

  it("lets an ESC abort an OSC and start its own sequence", () => {
    expect(clean("\x1b]0;never ended\x1b[31mred\x1b[0m\n")).toBe("red\n");
  });

  it("lets CAN and SUB cancel a CSI", () => {
    expect(clean("a\x1b[31\x18b\x1b[2\x1aKc")).toBe("abKc");
  });

  it("shows a non-ASCII character that interrupts an escape sequence", () => {
    expect(clean("\x1bé\x1b[1€\n")).toBe("é€\n");
  });

  it("executes a control character that arrives inside a CSI", () => {
    expect(clean("abc\x1b[\r2KX\n")).toBe("X\n");
  });

  it("drops an escape sequence left unfinished at the end", () => {
    expect(clean("abc\x1b[3")).toBe("abc");
    expect(clean("abc\x1b]8;;http://x")).toBe("abc");
  });

  it("starts clean after end(): an unfinished sequence does not swallow the next command's output", () => {
    const c = new TerminalTextCleaner();
    expect(c.push("abc\x1b[") + c.end()).toBe("abc");
    expect(c.push("31mX") + c.end()).toBe("31mX");
  });

  it("ignores a CSI with absurdly long parameters instead of storing them", () => {
    expect(clean("a\x1b[" + "9".repeat(100_000) + "Db\n")).toBe("ab\n");
  });
});

describe("TerminalTextCleaner: chunking", () => {
  const raw =
    "\x1b[?2004h\x1b]0;~/p\x07$ npm i\r\n" +
    "\x1b[1G\x1b[0K⠙ reify\x1b[1G\x1b[0K⠹ idealTree\r\x1b[2K" +
    "\x1b]8;;https://x.test\x1b\\added\x1b]8;;\x1b\\ \x1b[32m3\x1b[39m packages\r\n" +
    "a\x1b[2Kb\x1b(B\x1bP+q\x1b\\c\x1b[3Dz\r\n" +
    "p1\r\np2\x1b[1A\r\x1b[2KP1\x1b[1B\r\x1b[2KP2\r\n";
  const expected = "$ npm i\nadded 3 packages\nzbc\nP1\nP2\n";

  it("cleans the sample to the expected transcript", () => {
    expect(clean(raw)).toBe(expected);
  });

  it("gives the same text for every split into two chunks (escape sequences split anywhere)", () => {
    for (let k = 0; k <= raw.length; k++) {
      expect(cleanChunks([raw.slice(0, k), raw.slice(k)])).toBe(expected);
    }
  });

  it("gives the same text one character at a time", () => {
    expect(cleanChunks([...raw])).toBe(expected);
  });

  it("emits nothing of a CSI split across pushes", () => {
    const c = new TerminalTextCleaner({ editableLines: 1 });
    expect(c.push("red \x1b[3")).toBe("");
    expect(c.push("1mtext\x1b[0m\n")).toBe("red text\n");
  });
});

describe("TerminalTextCleaner: bounded memory", () => {
  it("keeps a 200 KB line without newline intact while holding at most MAX_LINE_CHARS of it", () => {
    const line = Array.from({ length: 200_000 }, (_, k) => String.fromCharCode(97 + (k % 26))).join("");
    const c = new TerminalTextCleaner();
    let out = "";
    for (let k = 0; k < line.length; k += 65_536) {
      out += c.push(line.slice(k, k + 65_536));
      expect(c.peek().length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    }
    out += c.end();
    expect(out).toBe(line);
  });

  it("returns a later \\r to the start of the kept tail of an over-long line, as a wrapped terminal line would", () => {
    const c = new TerminalTextCleaner({ maxLineChars: 10 });
    const out = c.push("0123456789ABCDEF") + c.push("\rxy\n") + c.end();
    // 11 characters passed the cap: all but the last 5 were committed, so \r goes back to "BCDEF".
    expect(out).toBe("0123456789AxyDEF\n");
  });

  it("holds at most editableLines × maxLineChars however the 10 MB arrives", () => {
    const c = new TerminalTextCleaner({ editableLines: 4, maxLineChars: 64 });
    const unit = "\x1b[32mok\x1b[0m " + "x".repeat(90) + "\r10%\r100%\n" + "y".repeat(300) + "\n";
    const out: string[] = [];
    let units = 0;
    while (units * unit.length < 10_000_000) {
      out.push(c.push(unit.repeat(100)));
      units += 100;
      expect(c.peek().length).toBeLessThanOrEqual(4 * 64 + 3);
    }
    out.push(c.end());
    // The 93-character line passes the 64 cap: its first 61 characters are committed and \r returns to the kept
    // 32-character tail, so "100%" lands there; the y line is committed in pieces and stays whole.
    const perUnit = "ok " + "x".repeat(58) + "100%" + "x".repeat(28) + "\n" + "y".repeat(300) + "\n";
    expect(out.join("")).toBe(perUnit.repeat(units));
  });
});

describe("OutputCollector", () => {
  const spillPath = "/tmp/sandshell/out-1.log";

  it("keeps everything up to maxChars and never spills", () => {
    const spilled: string[] = [];
    const col = new OutputCollector({ maxChars: 10, onSpill: (t) => spilled.push(t) });
    col.push("abcde");
    col.push("fghij");
    expect(col.render(spillPath)).toBe("abcdefghij");
    expect(col.truncated).toBe(false);
    expect(col.totalChars).toBe(10);
    expect(spilled).toEqual([]);
  });

  it("keeps head and tail halves with the exact omission notice once past maxChars", () => {
    const col = new OutputCollector({ maxChars: 10 });
    col.push("abcdefghij");
    col.push("klmno");
    expect(col.truncated).toBe(true);
    expect(col.totalChars).toBe(15);
    expect(col.render(spillPath)).toBe(
      "abcde\n[… 5 characters omitted; full output in /tmp/sandshell/out-1.log]\nklmno",
    );
  });

  it("gives the odd character of an odd maxChars to the tail", () => {
    const col = new OutputCollector({ maxChars: 5 });
    col.push("0123456789");
    expect(col.render("/f")).toBe("01\n[… 5 characters omitted; full output in /f]\n789");
  });

  it("says only how much was omitted when no spill path is given", () => {
    const col = new OutputCollector({ maxChars: 4 });
    col.push("123456");
    expect(col.render()).toBe("12\n[… 2 characters omitted]\n56");
    expect(omissionNotice(7, "/x")).toBe("[… 7 characters omitted; full output in /x]");
  });

  it("spills everything so far in one call when the limit is first passed, then each later chunk", () => {
    const spilled: string[] = [];
    const col = new OutputCollector({ maxChars: 6, onSpill: (t) => spilled.push(t) });
    col.push("abc");
    col.push("def");
    expect(spilled).toEqual([]);
    col.push("g");
    expect(spilled).toEqual(["abcdefg"]);
    col.push("");
    col.push("hi");
    col.push("j");
    expect(spilled).toEqual(["abcdefg", "hi", "j"]);
  });

  it("never cuts a surrogate pair in half at either edge", () => {
    const col = new OutputCollector({ maxChars: 4 });
    col.push("a🙂bcd🙂"); // a, 🙂(2), b, c, d, 🙂(2): 8 code units
    const out = col.render();
    expect(out).toBe("a\n[… 5 characters omitted]\n🙂");
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it("stays within 1.5 × maxChars of memory over 10 MB in small chunks, and spills exactly the full text", () => {
    const maxChars = SHELL.maxOutputChars;
    const spilled: string[] = [];
    const col = new OutputCollector({ maxChars, onSpill: (t) => spilled.push(t) });
    const chunks: string[] = [];
    let size = 0;
    let maxRetained = 0;
    for (let k = 0; size < 10_000_000; k++) {
      const chunk = `line ${k} ${"·".repeat(k % 200)}\n`;
      chunks.push(chunk);
      size += chunk.length;
      col.push(chunk);
      maxRetained = Math.max(maxRetained, col.retainedChars);
    }
    expect(maxRetained).toBeGreaterThan(maxChars);
    expect(maxRetained).toBeLessThanOrEqual(1.5 * maxChars);
    const full = chunks.join("");
    expect(col.totalChars).toBe(full.length);
    expect(spilled.join("")).toBe(full);
    const rendered = col.render("/tmp/sandshell/out-2.log");
    const notice = omissionNotice(full.length - maxChars, "/tmp/sandshell/out-2.log");
    expect(rendered).toBe(full.slice(0, maxChars / 2) + "\n" + notice + "\n" + full.slice(-maxChars / 2));
  });

  it("stays bounded when 10 MB arrives in one push", () => {
    const col = new OutputCollector({ maxChars: 1_000 });
    const big = "0123456789".repeat(1_000_000);
    col.push(big);
    col.push("END");
    expect(col.retainedChars).toBeLessThanOrEqual(1_500);
    expect(col.render().endsWith("\n" + big.slice(-497) + "END")).toBe(true);
  });

  it("rejects a maxChars that is not a whole number", () => {
    expect(() => new OutputCollector({ maxChars: -1 })).toThrow(RangeError);
    expect(() => new OutputCollector({ maxChars: 1.5 })).toThrow(RangeError);
  });
});

describe("cleaner into collector", () => {
  it("collects the cleaned text of a progress-heavy stream exactly", () => {
    const cleaner = new TerminalTextCleaner();
    const col = new OutputCollector({ maxChars: 1_000 });
    for (let k = 0; k <= 100; k++) col.push(cleaner.push(`\r\x1b[2Kdownloading ${k}%`));
    col.push(cleaner.push("\r\n\x1b[32mdone\x1b[0m\r\n"));
    col.push(cleaner.end());
    expect(col.render()).toBe("downloading 100%\ndone\n");
  });
});
