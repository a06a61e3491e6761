// Full-screen programs (vim, less, top) draw on the alternate screen with absolute cursor positions: a reply shows that
// screen as it stands, once, instead of a transcript of every redraw.

import { describe, expect, it } from "vitest";
import { TerminalTextCleaner } from "../../src/shell/terminal-text.ts";
import { Screen } from "../../src/shell/screen.ts";

const ESC = "\x1b";
const at = (row: number, col: number): string => `${ESC}[${row};${col}H`;

/** What vim draws for a two-line file on a 10-row screen. */
function vimScreen(): string {
  let s = `${ESC}[?1049h${ESC}[22;0;0t${ESC}[?1h${ESC}=${ESC}[H${ESC}[2J`;
  s += `${at(1, 1)}line one${at(2, 1)}line two`;
  for (let r = 3; r <= 9; r++) s += `${at(r, 1)}${ESC}[94m~${ESC}[m${" ".repeat(30)}`;
  s += `${at(10, 1)}"x.txt" 2L, 18B${at(10, 30)}1,1${ESC}[11CAll${at(1, 1)}${ESC}[?25h`;
  return s;
}

describe("the alternate screen", () => {
  it("a full-screen program's output is its screen, shown once when the reply is due, not a pile of `~` lines", () => {
    const c = new TerminalTextCleaner({ screenRows: 10, screenCols: 60 });
    expect(c.push("$ vim x.txt\n")).toBe("");
    expect(c.push(vimScreen())).toBe("$ vim x.txt\n"); // the transcript before the screen is final
    const screen = c.end(false);
    expect(screen).toBe(`line one\nline two\n${"~\n".repeat(7)}"x.txt" 2L, 18B              1,1           All\n`);
    // nothing changed since: the next reply while it runs shows nothing new
    expect(c.push(`${at(1, 1)}${ESC}[?25h`)).toBe("");
    expect(c.end(false)).toBe("");
    // a change is shown, as the whole screen; the end of the command shows it as it stands
    c.push(`${at(10, 1)}${ESC}[K-- INSERT --`);
    expect(c.end(false).split("\n").at(-2)).toBe("-- INSERT --");
    expect(c.end(true)).toContain("line one\nline two\n");
  });

  it("leaving the screen adds nothing a reply showed; a program that ran between two replies shows its last screen", () => {
    const shown = new TerminalTextCleaner({ screenRows: 10, screenCols: 60 });
    shown.push(vimScreen());
    shown.end(false);
    expect(shown.push(`${at(10, 1)}:wq\r"x.txt" 3L written\r\r\n${ESC}[?1049l`) + shown.end()).toBe("");
    const quick = new TerminalTextCleaner({ screenRows: 10, screenCols: 60 });
    expect(quick.push(`${vimScreen()}${ESC}[?1049lafter\n`) + quick.end()).toMatch(/^line one\nline two\n(~\n){7}"x\.txt".*\nafter\n$/);
  });

  it("scroll regions, inserted and deleted lines, erasing and wrapping act as on xterm", () => {
    const s = new Screen(5, 10);
    for (const [i, line] of ["1", "2", "3", "4", "5"].entries()) {
      if (i > 0) s.control(0x0d), s.control(0x0a);
      s.write(line);
    }
    s.csi(0x72, "2;4"); // region rows 2-4
    s.csi(0x48, "2;1");
    s.csi(0x4c, "1"); // insert a line at row 2: 4 falls out of the region, 5 stays
    expect(s.render()).toBe("1\n\n2\n3\n5\n");
    s.csi(0x4d, "2"); // delete two lines at row 2
    expect(s.render()).toBe("1\n3\n\n\n5\n");
    s.csi(0x48, "4;1");
    s.escape(0x44); // index at the region's bottom scrolls the region
    s.write("x");
    expect(s.render()).toBe("1\n\n\nx\n5\n");
    s.csi(0x72, "");
    s.csi(0x48, "1;8");
    s.write("abcdef"); // wraps at the right margin
    expect(s.render().split("\n").slice(0, 2)).toEqual(["1      abc", "def"]);
    s.csi(0x48, "1;3");
    s.csi(0x4b, "0");
    s.csi(0x4a, "2");
    expect(s.render()).toBe("");
  });

  it("a hostile screen stream stays bounded: cursor positions clamp to the screen", () => {
    const c = new TerminalTextCleaner({ screenRows: 4, screenCols: 8 });
    c.push(`${ESC}[?1049h${at(999999, 999999)}xyz${at(-5, 0)}${ESC}[99999L${ESC}[99999@ab`);
    const out = c.end();
    expect(out.split("\n").length).toBeLessThanOrEqual(5);
    for (const line of out.split("\n")) expect(line.length).toBeLessThanOrEqual(8);
  });
});
