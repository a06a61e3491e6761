// Terminal output inside the worker: what the shell and its commands print is buffered and posted to the page at most
// every EMBEDDED.outputFlushMs (or at once past EMBEDDED.outputFlushChars), so a loop printing line by line costs one
// message per frame, not one per line. The end of what was printed is kept, to tell an interpreter's error from `exit`.

import { EMBEDDED } from "./config.ts";
import type { Post, WorkerToHost } from "./protocol.ts";

/** What goes out with the output: the `data` message's other fields. */
export type OutputNews = Omit<Extract<WorkerToHost, { t: "data" }>, "t" | "text">;

/** How much of the end of the output `recent` keeps. */
const RECENT_CHARS = 2_000;

/** Text as a terminal wants it: every line ends in CR LF. */
export function toTerminal(text: string): string {
  return text.replace(/\x1b\]654;[^\x07\x1b]*(?:\x07|\x1b\\)?/g, "").replace(/\r?\n/g, "\r\n");
}

export class WorkerOutput {
  private buffer = "";
  private lastFlush = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The end of what was printed since `resetRecent()`. */
  recent = "";

  constructor(private readonly post: Post) {}

  emit(text: string): void {
    if (text === "") return;
    this.recent = text.length >= RECENT_CHARS ? text.slice(-RECENT_CHARS) : (this.recent + text).slice(-RECENT_CHARS);
    this.buffer += text;
    const now = Date.now();
    if (this.buffer.length >= EMBEDDED.outputFlushChars || now - this.lastFlush >= EMBEDDED.outputFlushMs) {
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.flush();
    }, EMBEDDED.outputFlushMs);
  }

  /** Posts what is buffered now, with `news` (the shell's busy state, its state after a line…). */
  flush(news?: OutputNews): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.lastFlush = Date.now();
    if (this.buffer === "" && news === undefined) return;
    const text = this.buffer;
    this.buffer = "";
    this.post({ t: "data", text, ...news });
  }

  resetRecent(): void {
    this.recent = "";
  }
}
