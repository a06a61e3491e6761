// Raw terminal output → the text an agent should read. A terminal is a screen that programs draw on; an agent wants the
// transcript of what that screen finally showed. So instead of deleting control codes with regexes (which turns
// `10%\r20%\r100%` into `10%20%100%`), the cleaner replays them on a few editable lines, like a tiny terminal without
// colours, and hands on each line once no supported control sequence can change it any more.

import { SHELL } from "../limits.ts";
import { detach } from "../lib/text.ts";
import { EscapeParser } from "./escape-parser.ts";
import { Screen } from "./screen.ts";

/**
 * Lines, counting the cursor's, that cursor-up can still reach. Matches the 50 rows of the agent's terminal: no real
 * program can move further up than its screen. Lines scrolled out of this window are final.
 */
export const EDITABLE_LINES: number = SHELL.cleanerEditableLines;
/**
 * A line being edited longer than this is committed except for its last `maxLineChars / 2` characters, as if the
 * terminal had wrapped it: a later `\r` then returns to the start of that kept tail, not of the whole line.
 */
export const MAX_LINE_CHARS: number = SHELL.cleanerMaxLineChars;

export interface CleanerOptions {
  editableLines?: number;
  maxLineChars?: number;
  /** Size of the alternate screen full-screen programs draw on (default: the agent's terminal). */
  screenRows?: number;
  screenCols?: number;
}

/** The private modes that switch to the alternate screen (xterm: 1049, 1047, 47). */
const ALT_SCREEN = /^\?(?:[\d;]*;)?(?:1049|1047|47)(?:;[\d;]*)?$/;

// Everything the ground state cannot copy as text: C0 except \t and \n, DEL, and C1 (U+0080–U+009F).
const SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Streaming terminal-to-text cleaner. What it emulates, per line:
 * - `\n` (and `\v`, `\f`, which terminals treat alike) goes to the start of the next line; CRLF is therefore LF.
 * - `\r` returns to column 0; later text overwrites what is there and keeps the rest, as on a screen
 *   (`downloading 50%\rdone` shows `doneloading 50%`; programs add `ESC[K` when they want the tail gone).
 * - `\b` and `ESC[nD` move left, `ESC[nC` right, `ESC[nG` to a column; moving past the end pads with spaces once
 *   something is written there. `ESC[K`/`ESC[0K`/`ESC[1K`/`ESC[2K` erase as a terminal does (erased cells left of
 *   text become spaces). `ESC[0J` erases to the end of the screen.
 * - `ESC[nA`/`ESC[nB`/`ESC[nE`/`ESC[nF` move between the last EDITABLE_LINES lines (clamped there, as a terminal clamps
 *   at its top row), enough for npm/docker/listr style multi-line progress.
 * - Everything else is removed: SGR colours and other CSI (private modes too), OSC (BEL or ST), DCS/SOS/PM/APC, two-byte
 *   and charset ESC sequences, and other C0/C1 controls. `\t` is kept as a character one column wide.
 * A sequence split across push() calls is finished by the next push; nothing of it is ever emitted as text.
 * - A full-screen program's alternate screen (`ESC[?1049h` … `ESC[?1049l`) is a grid of its own (screen.ts): not a
 *   transcript, but the screen as it stands, shown once by end(), and when the program leaves it if no reply showed it.
 * Columns are UTF-16 code units: wide and combining characters are not measured, which only matters when a program
 * moves the cursor over them.
 * Memory is bounded by editableLines × maxLineChars whatever the input, plus transiently the chunk being pushed.
 */
export class TerminalTextCleaner {
  private readonly editableLines: number;
  private readonly maxLineChars: number;
  private lines: string[] = [""];
  private row = 0;
  private col = 0;
  /** The escape sequences (escape-parser.ts): what they do to the lines or the screen comes back here. */
  private readonly parser = new EscapeParser({
    control: (c) => this.control(c),
    csi: (final, params) => this.csi(final, params),
    escape: (c) => this.screen?.escape(c),
  });
  /** Finalized text of the current push(). */
  private out: string[] = [];
  /** The alternate screen, while a full-screen program shows it. */
  private screen: Screen | null = null;
  private readonly screenRows: number;
  private readonly screenCols: number;

  constructor(options: CleanerOptions = {}) {
    this.editableLines = Math.max(1, Math.floor(options.editableLines ?? EDITABLE_LINES));
    this.maxLineChars = Math.max(2, Math.floor(options.maxLineChars ?? MAX_LINE_CHARS));
    this.screenRows = Math.max(1, Math.min(500, Math.floor(options.screenRows ?? SHELL.agentRows)));
    this.screenCols = Math.max(2, Math.min(this.maxLineChars, Math.floor(options.screenCols ?? SHELL.agentCols)));
  }

