// The shell's output stream: one MarkerScanner splits it into text and markers, the bracketed-paste switches are taken
// out of the text, and the markers are bound to the running command. How a command's output is cut out of the stream
// (works for every runtime):
//   write ──> [echo of the command] ──(start marker, or bracketed paste switched off)──> [output] ──exit marker──> …
//   … [ignored] ──prompt marker──> done.
// - The echo is dropped, not suppressed: the person watching the terminal sees what the agent typed. The echo ends at
//   the runtime's `start` marker (bash: PS0) or, where the line editor uses bracketed paste, at `ESC[?2004l` (readline
//   switches it off when it accepts the line, also for a line that then fails to parse). A runtime with neither has
//   its echo cut heuristically (the leading lines that repeat the command).
// - `exit=TAG:CODE` ends the output when TAG carries the runtime's nonce (and, on node, the command's own number, see
//   docs/session.md); the next `prompt` marker completes the command, so `cwd` (and anything else the prompt hook
//   prints) is known by then. Where the runtime can verify an end out of band (node: /proc), it must agree.

import { type Marker, MarkerScanner } from "../runtime/markers.ts";
import type { RunningCommand } from "./command.ts";
import type { SessionCore } from "./core.ts";
import { PasteSwitches } from "./paste.ts";
import type { ShellProcess } from "./process.ts";

export interface StreamHost {
  /** Text of the running command (its echo or its output, the command's phase tells). */
  output(a: RunningCommand, text: string): void;
  /** The running command's end is accepted and its prompt is there. */
  complete(a: RunningCommand, facts: { discarded: number }): void;
}

export class Stream {
  private scanner = new MarkerScanner();
  private readonly paste = new PasteSwitches();
  /** Highest command sequence number seen in an end marker of this shell (tags `NONCE.SEQ`); -1 before any. */
  private lastSeq = -1;
  /** Typed-ahead characters the shell dropped before its last prompt. */
  private discarded = 0;
  /** The sequence number of the end last accepted, and whether its cwd came from the OS (then markers' cwd is ignored). */
  private acceptedSeq: number | null = null;
  private cwdVerified = false;
  private claimedCwd: string | undefined;

  constructor(
    private readonly core: SessionCore,
    private readonly shell: ShellProcess,
    private readonly host: StreamHost,
  ) {}

  /** A new shell: nothing carries over from the previous one's stream. */
  reset(): void {
    this.scanner = new MarkerScanner();
    this.paste.reset();
    this.lastSeq = -1;
  }

  /** The command is about to be typed: only ends newer than this moment can be its own. */
  typed(a: RunningCommand): void {
    a.afterSeq = this.lastSeq;
    this.discarded = 0;
  }

  push(chunk: string): void {
    for (const ev of this.scanner.push(chunk)) {
      if (ev.type === "text") this.onText(ev.text);
      else this.onMarker(ev.marker);
    }
  }

  /** End of the shell's stream: a held-back would-be marker is text. */
  flush(): void {
    for (const ev of this.scanner.flush()) if (ev.type === "text") this.onText(ev.text);
  }

  private onText(text: string): void {
    this.paste.push(
      text,
      (piece) => {
        const a = this.core.active;
        if (piece !== "" && a !== null) this.host.output(a, piece);
      },
      (on) => this.onPasteMode(on),
    );
  }

  private onPasteMode(on: boolean): void {
    this.shell.pasteOn = on;
    if (on) this.shell.pasteCapable = true;
    const a = this.core.active;
    if (!on && a !== null && a.phase === "echo" && a.pasted) a.beginOutput();
  }

  /** `NONCE` or `NONCE.SEQ` → whether it is this runtime's, and the sequence number when there is one. */
  private tagOf(tag: string): { ours: boolean; seq: number | null } {
    const nonce = this.core.runtime.markerNonce;
    const dot = tag.lastIndexOf(".");
    const seqText = dot === -1 ? "" : tag.slice(dot + 1);
    const seq = /^\d{1,15}$/.test(seqText) ? Number(seqText) : null;
    const base = seq === null ? tag : tag.slice(0, dot);
    return { ours: nonce === null || base === nonce, seq };
  }

