// Shapes the output of the agent's `jsh --osc` so that the session engine sees what it sees from bash: the markers
// jsh prints (`interactive`, `prompt`, `exit=A:B`, maybe `pid=N`) pass unchanged, and three facts jsh does not mark
// are added, computed from the stream itself:
//
//   start=jsh     after the newline that ends the echo of an Enter typed at the prompt. The session cuts the echo
//                 there (instead of guessing it from the command text) and learns when a person's command runs.
//   cwd=jsh:PATH  before each `prompt`, from the prompt's first line (`~/project/sub`, then `❯ ` on the next line):
//                 jsh keeps `cd` but reports the directory only in its prompt.
//   exit=jsh:130  before a `prompt` that ends a command interrupted with C-c when jsh printed no `exit` marker for
//                 it (whether it does is not known): without one the session would not take the prompt as the end.
//   prompt        held back, when it comes before the prompt's text, until that text (up to `❯`) has passed, at most
//                 WEBCONTAINER.promptHoldMs: the session then never types into a half-drawn prompt, and the `cwd`
//                 marker can precede it. When the text comes first, nothing is held.
//
// jsh's marker order is not documented (see shared/research/webcontainer-and-jsh.md §3); both orders are handled.
// Markers may be split across chunks; a chunk may hold several. Text is passed on as soon as it is known not to
// belong to a marker. The `❯` may arrive as U+FFFD (WebContainer decodes each chunk without `stream: true`), so a
// run of U+FFFD counts as the prompt's glyph too.

import { SHELL } from "../../limits.ts";

const PREFIX = "\x1b]654;";
const BEL = "\x07";
const MAX_MARKER_CHARS = SHELL.markerMaxChars;
const TAIL_CHARS = 2_048;
/** A line that is only the prompt's glyph: `❯` (or what a split UTF-8 `❯` decodes to). */
const GLYPH_LINE = /^(?:❯|\uFFFD{1,3})\s*$/;

export function marker(payload: string): string {
  return PREFIX + payload + BEL;
}

/** Terminal text → plain lines: escape sequences dropped, CR redraws applied per line. */
export function plainLines(text: string): string[] {
  const stripped = text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "") // OSC
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "") // CSI
    .replace(/\x1b[@-Z\\-_]/g, "") // other two-character escapes
    .replace(/\r+\n/g, "\n");
  return stripped.split("\n").map((line) => {
    const cr = line.lastIndexOf("\r");
    if (cr === -1) return line;
    const after = line.slice(cr + 1);
    return after === "" ? line.slice(0, cr).replace(/\r/g, "") : after;
  });
}

/** The prompt's path line when `text` ends with a drawn prompt (path line, then a glyph line), else undefined. */
export function promptPathAtEnd(text: string): { ended: boolean; path: string | null } {
  const lines = plainLines(text);
  const last = lines[lines.length - 1] ?? "";
  if (!GLYPH_LINE.test(last.trim()) || last.trim() === "") return { ended: false, path: null };
  const above = lines.length >= 2 ? lines[lines.length - 2]!.trim() : "";
  return { ended: true, path: /^(?:~|\/)/.test(above) && !/[\x00-\x1f]/.test(above) ? above : null };
}

export function normalizePosix(path: string): string {
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `/${out.join("/")}`;
}

export interface JshShaperOptions {
  /** Absolute directory the shell was started in: the first prompt shows it, which tells what `~` stands for. */
  startCwd: string;
  /** How long a `prompt` marker waits for the prompt's text. */
  holdMs: number;
  /** A first prompt drawn without any marker counts as ready after this long (0: never). */
  startupPromptMs: number;
  emit: (chunk: string) => void;
}

type Token = { t: "text"; s: string } | { t: "marker"; payload: string; raw: string };

