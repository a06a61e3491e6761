// The alternate screen of a full-screen program (vim, less, top, htop, nano): a grid of rows the program draws on with
// absolute cursor positions. A transcript cannot follow such drawing line by line (it would be a pile of `~` lines and
// status bars), so the cleaner (terminal-text.ts) hands it here and shows the screen as it stands, once, when a reply is due.
// What it emulates, after xterm: text overwrites at the cursor and wraps at the right margin; CR, LF, BS, TAB;
// cursor moves (CUU, CUD, CUF, CUB, CNL, CPL, CHA, HPA, VPA, CUP, HVP), save and restore (DECSC/DECRC, CSI s/u);
// erasing (ED, EL, ECH), inserting and deleting characters and lines (ICH, DCH, IL, DL), the scroll region (DECSTBM)
// with scrolling (SU, SD, IND, RI, NEL) and reset (RIS). Columns are UTF-16 code units, as in the cleaner.

export class Screen {
  private lines: string[];
  private row = 0;
  private col = 0;
  private top = 0;
  private bottom: number;
  /** The cursor is past the last column: the next character wraps first (xterm's deferred wrap). */
  private wrapNext = false;
  private saved = { row: 0, col: 0 };
  /** The screen changed since it was last rendered. */
  dirty = false;
  /** A reply has shown the screen. */
  private shown = false;

  constructor(
    readonly height: number,
    readonly width: number,
  ) {
    this.lines = new Array<string>(height).fill("");
    this.bottom = height - 1;
  }

  /** The screen as text: trailing spaces and empty rows at the bottom left out, ending with a newline. */
  render(): string {
    this.dirty = false;
    const rows = this.lines.map((l) => l.trimEnd());
    this.shown = true;
    while (rows.length > 0 && rows[rows.length - 1] === "") rows.pop();
    return rows.length === 0 ? "" : `${rows.join("\n")}\n`;
  }

  /** No reply has shown this screen, and it holds something. */
  get unseen(): boolean {
    return !this.shown && this.lines.some((l) => l.trim() !== "");
  }

  /** Text without controls. */
  write(text: string): void {
    let at = 0;
    while (at < text.length) {
      if (this.wrapNext) {
        this.wrapNext = false;
        this.col = 0;
        this.lineFeed();
      }
      const room = this.width - this.col;
      const piece = text.slice(at, at + room);
      const line = this.lines[this.row]!;
      const padded = line.length < this.col ? line + " ".repeat(this.col - line.length) : line;
      this.lines[this.row] = padded.slice(0, this.col) + piece + padded.slice(this.col + piece.length);
      this.dirty = true;
      at += piece.length;
      this.col += piece.length;
      if (this.col >= this.width) {
        this.col = this.width - 1;
        this.wrapNext = true;
      }
    }
  }

  /** A C0 control. */
  control(c: number): void {
    switch (c) {
      case 0x0a:
      case 0x0b:
      case 0x0c:
        this.lineFeed();
        break;
      case 0x0d:
        this.moveTo(this.row, 0);
        break;
      case 0x08:
        this.moveTo(this.row, this.col - 1);
        break;
      case 0x09:
        this.moveTo(this.row, Math.min(this.width - 1, (Math.floor(this.col / 8) + 1) * 8));
        break;
      default:
        break;
    }
  }

  /** The final byte of a two-character escape sequence (ESC D, ESC M, ESC E, ESC 7, ESC 8, ESC c). */
  escape(c: number): void {
    switch (c) {
      case 0x44: // D: index
        this.lineFeed();
        break;
      case 0x45: // E: next line
        this.moveTo(this.row, 0);
        this.lineFeed();
        break;
      case 0x4d: // M: reverse index
        if (this.row === this.top) this.scrollDown(1);
        else this.moveTo(this.row - 1, this.col);
        break;
      case 0x37: // 7: save the cursor
        this.saved = { row: this.row, col: this.col };
        break;
      case 0x38: // 8: restore it
        this.moveTo(this.saved.row, this.saved.col);
        break;
      case 0x63: // c: reset
        this.lines.fill("");
        this.dirty = true;
        this.top = 0;
        this.bottom = this.height - 1;
        this.moveTo(0, 0);
        break;
      default:
        break;
    }
  }

