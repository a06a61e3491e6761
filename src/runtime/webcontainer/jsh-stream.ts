// Shapes the output of the agent's `jsh --osc` so that the session engine sees what it sees from bash: the markers
// jsh prints (`interactive`, `prompt`, `exit=A:B`, maybe `pid=N`) are read with the one marker scanner and passed on
// through the one formatter (runtime/markers.ts: the same reading the session makes of them, an `ESC \` terminator
// becomes BEL), and three facts jsh does not mark are added, computed from the stream itself:
//
//   start=jsh     after the newline that ends the echo of an Enter typed at the prompt. The session cuts the echo
//                 there (instead of guessing it from the command text) and learns when a person's command runs.
//   cwd=jsh:PATH  before each `prompt`, from the prompt's first line (`~/project/sub`, then `❯ ` on the next line):
//                 jsh keeps `cd` but reports the directory only in its prompt.
//   exit=jsh:130  before a `prompt` that ends a command interrupted with C-c when jsh printed no `exit` marker for
//                 it (whether it does is not known): without one the session would not take the prompt as the end.
//   exit=jsh:-1   before a `prompt` that ends a command with no `exit` marker and no C-c (a jsh parse error, a
//                 failing builtin): the command ends instead of hanging, with a line in its output saying the exit
//                 code is unknown (-1 stands for it; real exit codes are 0-255).
//   prompt        also when jsh draws its `❯` prompt after an `exit` marker and no `prompt` marker follows within
//                 WEBCONTAINER.promptAfterExitMs (a late marker after that is dropped, as the prompt was given).
//   interactive   held back, when it comes before the first prompt is drawn, until that prompt is there (the likely
//                 real order: `interactive` alone, the prompt later): the session types only into a drawn prompt.
//                 Enters typed before the first prompt are kept and counted once it is there.
//   prompt        held back, when it comes before the prompt's text, until that text (up to `❯`) has passed, at most
//                 WEBCONTAINER.promptHoldMs: the session then never types into a half-drawn prompt, and the `cwd`
//                 marker can precede it. When the text comes first, nothing is held.
//
// jsh's marker order is not documented (see shared/research/webcontainer-and-jsh.md §3); both orders are handled.
// Markers may be split across chunks; a chunk may hold several. Text is passed on as soon as it is known not to
// belong to a marker. Fail safe: an `exit` marker the session could not read (`exit=0`, `exit=-1:x`) is passed on
// as the `other` marker it is and does not end the command here either, so its prompt ends it with the unknown exit
// code instead of leaving the session waiting; a `cwd` too long to be a marker is not sent (the cwd stays unknown).

import { normalizePath } from "../../lib/paths.ts";
import { formatMarker, MarkerScanner, MAX_MARKER_CHARS, type EmittedMarker, type Marker } from "../markers.ts";
import { plainLines, promptPathAtEnd, trailingPromptStart } from "./jsh-prompt.ts";

/** The tag of the markers the adapter adds (jsh's own carry no nonce either: the runtime's markerNonce is null). */
const TAG = "jsh";
/** Characters of passed text kept to read a prompt drawn before its marker (a longer path line gives no cwd). */
const TAIL_CHARS = 2_048;
/** Characters of a typed line's end its echo is matched by. */
const ECHO_TAIL_CHARS = 48;

/** The exit code given to a command jsh ended with a prompt but no `exit` marker: not a real one (those are 0-255). */
export const UNKNOWN_EXIT_CODE = -1;
/** Said in that command's output. */
export const UNKNOWN_EXIT_LINE =
  "[sandshell: jsh showed its prompt again without reporting an exit status, so this command's exit code is unknown (-1)]";

/** A marker as it goes out: what the session's own scanner reads back as `m` (markers.ts's one formatter). */
function format(m: Marker): string {
  return formatMarker(m.kind === "other" ? m.payload : m);
}

export interface JshShaperOptions {
  /** Absolute directory the shell was started in: the first prompt shows it, which tells what `~` stands for. */
  startCwd: string;
  /** How long a `prompt` marker waits for the prompt's text. */
  holdMs: number;
  /** After an `exit` marker, a drawn `❯` prompt counts as the prompt when no marker comes within this long (0: never). */
  promptAfterExitMs?: number;
  /**
   * What `~` stands for (the workdir's parent: /home for /home/project) until a first prompt shown with `~` says
   * otherwise; a first prompt that cannot tell (`~/elsewhere`) leaves it unknown.
   */
  home?: string;
  /**
   * A directory to `cd` to before the shell is shown (a respawn outside the workdir: WebContainer's spawn cwd is
   * relative to the workdir, so the shell starts there and is moved). Everything until the prompt after that `cd` is
   * hidden; `writeRaw` types the `cd`.
   */
  initialCd?: string;
  writeRaw?: (data: string) => void;
  /** A first prompt drawn without any marker counts as ready after this long (0: never). */
  startupPromptMs: number;
  emit: (chunk: string) => void;
}

