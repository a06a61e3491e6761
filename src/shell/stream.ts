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
//   prints) is known by then. Where the runtime can verify an end out of band (node: /proc), it must agree: the shell
//   waits at its prompt, and the end is the first to carry the token the shell published after printing it.

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
  /**
   * The typed command never reached the shell: `held`, another process group holds the terminal while the shell
   * waits for input (named); `read`, the shell waits at its prompt again and nothing of the command came back.
   */
  lost(a: RunningCommand, how: { kind: "held"; holder: { pgrp: number; name: string } } | { kind: "read" }): void;
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
  /** The running command's candidate ends being verified. */
  private check: { a: RunningCommand; since: number; quick: number; timer: (() => void) | null } | null = null;
  /** Watching a typed command until the shell shows it read it (its start or an end; for a paste, accepting the line). */
  private typedWatch: { a: RunningCommand; since: number; looks: number; heard: boolean; timer: (() => void) | null } | null = null;

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
    this.typedWatch?.timer?.();
    this.typedWatch = null;
  }

  /**
   * The command is about to be typed: only ends newer than this moment can be its own, and (where the runtime tells the
   * shell's token) only one carrying a token newer than `token`, the shell's now.
   */
  typed(a: RunningCommand, token: string | undefined): void {
    a.afterSeq = this.lastSeq;
    a.tokenBefore = token;
    a.heardSinceTyped = false;
    this.discarded = 0;
    this.typedWatch?.timer?.();
    this.typedWatch = null;
    if (this.shell.proc?.probe !== undefined) {
      this.typedWatch = { a, since: now(), looks: 0, heard: false, timer: null };
      this.typedWatch.timer = later(() => this.watchTyped(), TYPED_LOOK_MS);
    }
  }

  push(chunk: string): void {
    const a = this.core.active;
    if (a !== null && chunk !== "") {
      a.heardSinceTyped = true;
      if (this.typedWatch !== null) this.typedWatch.heard = true;
    }
    for (const ev of this.scanner.push(chunk)) {
      if (ev.type === "text") this.onText(ev.text);
      else this.onMarker(ev.marker);
    }
    if (this.check !== null && this.check.timer !== null) {
      this.check.quick = END_CHECK_QUICK;
      this.runCheck();
    }
  }

  /**
   * A typed command the shell never shows it read: until the shell shows it took the line (a start or end marker; for
   * a paste, the line editor switching bracketed paste off as it accepts the line; else anything heard at all), look
   * at the shell now and then. Another process group holding the terminal while the shell waits for input means the
   * command went to that group (or will make the shell read end-of-file); the shell waiting at its prompt with its
   * token unchanged, nothing on its way to it and nothing heard for TYPED_LOST_MS means someone else read it, or part
   * of it (a process that holds the terminal open outside the shell's session reads without taking it; one that sets
   * the terminal to drop carriage returns leaves the pasted line in the editor, echoed but never accepted). Either way
   * it did not run.
   */
  private watchTyped(): void {
    const w = this.typedWatch;
    if (w === null) return;
    w.timer = null;
    const { a } = w;
    const accepted = a.pasted ? a.phase !== "echo" : a.heardSinceTyped;
    if (this.core.active !== a || a.phase === "ended" || a.started || accepted || a.candidates.length > 0) {
      this.typedWatch = null;
      return;
    }
    const p = this.shell.proc?.probe?.() ?? null;
    if (p === null) {
      this.typedWatch = null;
      return;
    }
    if (p.state === "held" && p.holder !== undefined) {
      this.typedWatch = null;
      this.host.lost(a, { kind: "held", holder: p.holder });
      return;
    }
    // The line editor still echoing what it got is no look at a waiting shell.
    const quiet = !w.heard;
    w.heard = false;
    w.looks = quiet && p.state === "prompt" && p.settled !== false && p.token === a.tokenBefore ? w.looks + 1 : 0;
    if (w.looks >= TYPED_LOST_LOOKS && now() - w.since >= TYPED_LOST_MS) {
      this.typedWatch = null;
      this.host.lost(a, { kind: "read" });
      return;
    }
    w.timer = later(() => this.watchTyped(), TYPED_LOOK_MS);
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
        const c = this.core.active?.candidates.at(-1);
        if (c !== undefined) {
          if (t.seq === c.seq && t.token === c.token) c.claimedCwd = m.path;
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
        a.started = true;
        a.beginOutput();
      } else if (a.phase === "output" && !a.started && a.startSeq === null && seq !== null && seq > a.afterSeq) {
        a.startSeq = seq; // after the paste switch already ended the echo
        a.started = true;
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
    const verifiable = this.verifiable();
    if (seq !== null) {
      // A command's end is bound to it: newer than anything before it was typed, and (where ends cannot be verified)
      // its own start's number. Where they are verified, the token binds it, and the numbers a marker claims move
      // nothing: only verified ends raise lastSeq (a forger printing a high number while the shell is idle would
      // otherwise make the next command's real end look old), and a forged start's number holds no real end back.
      if (a === null || a.phase === "preparing" || a.phase === "ended") {
        if (!verifiable && seq > this.lastSeq) this.lastSeq = seq;
        return;
      }
      if (seq <= a.afterSeq || (!verifiable && a.startSeq !== null && seq !== a.startSeq)) return;
    } else if (a === null || a.phase === "preparing" || a.phase === "ended") {
      return;
    }
    // A candidate until it is verified. Where ends carry a token the shell publishes only after the real one, every
    // candidate is kept (the first with that token is the end); elsewhere a later end of the same number replaces an
    // earlier one (the text between the two was the command's: it printed the first one itself).
    if (!verifiable) a.releaseCandidates();
    a.addCandidate({ seq, token, code, discarded: this.discarded, claimedCwd: undefined, prompted: false, held: "" });
    this.discarded = 0;
  }

  /** Whether the runtime can tell what the shell does (node on Linux): ends are then verified before they count. */
  private verifiable(): boolean {
    return this.shell.proc?.probe !== undefined;
  }

  private onPromptMarker(): void {
    const a = this.core.active;
    if (a !== null && a.phase !== "preparing") {
      const c = a.candidates.at(-1);
      if (c === undefined || c.prompted) return; // not after an end marker of its own: printed by the command
      c.prompted = true;
      this.shell.pasteOn = false; // the line editor switches it on again when it starts reading
      if (this.check === null) this.check = { a, since: now(), quick: END_CHECK_QUICK, timer: null };
      this.check.quick = END_CHECK_QUICK;
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
    this.saveIdleState(2);
    if (person.atPrompt() || moved) this.core.emitState();
  }

  /**
   * After a prompt of the shell's own (a person's command, an empty line): its state is taken when the shell waits at
   * its prompt with a token not seen before (a prompt marker alone proves nothing: anything can print one). The token
   * comes a moment after the marker: look again on the next turns.
   */
  private saveIdleState(tries: number): void {
    if (this.core.active !== null) return;
    const p = this.shell.proc?.probe?.() ?? null;
    if (p === null || p.token === undefined) return;
    if (p.state === "prompt" && p.token !== this.shell.savedToken) this.shell.saveState(p.token);
    else if (tries > 0 && p.token === this.shell.savedToken) soon(() => this.saveIdleState(tries - 1));
  }

  /**
   * Whether keys sent to `a` now would reach the shell's prompt: its end is in, or the shell waits at its prompt having
   * ended the command (a newer token). Then nothing is sent (it would be typed as a command).
   */
  ending(a: RunningCommand): boolean {
    if (a.phase === "ended") return true;
    if (!this.verifiable()) return a.candidates.length > 0;
    const p = this.shell.proc?.probe?.() ?? null;
    if (p === null) return a.candidates.length > 0;
    if (p.state !== "prompt") return false;
    if (p.token === undefined && a.tokenBefore === undefined) return a.candidates.length > 0;
    return p.token !== a.tokenBefore;
  }

  /**
   * Verifies the candidate ends out of band, where the runtime can (node: /proc). The prompt hook prints the real end,
   * then publishes its token (the shell's name); a forger can copy the token only after that, so its end comes after
   * the real one. So: while the shell's token is the one it had when the command was typed, the hook has not finished;
   * once it is new, the first candidate carrying it is the end (when the shell waits at its prompt), the ones before it
   * were printed by the command (their text is output), and what follows it is the prompt's. None carrying it: all were
   * printed by the command, and the real end is still on its way. Until decided, the candidates are looked at again on
   * every chunk of output, at once while the prompt is likely on its way, then less often.
   */
  private runCheck(): void {
    const k = this.check;
    if (k === null) return;
    k.timer?.();
    k.timer = null;
    const { a } = k;
    if (this.core.active !== a || a.phase === "ended" || a.candidates.length === 0) {
      this.check = null;
      return;
    }
    const decided = this.decide(a);
    if (decided !== null) {
      this.check = null;
      this.confirm(a, a.takeCandidate(decided));
      return;
    }
    if (a.candidates.length === 0) {
      this.check = null;
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

  /** The index of the candidate that is the command's end, or null (candidates found forged are released). */
  private decide(a: RunningCommand): number | null {
    const last = a.candidates.length - 1;
    const probe = this.shell.proc?.probe;
    // Where nothing can be verified, the last end with its prompt counts (a later one replaced any earlier).
    if (probe === undefined) return a.candidates[last]!.prompted ? last : null;
    const p = probe.call(this.shell.proc);
    if (p === null) return a.candidates[last]!.prompted ? last : null; // the shell is gone: nothing to tell
    if (p.token === undefined && a.tokenBefore === undefined) {
      // The shell publishes no token (its name could not be set): the shell at its prompt is all there is to go by.
      return p.state === "prompt" && a.candidates[last]!.prompted ? last : null;
    }
    if (p.token === a.tokenBefore) return null; // the hook has not finished: the end may still be among them, or coming
    const i = a.candidates.findIndex((c) => c.token === p.token);
    if (i === -1) {
      a.releaseCandidates();
      return null;
    }
    if (i > 0) a.releaseCandidates(i);
    return p.state === "prompt" ? 0 : null;
  }

  private confirm(a: RunningCommand, c: EndCandidate): void {
    if (c.seq !== null && c.seq > this.lastSeq) this.lastSeq = c.seq;
    this.typedWatch?.timer?.();
    this.typedWatch = null;
    const verified = this.shell.proc?.shellCwd?.(c.claimedCwd);
    const cwd = verified ?? c.claimedCwd;
    if (cwd !== undefined) this.core.cwd = cwd;
    if (c.token !== undefined) this.shell.saveState(c.token);
    a.endOutput();
    a.exitCode = c.code;
    a.phase = "ended";
    this.shell.atPrompt = true;
    this.core.person.entered = false;
    this.host.complete(a, { discarded: c.discarded });
  }
}

/** How often a typed command the shell has not shown it read is looked at. */
const TYPED_LOOK_MS = 50;
/** It is taken as lost only after this many looks in a row found the shell at its prompt with nothing heard ... */
const TYPED_LOST_LOOKS = 4;
/** ... spanning at least this long (a loaded machine may take a while to relay the typed bytes). */
const TYPED_LOST_MS = 400;

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