  /** A CSI sequence without private marker: `params` as written (`12;4`), `final` its final byte. */
  csi(final: number, params: string): void {
    const p = params === "" ? [] : params.split(/[;:]/).map((v) => Number.parseInt(v, 10));
    const arg = (i: number, fallback: number): number => {
      const v = p[i];
      return v === undefined || Number.isNaN(v) || v === 0 ? fallback : v;
    };
    const n = arg(0, 1);
    switch (final) {
      case 0x41: // A
        this.moveTo(Math.max(this.row >= this.top ? this.top : 0, this.row - n), this.col);
        break;
      case 0x42: // B
        this.moveTo(Math.min(this.row <= this.bottom ? this.bottom : this.height - 1, this.row + n), this.col);
        break;
      case 0x43: // C
      case 0x61: // a
        this.moveTo(this.row, this.col + n);
        break;
      case 0x44: // D
        this.moveTo(this.row, this.col - n);
        break;
      case 0x45: // E
        this.moveTo(this.row + n, 0);
        break;
      case 0x46: // F
        this.moveTo(this.row - n, 0);
        break;
      case 0x47: // G
      case 0x60: // `
        this.moveTo(this.row, n - 1);
        break;
      case 0x64: // d
        this.moveTo(n - 1, this.col);
        break;
      case 0x48: // H
      case 0x66: // f
        this.moveTo(n - 1, arg(1, 1) - 1);
        break;
      case 0x4a: // J
        this.eraseDisplay(Number.isNaN(p[0] ?? 0) ? 0 : (p[0] ?? 0));
        break;
      case 0x4b: // K
        this.eraseLine(Number.isNaN(p[0] ?? 0) ? 0 : (p[0] ?? 0));
        break;
      case 0x58: // X: erase characters
        this.replace(this.col, n, " ".repeat(Math.min(n, this.width - this.col)));
        break;
      case 0x40: // @: insert blanks
        this.edit((line) => (line.slice(0, this.col) + " ".repeat(n) + line.slice(this.col)).slice(0, this.width));
        break;
      case 0x50: // P: delete characters
        this.edit((line) => line.slice(0, this.col) + line.slice(this.col + n));
        break;
      case 0x4c: // L: insert lines
        if (this.row >= this.top && this.row <= this.bottom) this.shift(this.row, this.bottom, -n);
        break;
      case 0x4d: // M: delete lines
        if (this.row >= this.top && this.row <= this.bottom) this.shift(this.row, this.bottom, n);
        break;
      case 0x53: // S: scroll up
        this.shift(this.top, this.bottom, n);
        break;
      case 0x54: // T: scroll down
        this.scrollDown(n);
        break;
      case 0x72: {
        // r: scroll region
        const top = arg(0, 1) - 1;
        const bottom = Math.min(this.height, arg(1, this.height)) - 1;
        if (top < bottom) {
          this.top = top;
          this.bottom = bottom;
          this.moveTo(0, 0);
        }
        break;
      }
      case 0x73: // s
        this.saved = { row: this.row, col: this.col };
        break;
      case 0x75: // u
        this.moveTo(this.saved.row, this.saved.col);
        break;
      default:
        break; // colours, modes, reports
    }
  }

  private moveTo(row: number, col: number): void {
    this.row = Math.max(0, Math.min(this.height - 1, row));
    this.col = Math.max(0, Math.min(this.width - 1, col));
    this.wrapNext = false;
  }

  private lineFeed(): void {
    this.wrapNext = false;
    if (this.row === this.bottom) this.shift(this.top, this.bottom, 1);
    else if (this.row < this.height - 1) this.row++;
  }

  private scrollDown(n: number): void {
    this.shift(this.top, this.bottom, -n);
  }

  /** Moves rows from..to up by `n` (down for a negative n); rows that come in are blank. */
  private shift(from: number, to: number, n: number): void {
    const span = to - from + 1;
    const k = Math.min(Math.abs(n), span);
    const region = this.lines.slice(from, to + 1);
    const blank = new Array<string>(k).fill("");
    const moved = n > 0 ? [...region.slice(k), ...blank] : [...blank, ...region.slice(0, span - k)];
    this.lines.splice(from, span, ...moved);
    this.dirty = true;
  }

  private eraseDisplay(mode: number): void {
    if (mode === 0) {
      this.eraseLine(0);
      for (let r = this.row + 1; r < this.height; r++) this.lines[r] = "";
    } else if (mode === 1) {
      this.eraseLine(1);
      for (let r = 0; r < this.row; r++) this.lines[r] = "";
    } else {
      this.lines.fill("");
    }
    this.dirty = true;
  }

  private eraseLine(mode: number): void {
    if (mode === 0) this.edit((line) => line.slice(0, this.col));
    else if (mode === 1) this.replace(0, this.col + 1, " ".repeat(this.col + 1));
    else this.lines[this.row] = "";
    this.dirty = true;
  }

  private replace(at: number, count: number, text: string): void {
    this.edit((line) => {
      const padded = line.length < at ? line + " ".repeat(at - line.length) : line;
      return padded.slice(0, at) + text + padded.slice(at + count);
    });
  }

  private edit(change: (line: string) => string): void {
    this.wrapNext = false;
    this.lines[this.row] = change(this.lines[this.row]!);
    this.dirty = true;
  }
}