export class JshOutputShaper {
  /** jsh's markers, read as the session reads them: split across chunks, several in one, `ESC \` or BEL ended. */
  private readonly scanner = new MarkerScanner();
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
  private home: string | null;
  private calibrated = false;
  private ended = false;
  /** Enters typed before the first prompt: jsh echoes them once it reads, after that prompt. */
  private earlyEnters = 0;
  private readyOnce = false;
  /** `interactive` seen before the first prompt was drawn: passed on with it. */
  private heldInteractive: { timer: ReturnType<typeof setTimeout> } | null = null;
  /** The line of the last Enter typed at the prompt had no text (jsh may print no `exit` for it). */
  private lastLineEmpty = true;
  private typedLine = "";
  private runningEmpty = false;
  /** An `exit` marker came and its `prompt` marker has not yet. */
  private awaitingPrompt = false;
  private afterExitTimer: ReturnType<typeof setTimeout> | null = null;
  /** A prompt was given for a drawn `❯` without its marker: a marker that still comes for it is dropped. */
  private dropLatePrompt = false;
  /** A prompt drawn while a command runs (no `exit` yet), held for its `prompt` marker. */
  private drawnWhileRunning: { text: string; timer: ReturnType<typeof setTimeout> } | null = null;

  /** The end of the line of the last Enter typed at the prompt (its echo must end with it: wrapped echoes hold newlines). */
  private enteredTail = "";
  /** Text passed since the last Enter's echo began, while its `start` is pending (bounded). */
  private echoSoFar = "";

  private cdPhase: "none" | "pending" | "running";

  constructor(private readonly opts: JshShaperOptions) {
    this.home = opts.home !== undefined ? normalizePath(opts.home) : null;
    this.cdPhase = opts.initialCd !== undefined && opts.writeRaw !== undefined ? "pending" : "none";
  }

  /** Out to the listeners, unless the initial `cd` is still hidden. */
  private send(chunk: string): void {
    if (this.cdPhase === "none") this.opts.emit(chunk);
  }

  /** Output from the process, in arrival order. */
  push(chunk: string): void {
    if (this.ended || chunk === "") return;
    for (const ev of this.scanner.push(chunk)) {
      if (ev.type === "text") this.onText(ev.text);
      else this.onMarker(ev.marker);
    }
  }

  /** Input written to the process (keystrokes or a command line). */
  noteInput(data: string): void {
    if (this.running && data.includes("\x03")) this.interrupted = true;
    const enters = data.match(/\r\n?|\n/g)?.length ?? 0;
    if (!this.promptReady) {
      if (!this.readyOnce) this.earlyEnters += enters;
      return;
    }
    for (const c of data) {
      if (c === "\r" || c === "\n") {
        this.lastLineEmpty = this.typedLine.trim() === "";
        this.enteredTail = this.typedLine.trim().slice(-ECHO_TAIL_CHARS);
        this.typedLine = "";
      } else if (c === "\x03" || c === "\x15") this.typedLine = "";
      else if (c === "\x7f" || c === "\b") this.typedLine = this.typedLine.slice(0, -1);
      else if (c >= " ") this.typedLine = (this.typedLine + c).slice(-4 * ECHO_TAIL_CHARS);
    }
    this.pendingEnters += enters;
  }

  /** The process ended: everything held is released as it is. */
  flush(): void {
    if (this.ended) return;
    for (const ev of this.scanner.flush()) this.onText(ev.type === "text" ? ev.text : format(ev.marker));
    if (this.holding !== null) this.release();
    this.releaseDrawnWhileRunning(true);
    if (this.heldInteractive !== null) this.releaseInteractive();
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    this.clearAfterExit();
    this.ended = true;
  }

  // ----------------------------------------------------------------------------------------------------------