export class JshOutputShaper {
  /** Undecided tail of the previous chunk: a possible marker prefix. */
  private carry = "";
  /** Last text passed on (bounded), to read a prompt drawn before its marker. */
  private tail = "";
  private holding: { text: string; timer: ReturnType<typeof setTimeout> } | null = null;
  /** The shell waits at its prompt: an Enter typed now starts a command. */
  private promptReady = false;
  /** Newlines still to come before the `start` marker (one per Enter typed at the prompt). */
  private pendingEnters = 0;
  private sawReadyMarker = false;
  /** A command started (`start` emitted) and no `exit` marker has come for it yet. */
  private running = false;
  /** C-c was typed while that command ran. */
  private interrupted = false;
  private startupTimer: ReturnType<typeof setTimeout> | null = null;
  /** What `~` stands for, learnt from the first prompt. */
  private home: string | null = null;
  private calibrated = false;
  private ended = false;

  constructor(private readonly opts: JshShaperOptions) {}

  /** Output from the process, in arrival order. */
  push(chunk: string): void {
    if (this.ended || chunk === "") return;
    for (const token of this.tokenize(chunk)) {
      if (token.t === "text") this.onText(token.s);
      else this.onMarker(token.payload, token.raw);
    }
  }

  /** Input written to the process (keystrokes or a command line). */
  noteInput(data: string): void {
    if (this.running && data.includes("\x03")) this.interrupted = true;
    if (!this.promptReady) return;
    const enters = data.match(/\r\n?|\n/g)?.length ?? 0;
    this.pendingEnters += enters;
  }

  /** The process ended: everything held is released as it is. */
  flush(): void {
    if (this.ended) return;
    const carry = this.carry;
    this.carry = "";
    if (carry !== "") this.onText(carry);
    if (this.holding !== null) this.release();
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    this.ended = true;
  }

  // ----------------------------------------------------------------------------------------------------------

  private tokenize(chunk: string): Token[] {
    const data = this.carry + chunk;
    this.carry = "";
    const tokens: Token[] = [];
    let i = 0;
    for (;;) {
      const at = data.indexOf(PREFIX, i);
      if (at === -1) {
        let end = data.length;
        const esc = data.lastIndexOf("\x1b");
        if (esc >= i && data.length - esc < PREFIX.length && PREFIX.startsWith(data.slice(esc))) end = esc;
        if (end > i) tokens.push({ t: "text", s: data.slice(i, end) });
        this.carry = data.slice(end);
        return tokens;
      }
      const from = at + PREFIX.length;
      const bel = data.indexOf(BEL, from);
      const esc = data.indexOf("\x1b", from);
      let payloadEnd = -1;
      let end = -1;
      if (bel !== -1 && (esc === -1 || bel < esc)) {
        payloadEnd = bel;
        end = bel + 1;
      } else if (esc !== -1) {
        if (esc + 1 >= data.length) {
          // ESC at the very end: could be ESC \ (string terminator) once the next chunk comes
          if (at > i) tokens.push({ t: "text", s: data.slice(i, at) });
          this.carry = data.slice(at);
          return tokens;
        }
        if (data[esc + 1] === "\\") {
          payloadEnd = esc;
          end = esc + 2;
        }
      }
      if (end === -1) {
        if (esc === -1 && data.length - at < MAX_MARKER_CHARS) {
          if (at > i) tokens.push({ t: "text", s: data.slice(i, at) });
          this.carry = data.slice(at);
          return tokens;
        }
        // not a marker after all: pass its ESC on as text and look further
        tokens.push({ t: "text", s: data.slice(i, at + 1) });
        i = at + 1;
        continue;
      }
      if (payloadEnd - from > MAX_MARKER_CHARS) {
        tokens.push({ t: "text", s: data.slice(i, at + 1) });
        i = at + 1;
        continue;
      }
      if (at > i) tokens.push({ t: "text", s: data.slice(i, at) });
      tokens.push({ t: "marker", payload: data.slice(from, payloadEnd), raw: data.slice(at, end) });
      i = end;
    }
  }

