// The embedded shell's line editor, for people and agents alike: typed characters echo, backspace, left/right,
// home/end, history up/down, C-a C-e C-u C-k C-w, C-c (drop the line), C-l (clear the screen), C-d (end the shell on
// an empty line), and bracketed paste (ESC[?2004h while reading, so a pasted block arrives as one piece; ESC[?2004l
// when the line is accepted, which also tells the session engine where the echo ends). Pure: it writes through a
// callback and reports what the shell must do.

export type EditorEvent =
  /** Enter: the line as typed (a pasted block may hold newlines). */
  | { type: "line"; text: string }
  /** C-c: the line was dropped. */
  | { type: "interrupt" }
  /** C-d on an empty line. */
  | { type: "eof" };

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Keys by escape sequence (xterm normal and application cursor modes, VT220 keypad). */
const KEYS: Record<string, string> = {
  "\x1b[A": "up",
  "\x1bOA": "up",
  "\x1b[B": "down",
  "\x1bOB": "down",
  "\x1b[C": "right",
  "\x1bOC": "right",
  "\x1b[D": "left",
  "\x1bOD": "left",
  "\x1b[H": "home",
  "\x1bOH": "home",
  "\x1b[1~": "home",
  "\x1b[7~": "home",
  "\x1b[F": "end",
  "\x1bOF": "end",
  "\x1b[4~": "end",
  "\x1b[8~": "end",
  "\x1b[3~": "delete",
};

/** Length of the escape sequence at `i`, 0 when `data` ends before it does. */
function escapeLength(data: string, i: number): number {
  if (i + 1 >= data.length) return 0;
  const second = data[i + 1];
  if (second === "[") {
    for (let j = i + 2; j < data.length; j++) {
      const c = data.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j - i + 1;
    }
    return 0;
  }
  if (second === "O") return i + 2 < data.length ? 3 : 0;
  return 2; // ESC x (Alt-x): ignored
}

export class LineEditor {
  private chars: string[] = [];
  private cursor = 0;
  private prompt = "";
  private active = false;
  private carry = "";
  private paste: string | null = null;
  private readonly history: string[] = [];
  /** Position while browsing history; history.length = the line being typed. */
  private historyIndex = 0;
  private draft = "";

  constructor(
    private readonly write: (text: string) => void,
    private readonly historySize: number,
  ) {}

  get reading(): boolean {
    return this.active;
  }

  get text(): string {
    return this.chars.join("");
  }

  getHistory(): string[] {
    return [...this.history];
  }

  setHistory(entries: readonly string[]): void {
    this.history.length = 0;
    this.history.push(...entries.slice(-this.historySize));
    this.historyIndex = this.history.length;
  }

  /** Adds a line to the history; false when it was not added (blank, or the same as the last). */
  addHistory(entry: string): boolean {
    this.historyIndex = this.history.length;
    if (entry.trim() === "" || this.history[this.history.length - 1] === entry) return false;
    this.history.push(entry);
    if (this.history.length > this.historySize) this.history.splice(0, this.history.length - this.historySize);
    this.historyIndex = this.history.length;
    return true;
  }

  /** Shows `prompt` and starts reading a line. */
  start(prompt: string): void {
    this.prompt = prompt;
    this.chars = [];
    this.cursor = 0;
    this.historyIndex = this.history.length;
    this.draft = "";
    this.active = true;
    this.write(prompt + PASTE_ON);
  }

  /**
   * Feeds keystrokes. Stops at the first event (a line, C-c, C-d) and returns it with the input after it, which the
   * shell handles once it is ready again (typed ahead).
   */
  feed(data: string): { event: EditorEvent | null; rest: string } {
    let input = this.carry + data;
    this.carry = "";
    let i = 0;
    while (i < input.length) {
      if (!this.active) return { event: null, rest: input.slice(i) };
      if (this.paste !== null) {
        const end = input.indexOf(PASTE_END, i);
        if (end === -1) {
          // keep a possible partial end marker for the next chunk
          let keep = 0;
          for (let k = Math.min(PASTE_END.length - 1, input.length - i); k > 0; k--) {
            if (PASTE_END.startsWith(input.slice(input.length - k))) {
              keep = k;
              break;
            }
          }
          this.paste += input.slice(i, input.length - keep);
          this.carry = input.slice(input.length - keep);
          return { event: null, rest: "" };
        }
        this.paste += input.slice(i, end);
        this.insert(this.paste.replace(/\r\n?/g, "\n"));
        this.paste = null;
        i = end + PASTE_END.length;
        continue;
      }
      const ch = input[i] as string;
      if (ch === "\x1b") {
        const len = escapeLength(input, i);
        if (len === 0) {
          this.carry = input.slice(i);
          return { event: null, rest: "" };
        }
        const seq = input.slice(i, i + len);
        i += len;
        if (seq === PASTE_START) {
          this.paste = "";
          continue;
        }
        this.key(KEYS[seq] ?? "");
        continue;
      }
      i++;
      const event = this.control(ch);
      if (event !== null) return { event, rest: input.slice(i) };
    }
    return { event: null, rest: "" };
  }

