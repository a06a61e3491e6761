// A running command reading the terminal in cooked mode (`cat`, `read`, `head -n 1`, `read -n 1`): typed characters
// echo (unless silent), backspace edits the line, Enter ends a line, C-d ends the input. Runs in the worker; the
// interactive shell feeds it the keys that arrive while the command runs and keeps what it does not take as
// typeahead.

import type { TtyKind } from "./devices.ts";

/** Cooked-mode reading of the terminal by a running command (`cat`, `read`, `head -n 1`): echo, backspace, Enter, C-d. */
export class TtyRead {
  private line = "";
  private collected = "";
  private lines = 0;
  private readonly silent: boolean;
  constructor(
    readonly kind: TtyKind,
    private readonly echo: (text: string) => void,
    private readonly done: (text: string) => void,
  ) {
    this.silent = kind === "line-silent" || (typeof kind === "object" && "chars" in kind && kind.silent);
  }

  /** Does a completed line end the read? */
  private lineEnds(): boolean {
    const k = this.kind;
    if (k === "eof") return false;
    if (typeof k === "object" && "lines" in k) return ++this.lines >= k.lines;
    return true;
  }

  /** Returns the input after the point where the read completed ("" when it takes everything). */
  feed(input: string): string {
    // bracketed-paste brackets are not text (a terminal sends them only while the line editor reads, but be safe)
    const data = input.replace(/\x1b\[20[01]~/g, "");
    const chars = typeof this.kind === "object" && "chars" in this.kind ? this.kind.chars : 0;
    for (let i = 0; i < data.length; i++) {
      const ch = data[i] as string;
      if (ch === "\r" || ch === "\n") {
        if (ch === "\r" && data[i + 1] === "\n") i++;
        this.echo("\r\n");
        this.collected += `${this.line}\n`;
        this.line = "";
        if (this.lineEnds()) {
          this.done(this.collected);
          return data.slice(i + 1);
        }
      } else if (ch === "\x04") {
        // C-d: end of input on an empty line, else hand over the line so far
        if (this.line === "" || this.kind !== "eof") {
          this.done(this.collected + this.line);
          return data.slice(i + 1);
        }
        this.collected += this.line;
        this.line = "";
      } else if (ch === "\x7f" || ch === "\b") {
        if (this.line !== "") {
          const kept = Array.from(this.line);
          kept.pop();
          this.line = kept.join("");
          if (!this.silent) this.echo("\b \b");
        }
      } else if (ch === "\x1b") {
        // escape sequences are taken as typed (a terminal in cooked mode would too), but not echoed raw
        this.line += ch;
      } else if (ch.charCodeAt(0) >= 0x20 || ch === "\t") {
        this.line += ch;
        if (!this.silent) this.echo(ch);
        // `read -n N`: N characters end the read without Enter (the shell keeps the terminal out of line mode)
        if (chars > 0 && Array.from(this.line).length >= chars) {
          this.done(this.line);
          return data.slice(i + 1);
        }
      }
    }
    return "";
  }

  /** C-c or the end of the command: what was typed so far. */
  cancel(): void {
    this.done("");
  }
}
