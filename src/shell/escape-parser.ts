// The escape sequences in terminal output, after ECMA-48 / the DEC VT500 state machine (the parts a transcript needs):
// which characters belong to a sequence, and which sequences mean something to the reader of them (terminal-text.ts).
// A sequence split across chunks is carried over in the parser's state; nothing of it is ever handed on as text.

/** What a sequence does, for whoever reads the parser's findings. */
export interface SequenceActions {
  /** A C0 control executed inside a CSI, as terminals do (the ground state's controls are the reader's). */
  control(c: number): void;
  /** A CSI sequence with no intermediate bytes: its `params` (at most MAX_CSI_PARAM_CHARS) and its final byte. */
  csi(final: number, params: string): void;
  /** A two-character escape (ESC =, ESC >, ESC 7, ESC M …): its final byte. */
  escape(c: number): void;
}

// Parser states.
const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
const OSC = 4; // ends at BEL or ST
const CONTROL_STRING = 5; // DCS, SOS, PM, APC: end at ST only
const STRING_ESCAPE = 6; // ESC inside a string: `\` makes it ST, anything else starts a new sequence

/** CSI parameters longer than this are ignored (no cursor move needs more), so a hostile stream cannot grow them. */
const MAX_CSI_PARAM_CHARS = 32;

const OSC_END = /[\x07\x18\x1a\x1b\x9c]/g;
const STRING_END = /[\x18\x1a\x1b\x9c]/g;

/**
 * Removes every escape sequence: SGR colours and other CSI (private modes too), OSC (BEL or ST), DCS/SOS/PM/APC,
 * two-byte and charset ESC sequences, handing `actions` the ones that can change what a screen shows.
 */
export class EscapeParser {
  private state = GROUND;
  private params = "";
  private csiIntermediate = false;

  constructor(private readonly actions: SequenceActions) {}

  /** Inside a sequence: what comes next is the parser's (consume) until it returns to the ground state. */
  get inSequence(): boolean {
    return this.state !== GROUND;
  }

  /** An ESC in the ground state: a sequence begins. */
  begin(): void {
    this.state = ESCAPE;
  }

  /** Forgets a sequence left unfinished (end of output). */
  reset(): void {
    this.state = GROUND;
    this.params = "";
  }

  /** Consumes escape-sequence characters from `i`; returns where the ground state resumes (or s.length). */
  consume(s: string, i: number): number {
    const n = s.length;
    while (i < n) {
      const c = s.charCodeAt(i);
      switch (this.state) {
        case ESCAPE:
          if (c === 0x5b) {
            this.state = CSI;
            this.params = "";
            this.csiIntermediate = false;
          } else if (c === 0x5d) this.state = OSC;
          else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = CONTROL_STRING;
          else if (c >= 0x20 && c <= 0x2f) this.state = ESCAPE_INTERMEDIATE; // e.g. ESC ( B
          else if (c >= 0x30 && c <= 0x7e) {
            this.state = GROUND; // ESC =, ESC >, ESC 7, ESC M …
            this.actions.escape(c);
          }
          else if (c !== 0x1b) {
            this.state = GROUND; // a control or non-ASCII character cancels the sequence and counts on its own
            return i;
          }
          break;
        case ESCAPE_INTERMEDIATE:
          if (c >= 0x30 && c <= 0x7e) this.state = GROUND;
          else if (c === 0x1b) this.state = ESCAPE;
          else if (c < 0x20 || c > 0x7e) {
            this.state = GROUND;
            return i;
          }
          break;
        case CSI:
          if (c >= 0x30 && c <= 0x3f) {
            if (this.params.length < MAX_CSI_PARAM_CHARS) this.params += s[i];
          } else if (c >= 0x40 && c <= 0x7e) {
            this.state = GROUND;
            if (!this.csiIntermediate && this.params.length < MAX_CSI_PARAM_CHARS) this.actions.csi(c, this.params);
          } else if (c >= 0x20 && c <= 0x2f) this.csiIntermediate = true;
          else if (c === 0x1b) this.state = ESCAPE;
          else if (c === 0x18 || c === 0x1a) this.state = GROUND; // CAN, SUB
          else if (c < 0x20) this.actions.control(c);
          else if (c !== 0x7f) {
            this.state = GROUND;
            return i;
          }
          break;
        case OSC:
        case CONTROL_STRING: {
          // Skip the body with one regex search: OSC 8 links and OSC 52 payloads can be long.
          const end = this.state === OSC ? OSC_END : STRING_END;
          end.lastIndex = i;
          const m = end.exec(s);
          if (m === null) return n;
          i = m.index;
          const t = s.charCodeAt(i);
          this.state = t === 0x1b ? STRING_ESCAPE : GROUND;
          break;
        }
        case STRING_ESCAPE:
          if (c === 0x5c) this.state = GROUND;
          else {
            this.state = ESCAPE; // the ESC aborted the string and begins a sequence of its own
            continue;
          }
          break;
        default:
          return i;
      }
      i++;
      if (this.state === GROUND) return i;
    }
    return i;
  }
}