  private control(ch: string): EditorEvent | null {
    switch (ch) {
      case "\r":
      case "\n":
        return this.accept();
      case "\x7f":
      case "\b":
        this.backspace();
        return null;
      case "\x03":
        this.write(`^C\r\n${PASTE_OFF}`);
        this.active = false;
        return { type: "interrupt" };
      case "\x04":
        if (this.chars.length === 0) {
          this.write(PASTE_OFF);
          this.active = false;
          return { type: "eof" };
        }
        this.key("delete");
        return null;
      case "\x01":
        this.key("home");
        return null;
      case "\x05":
        this.key("end");
        return null;
      case "\x02":
        this.key("left");
        return null;
      case "\x06":
        this.key("right");
        return null;
      case "\x10":
        this.key("up");
        return null;
      case "\x0e":
        this.key("down");
        return null;
      case "\x15": // C-u: drop what is before the cursor
        this.replace(this.chars.slice(this.cursor), 0);
        return null;
      case "\x0b": // C-k: drop what is after the cursor
        this.replace(this.chars.slice(0, this.cursor), this.cursor);
        return null;
      case "\x17": {
        // C-w: drop the word before the cursor
        let j = this.cursor;
        while (j > 0 && /\s/.test(this.chars[j - 1] ?? "")) j--;
        while (j > 0 && !/\s/.test(this.chars[j - 1] ?? "")) j--;
        this.replace([...this.chars.slice(0, j), ...this.chars.slice(this.cursor)], j);
        return null;
      }
      case "\x0c": // C-l: clear the screen, keep the line
        this.write(`\x1b[H\x1b[2J${this.prompt}${this.display(this.chars)}${this.left(this.chars.length - this.cursor)}`);
        return null;
      case "\t":
        this.insert("\t");
        return null;
      default:
        if (ch.charCodeAt(0) < 0x20) return null; // other control keys: nothing
        this.insert(ch);
        return null;
    }
  }

  private accept(): EditorEvent {
    const text = this.text;
    this.write(`${this.right(this.chars.length - this.cursor)}\r\n${PASTE_OFF}`);
    this.active = false;
    return { type: "line", text };
  }

  private display(chars: readonly string[]): string {
    return chars.join("").replace(/\n/g, "\r\n");
  }

  private left(n: number): string {
    return n > 0 ? `\x1b[${n}D` : "";
  }

  private right(n: number): string {
    return n > 0 ? `\x1b[${n}C` : "";
  }

  private insert(text: string): void {
    const add = Array.from(text);
    const tail = this.chars.slice(this.cursor);
    this.chars.splice(this.cursor, 0, ...add);
    this.cursor += add.length;
    this.write(this.display(add) + this.display(tail) + this.left(tail.length));
  }

  private backspace(): void {
    if (this.cursor === 0) return;
    const tail = this.chars.slice(this.cursor);
    this.chars.splice(this.cursor - 1, 1);
    this.cursor--;
    this.write(`\b${this.display(tail)} ${this.left(tail.length + 1)}`);
  }

  /** Redraws the line as `chars` with the cursor at `cursor`. */
  private replace(chars: string[], cursor: number): void {
    const back = this.left(this.cursor);
    this.chars = chars;
    this.cursor = Math.max(0, Math.min(cursor, chars.length));
    this.write(`${back}${this.display(chars)}\x1b[K${this.left(chars.length - this.cursor)}`);
  }

  private key(name: string): void {
    switch (name) {
      case "left":
        if (this.cursor > 0) {
          this.cursor--;
          this.write("\x1b[D");
        }
        break;
      case "right":
        if (this.cursor < this.chars.length) {
          this.cursor++;
          this.write("\x1b[C");
        }
        break;
      case "home":
        this.write(this.left(this.cursor));
        this.cursor = 0;
        break;
      case "end":
        this.write(this.right(this.chars.length - this.cursor));
        this.cursor = this.chars.length;
        break;
      case "delete":
        if (this.cursor < this.chars.length) {
          const tail = this.chars.slice(this.cursor + 1);
          this.chars.splice(this.cursor, 1);
          this.write(`${this.display(tail)} ${this.left(tail.length + 1)}`);
        }
        break;
      case "up":
        if (this.historyIndex > 0) {
          if (this.historyIndex === this.history.length) this.draft = this.text;
          this.historyIndex--;
          const entry = Array.from(this.history[this.historyIndex] ?? "");
          this.replace(entry, entry.length);
        }
        break;
      case "down":
        if (this.historyIndex < this.history.length) {
          this.historyIndex++;
          const entry = Array.from(this.historyIndex === this.history.length ? this.draft : (this.history[this.historyIndex] ?? ""));
          this.replace(entry, entry.length);
        }
        break;
      default:
        break;
    }
  }
}
