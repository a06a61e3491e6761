// Bracketed-paste switches in the shell's output tell when the line editor reads (on) and when it accepted a line
// (off: the echo of a pasted command is over). This splits the text stream at them, chunk-safe.

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
const PASTE_SEQ_PREFIX = "\x1b[?2004";

export class PasteSwitches {
  private carry = "";

  reset(): void {
    this.carry = "";
  }

  /**
   * Hands `text` on in order: pieces of text to `route` (a switch goes with the text before it; the cleaner drops it)
   * and each switch to `onSwitch`, right after the piece that ends with it.
   */
  push(text: string, route: (text: string) => void, onSwitch: (on: boolean) => void): void {
    let data = this.carry === "" ? text : this.carry + text;
    this.carry = "";
    if (data.indexOf("\x1b") === -1) {
      route(data);
      return;
    }
    // A switch split across chunks: hold back the tail that could begin one (at most 7 characters, from an ESC).
    const lastEsc = data.lastIndexOf("\x1b");
    if (data.length - lastEsc < PASTE_ON.length) {
      const tail = data.slice(lastEsc);
      if (PASTE_ON.startsWith(tail) || PASTE_OFF.startsWith(tail)) {
        this.carry = tail;
        data = data.slice(0, lastEsc);
      }
    }
    let from = 0;
    let i = data.indexOf(PASTE_SEQ_PREFIX);
    while (i !== -1) {
      const seq = data.slice(i, i + PASTE_ON.length);
      if (seq === PASTE_ON || seq === PASTE_OFF) {
        const end = i + PASTE_ON.length;
        route(data.slice(from, end));
        from = end;
        onSwitch(seq === PASTE_ON);
      }
      i = data.indexOf(PASTE_SEQ_PREFIX, i + 1);
    }
    route(data.slice(from));
  }
}