  private onMarker(m: Marker): void {
    switch (m.kind) {
      case "exit": {
        const t = this.tagOf(m.tag);
        if (t.ours) this.onExitMarker(m.code, t.seq);
        break;
      }
      case "cwd": {
        const t = this.tagOf(m.tag);
        // Only the cwd that comes with an accepted end (same tag) counts; on node it was read from /proc already.
        if (t.ours && m.path !== "" && (t.seq === null || t.seq === this.acceptedSeq)) {
          if (this.cwdVerified) this.claimedCwd = m.path;
          else this.core.cwd = m.path;
        }
        break;
      }
      case "prompt":
        this.onPromptMarker();
        break;
      case "interactive":
        this.shell.atPrompt = true; // a runtime that shows no prompt marker at startup is ready with this one
        break;
      case "start": {
        const seq = /^\d{1,15}$/.test(m.tag) ? Number(m.tag) : null;
        if (seq !== null || this.tagOf(m.tag).ours) this.onStartMarker(seq);
        break;
      }
      case "envfile":
        if (this.tagOf(m.tag).ours) this.shell.envFile = m.path;
        break;
      case "discarded":
        if (this.tagOf(m.tag).ours) this.discarded += m.count;
        break;
      default:
        break;
    }
  }

  private onStartMarker(seq: number | null): void {
    const a = this.core.active;
    if (a !== null) {
      if (a.phase === "echo") {
        if (seq !== null) a.startSeq = seq;
        a.beginOutput();
      }
      return;
    }
    const person = this.core.person;
    if (this.shell.ready && !person.busy) {
      person.busy = true;
      person.dirty = false;
      this.core.emitState();
    }
  }

  private onExitMarker(code: number, seq: number | null): void {
    const a = this.core.active;
    if (seq !== null) {
      // A command's end is bound to it: newer than anything before it was typed, and its own start's number.
      if (a === null || a.phase === "preparing" || a.phase === "ended") {
        if (seq > this.lastSeq) this.lastSeq = seq;
        return;
      }
      if (seq <= a.afterSeq || (a.startSeq !== null && seq !== a.startSeq)) return;
    } else if (a === null || a.phase === "preparing" || a.phase === "ended") {
      return;
    }
    // Out of band, where the OS can tell: the shell must own the terminal again (nothing of the command runs in the
    // foreground), or this "end" was printed by the command itself.
    const proof = this.shell.proc?.verifyEnd?.(undefined) ?? null;
    if (proof !== null && !proof.atPrompt) return;
    if (seq !== null) this.lastSeq = Math.max(this.lastSeq, seq);
    this.acceptedSeq = seq;
    this.cwdVerified = proof !== null && proof.cwd !== undefined;
    a.endOutput();
    a.exitCode = code;
    a.phase = "ended";
  }

  private onPromptMarker(): void {
    const a = this.core.active;
    if (a !== null && a.phase !== "ended" && a.phase !== "preparing") return; // not after an accepted end: the command's own
    this.shell.atPrompt = true;
    this.shell.pasteOn = false; // the line editor switches it on again when it starts reading
    const person = this.core.person;
    if (a !== null) {
      person.entered = false;
      if (a.phase === "ended") {
        if (this.cwdVerified) {
          const proof = this.shell.proc?.verifyEnd?.(this.claimedCwd) ?? null;
          if (proof?.cwd !== undefined) this.core.cwd = proof.cwd;
          this.claimedCwd = undefined;
        }
        const discarded = this.discarded;
        this.discarded = 0;
        this.host.complete(a, { discarded });
      }
      return;
    }
    if (person.atPrompt()) this.core.emitState();
  }
}