  private onText(text: string): void {
    if (this.holding !== null) {
      this.holding.text += text;
      if (this.holding.text.length > TAIL_CHARS * 4 || promptPathAtEnd(this.holding.text).ended) this.release();
      return;
    }
    if (this.running) {
      // A prompt drawn while a command runs, before any `exit`: held a moment, so that when its `prompt` marker
      // follows (no `exit` for this command), the command's end goes before the prompt's text, not after it.
      const data = (this.drawnWhileRunning?.text ?? "") + text;
      this.releaseDrawnWhileRunning(false);
      const at = data.length <= TAIL_CHARS ? trailingPromptStart(data) : -1;
      if (at === -1) this.pass(data);
      else {
        this.pass(data.slice(0, at));
        this.drawnWhileRunning = {
          text: data.slice(at),
          timer: setTimeout(() => this.releaseDrawnWhileRunning(true), this.opts.holdMs),
        };
      }
      return;
    }
    this.pass(text);
    if (this.heldInteractive !== null && promptPathAtEnd(this.tail).ended) this.releaseInteractive();
    if (this.awaitingPrompt && this.afterExitTimer === null && (this.opts.promptAfterExitMs ?? 0) > 0 && promptPathAtEnd(this.tail).ended) {
      // jsh drew its prompt after the exit: when the marker does not follow, the drawn prompt is the prompt.
      this.afterExitTimer = setTimeout(() => {
        this.afterExitTimer = null;
        if (!this.awaitingPrompt || this.ended || this.holding !== null) return;
        const drawn = promptPathAtEnd(this.tail);
        if (!drawn.ended) return;
        this.dropLatePrompt = true;
        this.emitPrompt(drawn.path);
      }, this.opts.promptAfterExitMs);
    }
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
      if (nl === -1) {
        if (this.pendingEnters === 1) this.echoSoFar = (this.echoSoFar + rest).slice(-TAIL_CHARS);
        break;
      }
      if (this.pendingEnters === 1 && !this.echoEnds(rest.slice(0, nl))) {
        // a newline inside the echo (a long line wrapped by the line editor): not the Enter's yet
        this.echoSoFar = (this.echoSoFar + rest.slice(0, nl + 1)).slice(-TAIL_CHARS);
        this.out(rest.slice(0, nl + 1));
        rest = rest.slice(nl + 1);
        continue;
      }
      this.pendingEnters--;
      if (this.pendingEnters === 0) {
        this.echoSoFar = "";
        this.out(rest.slice(0, nl + 1));
        this.sendMarker({ kind: "start", tag: TAG });
        this.promptReady = false;
        this.running = true;
        this.runningEmpty = this.lastLineEmpty;
        this.interrupted = false;
        this.dropLatePrompt = false;
        rest = rest.slice(nl + 1);
      } else {
        this.out(rest.slice(0, nl + 1));
        rest = rest.slice(nl + 1);
      }
    }
    this.out(rest);
  }

  /** Whether the echo so far, up to `upToNewline`, ends with the typed line's end (escapes and wraps ignored). */
  private echoEnds(upToNewline: string): boolean {
    // only printable ASCII is compared: a character split across chunks arrives as U+FFFD
    const comparable = (t: string): string => t.replace(/[^\x21-\x7e]/g, "");
    const want = comparable(this.enteredTail);
    if (want === "") return true;
    if (comparable(plainLines(this.tail + upToNewline).join("")).endsWith(want)) return true;
    // an echo that never shows the typed text (a line editor that rewrites it) must not hold the start forever
    return this.echoSoFar.length > TAIL_CHARS - 64;
  }

  private out(text: string): void {
    if (text === "") return;
    const tail = this.tail + text;
    // A cut tail starts with NUL: the prompt reader takes no line with a control character for a path, so a path line
    // cut short (a directory deeper than the tail is long) gives no cwd instead of a wrong one.
    this.tail = tail.length <= TAIL_CHARS ? tail : `\x00${tail.slice(1 - TAIL_CHARS)}`;
    this.send(text);
  }

  private typeInitialCd(): void {
    const dir = this.opts.initialCd!;
    const quoted = /^[\w/.+@%-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, "'\\''")}'`;
    const line = `cd ${quoted}\r`;
    this.cdPhase = "running";
    this.noteInput(line);
    this.opts.writeRaw!(line);
  }

  private onMarker(m: Marker): void {
    if (this.holding !== null) this.release();
    if (m.kind === "prompt" && this.running && !this.dropLatePrompt) this.endUnmarked();
    this.releaseDrawnWhileRunning(true);
    if (m.kind === "prompt") {
      if (this.dropLatePrompt) {
        // its prompt was given already (drawn `❯` after exit, no marker in time): passing it would reset the Enters
        // of a command typed since
        this.dropLatePrompt = false;
        return;
      }
      this.sawReadyMarker = true;
      const drawn = promptPathAtEnd(this.tail);
      if (drawn.ended) {
        this.emitPrompt(drawn.path);
        return;
      }
      this.holding = { text: "", timer: setTimeout(() => this.release(), this.opts.holdMs) };
      return;
    }
    if (m.kind === "exit") {
      this.running = false;
      this.clearAfterExit();
      this.awaitingPrompt = true;
      this.dropLatePrompt = false;
    }
    if (m.kind === "interactive" && !this.sawReadyMarker) {
      this.sawReadyMarker = true;
      if (!promptPathAtEnd(this.tail).ended && this.opts.startupPromptMs > 0) {
        // before the prompt is drawn: typing now would go into a prompt that is not there yet
        this.heldInteractive = { timer: setTimeout(() => this.releaseInteractive(), this.opts.startupPromptMs) };
        return;
      }
      this.becomeReady();
    }
    this.send(format(m));
  }

  /** A marker the adapter adds; one that the session's scanner would not take as a marker (too long) is not sent. */
  private sendMarker(m: EmittedMarker): void {
    const text = formatMarker(m);
    if (text.length <= MAX_MARKER_CHARS) this.send(text);
  }

  private releaseInteractive(): void {
    const h = this.heldInteractive;
    if (h === null) return;
    clearTimeout(h.timer);
    this.heldInteractive = null;
    this.becomeReady();
    this.send(format({ kind: "interactive" }));
  }

  /** The shell reads: Enters from now on start commands (and those typed before the first prompt, once). */
  private becomeReady(): void {
    this.promptReady = true;
    if (this.cdPhase === "pending") {
      this.pendingEnters = 0;
      this.earlyEnters = 0;
      this.readyOnce = false; // Enters typed meanwhile count after the `cd`'s prompt
      this.typeInitialCd();
      return;
    }
    this.pendingEnters = this.readyOnce ? 0 : this.earlyEnters;
    this.echoSoFar = "";
    this.earlyEnters = 0;
    this.readyOnce = true;
  }

  private clearAfterExit(): void {
    if (this.afterExitTimer !== null) clearTimeout(this.afterExitTimer);
    this.afterExitTimer = null;
    this.awaitingPrompt = false;
  }

  private release(): void {
    const h = this.holding;
    if (h === null) return;
    clearTimeout(h.timer);
    this.holding = null;
    this.pass(h.text);
    this.emitPrompt(promptPathAtEnd(h.text).path);
  }

  /** A `prompt` ends a command that got no `exit` marker: C-c → 130; otherwise the exit code is unknown. */
  private endUnmarked(): void {
    if (this.interrupted) this.sendMarker({ kind: "exit", tag: TAG, code: 130 });
    else if (!this.runningEmpty) {
      const nl = this.tail === "" || this.tail.endsWith("\n") ? "" : "\r\n";
      this.out(`${nl}${UNKNOWN_EXIT_LINE}\r\n`);
      this.sendMarker({ kind: "exit", tag: TAG, code: UNKNOWN_EXIT_CODE });
    }
    this.running = false;
    this.interrupted = false;
  }

  private releaseDrawnWhileRunning(pass: boolean): void {
    const d = this.drawnWhileRunning;
    if (d === null) return;
    clearTimeout(d.timer);
    this.drawnWhileRunning = null;
    if (pass) this.pass(d.text);
  }

  private emitPrompt(pathLine: string | null): void {
    if (this.running) this.endUnmarked();
    if (this.cdPhase === "running") this.cdPhase = "none"; // the prompt after the `cd`: shown from here on
    this.running = false;
    this.interrupted = false;
    this.clearAfterExit();
    if (this.heldInteractive !== null) this.releaseInteractive();
    const cwd = pathLine === null ? null : this.resolve(pathLine);
    if (cwd !== null) this.sendMarker({ kind: "cwd", tag: TAG, path: cwd });
    this.sendMarker({ kind: "prompt" });
    this.becomeReady();
  }

  /** The prompt's path (`~/project/sub`, `/tmp`) as an absolute path; null when `~` cannot be told. */
  private resolve(shown: string): string | null {
    if (!this.calibrated) {
      // only the first prompt is known to show the start directory: it confirms (or corrects) what `~` stands for
      this.calibrated = true;
      const start = normalizePath(this.opts.startCwd);
      if (shown === "~") this.home = start;
      else if (shown.startsWith("~/")) {
        const suffix = normalizePath(shown.slice(1));
        if (start === suffix) this.home = "/";
        else if (start.endsWith(suffix)) this.home = start.slice(0, start.length - suffix.length) || "/";
        else this.home = null; // contradicts the start directory: `~` is unknown
      }
    }
    if (shown.startsWith("/")) return normalizePath(shown);
    if (this.home === null) return null;
    return normalizePath(`${this.home}/${shown.slice(1)}`);
  }
}