  private onText(text: string): void {
    if (this.holding !== null) {
      this.holding.text += text;
      if (this.holding.text.length > TAIL_CHARS * 4 || promptPathAtEnd(this.holding.text).ended) this.release();
      return;
    }
    this.pass(text);
    if (!this.sawReadyMarker && this.opts.startupPromptMs > 0 && this.startupTimer === null && promptPathAtEnd(this.tail).ended) {
      // A prompt drawn before any marker: when no marker comes at all, it is taken as the ready signal.
      this.startupTimer = setTimeout(() => {
        this.startupTimer = null;
        if (this.sawReadyMarker || this.ended || this.holding !== null) return;
        this.sawReadyMarker = true;
        this.emitPrompt(promptPathAtEnd(this.tail).path);
      }, this.opts.startupPromptMs);
    }
  }

  /** Text out, with the `start` marker after the newline that ends the echo of an Enter typed at the prompt. */
  private pass(text: string): void {
    let rest = text;
    while (this.pendingEnters > 0) {
      const nl = rest.indexOf("\n");
      if (nl === -1) break;
      this.pendingEnters--;
      if (this.pendingEnters === 0) {
        this.out(rest.slice(0, nl + 1));
        this.opts.emit(marker("start=jsh"));
        this.promptReady = false;
        this.running = true;
        this.interrupted = false;
        rest = rest.slice(nl + 1);
      } else {
        this.out(rest.slice(0, nl + 1));
        rest = rest.slice(nl + 1);
      }
    }
    this.out(rest);
  }

  private out(text: string): void {
    if (text === "") return;
    this.tail = (this.tail + text).slice(-TAIL_CHARS);
    this.opts.emit(text);
  }

  private onMarker(payload: string, raw: string): void {
    if (this.holding !== null) this.release();
    if (payload === "prompt") {
      this.sawReadyMarker = true;
      const drawn = promptPathAtEnd(this.tail);
      if (drawn.ended) {
        this.emitPrompt(drawn.path);
        return;
      }
      this.holding = { text: "", timer: setTimeout(() => this.release(), this.opts.holdMs) };
      return;
    }
    if (payload.startsWith("exit=")) this.running = false;
    if (payload === "interactive" && !this.sawReadyMarker) {
      this.sawReadyMarker = true;
      this.promptReady = true;
      this.pendingEnters = 0;
    }
    this.opts.emit(raw);
  }

  private release(): void {
    const h = this.holding;
    if (h === null) return;
    clearTimeout(h.timer);
    this.holding = null;
    this.pass(h.text);
    this.emitPrompt(promptPathAtEnd(h.text).path);
  }

  private emitPrompt(pathLine: string | null): void {
    if (this.running && this.interrupted) this.opts.emit(marker("exit=jsh:130"));
    this.running = false;
    this.interrupted = false;
    const cwd = pathLine === null ? null : this.resolve(pathLine);
    if (cwd !== null) this.opts.emit(marker(`cwd=jsh:${cwd}`));
    this.opts.emit(marker("prompt"));
    this.promptReady = true;
    this.pendingEnters = 0;
  }

  /** The prompt's path (`~/project/sub`, `/tmp`) as an absolute path; null when `~` cannot be told. */
  private resolve(shown: string): string | null {
    if (!this.calibrated) {
      // only the first prompt is known to show the start directory
      this.calibrated = true;
      const start = normalizePosix(this.opts.startCwd);
      if (shown === "~") this.home = start;
      else if (shown.startsWith("~/")) {
        const suffix = normalizePosix(shown.slice(1));
        if (start === suffix) this.home = "/";
        else if (start.endsWith(suffix)) this.home = start.slice(0, start.length - suffix.length) || "/";
      }
    }
    if (shown.startsWith("/")) return normalizePosix(shown);
    if (this.home === null) return null;
    return normalizePosix(`${this.home}/${shown.slice(1)}`);
  }
}