  /** A full-screen program shows its alternate screen. */
  get onScreen(): boolean {
    return this.screen !== null;
  }

  /** Returns the text that became final with this chunk (possibly ""). */
  push(raw: string): string {
    const n = raw.length;
    let i = 0;
    while (i < n) {
      if (this.parser.inSequence) {
        i = this.parser.consume(raw, i);
        continue;
      }
      SPECIAL.lastIndex = i;
      const special = SPECIAL.exec(raw);
      const stop = special === null ? n : special.index;
      if (stop > i) this.plain(raw, i, stop);
      if (stop === n) break;
      this.control(raw.charCodeAt(stop));
      i = stop + 1;
    }
    // Window lines may be slices of this chunk; copy them when the chunk is much bigger than they are.
    if (n > 4096 && n > 2 * this.windowChars()) this.lines = this.lines.map(detach);
    return this.take();
  }

  /** The lines still open to edits, as they stand now (for showing progress before end()). */
  peek(): string {
    if (this.screen !== null) {
      const dirty = this.screen.dirty;
      const text = this.screen.render().slice(0, -1);
      this.screen.dirty = dirty;
      return text;
    }
    return this.lines.join("\n");
  }

  /**
   * End of output: everything left is final. Resets the cleaner, so it can serve the next command. A full-screen
   * program's screen is shown as it stands (with `always` false, only when it changed since it was last shown), and
   * stays: the program may go on drawing.
   */
  end(always = true): string {
    if (this.screen !== null) {
      if (always || this.screen.dirty) this.out.push(this.screen.render());
      return this.take();
    }
    this.out.push(this.lines.join("\n"));
    this.lines = [""];
    this.row = 0;
    this.col = 0;
    this.parser.reset();
    return this.take();
  }

  private take(): string {
    const text = this.out.join("");
    this.out = [];
    return text;
  }

  private windowChars(): number {
    let total = 0;
    for (const line of this.lines) total += line.length;
    return total;
  }

  /** Text and line feeds only. */
  private plain(s: string, start: number, end: number): void {
    const screen = this.screen;
    if (screen !== null) {
      for (let nl = s.indexOf("\n", start); nl !== -1 && nl < end; nl = s.indexOf("\n", start)) {
        screen.write(s.slice(start, nl));
        screen.control(0x0a);
        start = nl + 1;
      }
      screen.write(s.slice(start, end));
      return;
    }
    let nl = s.indexOf("\n", start);
    if (nl === -1 || nl >= end) {
      this.write(s.slice(start, end));
      return;
    }
    this.write(s.slice(start, nl));
    this.lineFeed();
    start = nl + 1;
    // Fast path: with the cursor on a fresh bottom line, all but the last `editableLines - 1` line feeds of this run
    // scroll their lines out of the window before anything could edit them, so they are final as they stand.
    if (this.row === this.lines.length - 1 && this.col === 0 && this.lines[this.row] === "") {
      let cut = end;
      let feeds = 0;
      while (feeds < this.editableLines) {
        const q = s.lastIndexOf("\n", cut - 1);
        if (q < start) break;
        cut = q;
        feeds++;
      }
      if (feeds === this.editableLines) {
        for (let j = 0; j < this.lines.length - 1; j++) this.out.push(this.lines[j] ?? "", "\n");
        this.out.push(s.slice(start, cut + 1));
        this.lines = [""];
        this.row = 0;
        start = cut + 1;
      }
    }
    while ((nl = s.indexOf("\n", start)) !== -1 && nl < end) {
      this.write(s.slice(start, nl));
      this.lineFeed();
      start = nl + 1;
    }
    if (start < end) this.write(s.slice(start, end));
  }

  /** Writes at the cursor, overwriting what is there. */
  private write(text: string): void {
    if (text === "") return;
    let line = this.lines[this.row] ?? "";
    if (this.col === line.length) line += text;
    else if (this.col > line.length) line += " ".repeat(this.col - line.length) + text;
    else line = line.slice(0, this.col) + text + line.slice(this.col + text.length);
    this.col += text.length;
    this.lines[this.row] = line;
    if (line.length > this.maxLineChars) this.commitLongLine();
  }

  private commitLongLine(): void {
    const line = this.lines[this.row] ?? "";
    const commit = line.length - Math.floor(this.maxLineChars / 2);
    // Lines above the cursor come first in the transcript, so they are committed with it.
    for (let j = 0; j < this.row; j++) this.out.push(this.lines[j] ?? "", "\n");
    this.out.push(line.slice(0, commit));
    this.lines = [detach(line.slice(commit)), ...this.lines.slice(this.row + 1)];
    this.row = 0;
    this.col = Math.max(0, this.col - commit);
  }

