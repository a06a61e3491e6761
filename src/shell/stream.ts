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
import type { EndCandidate, RunningCommand } from "./command.ts";
import type { SessionCore } from "./core.ts";
import { PasteSwitches } from "./paste.ts";
import type { ShellProcess } from "./process.ts";
import { now } from "./util.ts";

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
  /** The directory the last prompt of the shell's own (no agent command) named. */
  private idleCwd: string | undefined;
  /** The candidate end being verified. */
  private check: { a: RunningCommand; c: EndCandidate; since: number; quick: number; timer: (() => void) | null } | null = null;

  constructor(
    private readonly core: SessionCore,
    private readonly shell: ShellProcess,
    private readonly host: StreamHost,
  ) {}

  /** A new shell: nothing carries over from the previous one's stream. */
  reset(): void {
    this.scanner = new MarkerScanner();
    this.paste.reset();
    this.core.jobNotices.reset();
    this.lastSeq = -1;
    this.check?.timer?.();
    this.check = null;
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
    if (this.check !== null && this.check.timer !== null) {
      this.check.quick = END_CHECK_QUICK;
      this.runCheck();
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
        if (piece === "") return;
        if (a !== null) this.host.output(a, piece);
        else this.core.jobNotices.idle(piece, this.core.person);
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

  /** `NONCE`, or `NONCE.SEQ.TOKEN` (node) → whether it is this runtime's, the command's number and the end's token. */
  private tagOf(tag: string): { ours: boolean; seq: number | null; token: string | undefined } {
    const nonce = this.core.runtime.markerNonce;
    const [base, seqText, token] = tag.split(".", 3);
    const seq = seqText !== undefined && /^\d{1,15}$/.test(seqText) ? Number(seqText) : null;
    return { ours: nonce === null || base === nonce, seq, token };
  }

  private onMarker(m: Marker): void {
    switch (m.kind) {
      case "exit": {
        const t = this.tagOf(m.tag);
        if (t.ours) this.onExitMarker(m.code, t.seq, t.token);
        break;
      }
      case "cwd": {
        const t = this.tagOf(m.tag);
        if (!t.ours || m.path === "") break;
        // The cwd that comes with the running command's end; where the OS can tell, it is read from /proc instead.
        const c = this.core.active?.candidate;
        if (c != null) {
          if (t.seq === c.seq) c.claimedCwd = m.path;
        } else if (this.core.active === null) {
          this.idleCwd = m.path; // after a person's command
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
        // announced once, while the shell starts (a later one was printed by a command)
        if (this.tagOf(m.tag).ours && this.shell.phase === "starting") this.shell.envFile = m.path;
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
    if (a !== null && a.phase !== "preparing") {
      // The start of an older command (printed again by a program of it, say) is not this one's.
      if (a.phase === "echo" && (seq === null || seq > a.afterSeq)) {
        if (seq !== null) a.startSeq = seq;
        a.beginOutput();
      }
      return;
    }
    // A command of the person's starts, when the person entered a line (else a command's leftover printed this); also
    // while the agent's command is being prepared, which then is not run.
    const person = this.core.person;
    if (this.shell.ready && !person.busy && person.entered) {
      person.busy = true;
      person.dirty = false;
      this.core.emitState();
    }
  }

  private onExitMarker(code: number, seq: number | null, token: string | undefined): void {
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
    // A candidate until it is verified. A later end of the same number replaces it: the text between the two was the
    // command's (it printed the first one itself).
    a.releaseCandidate();
    a.candidate = { seq, token, code, discarded: this.discarded, claimedCwd: undefined, prompted: false, held: "" };
    this.discarded = 0;
  }

  private onPromptMarker(): void {
    const a = this.core.active;
    if (a !== null && a.phase !== "preparing") {
      const c = a.candidate;
      if (c === null || c.prompted) return; // not after an end marker of its own: printed by the command
      c.prompted = true;
      this.shell.pasteOn = false; // the line editor switches it on again when it starts reading
      this.check?.timer?.();
      this.check = { a, c, since: now(), quick: END_CHECK_QUICK, timer: null };
      this.runCheck();
      return;
    }
    this.shell.atPrompt = true;
    this.shell.pasteOn = false;
    const person = this.core.person;
    if (a !== null) {
      person.atPrompt(); // whatever the person entered is over (the agent's command waits to be typed)
      return;
    }
    // A command of the person's (or an empty line) ended: where the OS can tell, its directory is the shell's.
    const cwd = this.shell.proc?.shellCwd?.(this.idleCwd) ?? this.idleCwd;
    this.idleCwd = undefined;
    const moved = cwd !== undefined && cwd !== this.core.cwd;
    if (moved) this.core.cwd = cwd;
    if (person.atPrompt() || moved) this.core.emitState();
  }

  /**
   * Whether keys sent to `a` now would reach the shell's prompt: its end is in, or being verified while the shell
   * waits at its prompt. Then nothing is sent (it would be typed as a command).
   */
  ending(a: RunningCommand): boolean {
    if (a.phase === "ended") return true;
    if (a.candidate === null) return false;
    const verdict = this.shell.proc?.checkEnd?.(a.candidate.token) ?? null;
    return verdict === null || verdict === "ended";
  }

  /**
   * Verifies the candidate end out of band, where the runtime can (node: /proc and the end's token): it counts once the
   * shell waits at its prompt and the token is the one its prompt hook wrote last; a token of an older end (or none)
   * means a command printed it, and what came after it is the command's output. Until then it is looked at again: on
   * every chunk of output, at once while the prompt is likely on its way, then less often (a candidate printed by a
   * command that goes on running stays until the command's real end replaces it or makes it stale).
   */
  private runCheck(): void {
    const k = this.check;
    if (k === null) return;
    k.timer?.();
    k.timer = null;
    const { a, c } = k;
    if (this.core.active !== a || a.candidate !== c) {
      this.check = null;
      return;
    }
    const verdict = this.shell.proc?.checkEnd?.(c.token) ?? null;
    if (verdict === null || verdict === "ended") {
      this.check = null;
      this.confirm(a, c);
      return;
    }
    if (verdict === "stale") {
      this.check = null;
      a.releaseCandidate();
      return;
    }
    // A few looks on the next turns of the event loop (the prompt is usually a moment away), then at growing
    // intervals: spinning would take the CPU the shell needs to get there.
    const next = (): void => this.runCheck();
    if (k.quick > 0) {
      k.quick--;
      k.timer = soon(next);
    } else {
      k.timer = later(next, Math.min(END_CHECK_MAX_MS, Math.max(1, (now() - k.since) / 4)));
    }
  }

  private confirm(a: RunningCommand, c: EndCandidate): void {
    a.candidate = null; // what came after it is the prompt's
    if (c.seq !== null && c.seq > this.lastSeq) this.lastSeq = c.seq;
    const verified = this.shell.proc?.shellCwd?.(c.claimedCwd);
    const cwd = verified ?? c.claimedCwd;
    if (cwd !== undefined) this.core.cwd = cwd;
    a.endOutput();
    a.exitCode = c.code;
    a.phase = "ended";
    this.shell.atPrompt = true;
    this.core.person.entered = false;
    this.host.complete(a, { discarded: c.discarded });
  }
}

/** Looks at a candidate end on the next turns of the event loop, after its prompt marker and after each chunk. */
const END_CHECK_QUICK = 2;
/** Then at growing intervals up to this. */
const END_CHECK_MAX_MS = 50;


/** Runs `fn` on the next turn of the event loop (after pending I/O); returns a function that cancels it. */
function soon(fn: () => void): () => void {
  if (typeof setImmediate === "function") {
    const t = setImmediate(fn);
    return () => clearImmediate(t);
  }
  return later(fn, 0);
}

function later(fn: () => void, ms: number): () => void {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
}