  private lineFeed(): void {
    this.col = 0;
    if (this.row < this.lines.length - 1) {
      this.row++;
      return;
    }
    this.lines.push("");
    this.row++;
    if (this.lines.length > this.editableLines) {
      this.out.push(this.lines.shift() ?? "", "\n");
      this.row--;
    }
  }

  /** A C0 or C1 control in the ground state (or executed inside a CSI, as terminals do). */
  private control(c: number): void {
    if (this.screen !== null && c !== 0x1b) {
      this.screen.control(c);
      return;
    }
    switch (c) {
      case 0x0a:
      case 0x0b:
      case 0x0c:
        this.lineFeed();
        break;
      case 0x0d:
        this.col = 0;
        break;
      case 0x08:
        if (this.col > 0) this.col--;
        break;
      case 0x1b:
        this.parser.begin();
        break;
      default:
        break; // BEL, NUL, DEL, C1 and the rest show nothing
    }
  }

  /** A CSI sequence (escape-parser.ts): a cursor move or an erase on the lines, or anything on the screen. */
  private csi(final: number, p: string): void {
    const first = p.charCodeAt(0);
    if (first >= 0x3c && first <= 0x3f) {
      // private (`?2004h`, `>c`, …): modes, never text; the alternate screen's switch matters
      if ((final === 0x68 || final === 0x6c) && ALT_SCREEN.test(p)) this.switchScreen(final === 0x68);
      return;
    }
    if (this.screen !== null) {
      this.screen.csi(final, p);
      return;
    }
    const semi = p.search(/[;:]/);
    const value = Number.parseInt(semi === -1 ? p : p.slice(0, semi), 10);
    const given = Number.isNaN(value) ? 0 : value;
    const count = Math.max(1, given); // 0 and missing both mean 1 for moves
    switch (final) {
      case 0x41: // A: up
        this.row = Math.max(0, this.row - count);
        break;
      case 0x42: // B: down
        this.row = Math.min(this.lines.length - 1, this.row + count);
        break;
      case 0x43: // C: right
      case 0x61: // a: HPR
        this.col = Math.min(this.maxLineChars, this.col + count);
        break;
      case 0x44: // D: left
        this.col = Math.max(0, this.col - count);
        break;
      case 0x45: // E: next line
        this.row = Math.min(this.lines.length - 1, this.row + count);
        this.col = 0;
        break;
      case 0x46: // F: previous line
        this.row = Math.max(0, this.row - count);
        this.col = 0;
        break;
      case 0x47: // G: column
      case 0x60: // `: HPA
        this.col = Math.min(this.maxLineChars, count) - 1;
        break;
      case 0x4b: // K: erase in line
        this.eraseInLine(given);
        break;
      case 0x4a: // J: erase in display; only "to the end" changes a transcript, the rest is `clear`
        if (given === 0) {
          this.eraseInLine(0);
          this.lines.length = this.row + 1;
        }
        break;
      default:
        break; // colours, scrolling, absolute positions, reports…
    }
  }

  private switchScreen(on: boolean): void {
    if (on === (this.screen !== null)) return;
    if (on) {
      // What the main screen held before is the transcript so far.
      const main = this.lines.join("\n");
      if (main !== "") this.out.push(main.endsWith("\n") ? main : `${main}\n`);
      this.lines = [""];
      this.row = 0;
      this.col = 0;
      this.screen = new Screen(this.screenRows, this.screenCols);
      return;
    }
    // Back on the main screen: the program's last screen when no reply showed it (it ran between two replies). After
    // one did, what a program does as it quits (clearing its prompt line, scrolling a message in) is not shown again.
    const screen = this.screen as Screen;
    this.screen = null;
    if (screen.unseen) this.out.push(screen.render());
  }

  private eraseInLine(mode: number): void {
    const line = this.lines[this.row] ?? "";
    if (mode === 0) {
      if (this.col < line.length) this.lines[this.row] = line.slice(0, this.col);
    } else if (mode === 1) {
      const upto = Math.min(this.col + 1, line.length);
      this.lines[this.row] = " ".repeat(upto) + line.slice(upto);
    } else if (mode === 2) {
      this.lines[this.row] = "";
    }
  }
}

/** One-shot clean of a whole transcript. */
export function cleanTerminalOutput(raw: string): string {
  const cleaner = new TerminalTextCleaner();
  return cleaner.push(raw) + cleaner.end();
}
