// OSC 654 markers: how a runtime's shell tells the session where a command starts and ends. One module formats them
// (for TypeScript emitters and, as bash code, for the node runtime's setup file) and scans them. Output arrives in
// arbitrary chunks, so a marker can be split anywhere (even inside a UTF-8 character) and one chunk can carry several;
// the scanner keeps only the smallest possible carry-over and hands everything else on at once.
//
// Payloads (A = tag: the runtime's nonce; on node with the command's sequence number and the end's token,
// `NONCE.SEQ.TOKEN`; never a colon):
//   interactive        the shell is set up and reads commands
//   prompt             a prompt follows (the previous command, if any, is over)
//   start=A            the command line was read and runs now (everything before was its echo)
//   exit=A:CODE        the command ended with CODE
//   cwd=A:PATH         the shell's working directory after it
//   envfile=A:PATH     where the shell writes its state before each prompt (for a respawn)
//   jobend=A           a background job's command is over (the job then waits for one line, see node.ts)
//   discarded=A:COUNT  typed-ahead characters the command did not read were dropped before the prompt

import { SHELL } from "../limits.ts";

export type Marker =
  | { kind: "interactive" }
  | { kind: "prompt" }
  | { kind: "start"; tag: string }
  | { kind: "exit"; tag: string; code: number }
  | { kind: "cwd"; tag: string; path: string }
  | { kind: "envfile"; tag: string; path: string }
  | { kind: "jobend"; tag: string }
  | { kind: "discarded"; tag: string; count: number }
  | { kind: "other"; payload: string };

/** A marker without its `other` case: what an emitter may print. */
export type EmittedMarker = Exclude<Marker, { kind: "other" }>;

export type ScanEvent = { type: "text"; text: string } | { type: "marker"; marker: Marker };

const ESC = "\x1b";
const BEL = "\x07";
const PREFIX = "\x1b]654;";

/** A would-be marker longer than this without a terminator is not one: it is released as text. */
export const MAX_MARKER_CHARS: number = SHELL.markerMaxChars;

/** The terminal bytes of one marker: a payload string, or a Marker (formatted by `markerPayload`). */
export function formatMarker(payload: string | EmittedMarker): string {
  return PREFIX + (typeof payload === "string" ? payload : markerPayload(payload)) + BEL;
}

export function markerPayload(m: EmittedMarker): string {
  switch (m.kind) {
    case "interactive":
    case "prompt":
      return m.kind;
    case "start":
    case "jobend":
      return `${m.kind}=${m.tag}`;
    case "exit":
      return `exit=${m.tag}:${m.code}`;
    case "discarded":
      return `discarded=${m.tag}:${m.count}`;
    case "cwd":
    case "envfile":
      return `${m.kind}=${m.tag}:${m.path}`;
  }
}

/** A marker whose fields are bash words (expansions such as "$PWD", or single-quoted text), for generated bash code. */
export type BashMarker =
  | { kind: "interactive" | "prompt" }
  | { kind: "start" | "jobend"; tag: string }
  | { kind: "exit"; tag: string; code: string }
  | { kind: "discarded"; tag: string; count: string }
  | { kind: "cwd" | "envfile"; tag: string; path: string };

/**
 * Bash code that prints `markers` with one `builtin printf`: the payloads' fixed text goes in the format (with `%`
 * doubled), every field is a `%s` argument, so no value is ever read as a format.
 */
export function bashPrintMarkers(markers: readonly BashMarker[]): string {
  let format = "";
  const args: string[] = [];
  for (const m of markers) {
    let payload: string;
    switch (m.kind) {
      case "interactive":
      case "prompt":
        payload = m.kind;
        break;
      case "start":
      case "jobend":
        payload = `${m.kind}=%s`;
        args.push(m.tag);
        break;
      case "exit":
        payload = "exit=%s:%s";
        args.push(m.tag, m.code);
        break;
      case "discarded":
        payload = "discarded=%s:%s";
        args.push(m.tag, m.count);
        break;
      case "cwd":
      case "envfile":
        payload = `${m.kind}=%s:%s`;
        args.push(m.tag, m.path);
        break;
    }
    format += `\\e]654;${payload}\\a`;
  }
  return `builtin printf '${format}'${args.map((a) => ` ${a}`).join("")}`;
}

/**
 * `exit=A:B` splits at the last colon (B is an integer, A is opaque), `cwd=A:PATH` at the first (paths may hold colons),
 * so a tag must not contain a colon. Anything that does not parse is `other`, never an error.
 */
export function parseMarker(payload: string): Marker {
  if (payload === "interactive") return { kind: "interactive" };
  if (payload === "prompt") return { kind: "prompt" };
  if (payload.startsWith("start=") || payload.startsWith("jobend=")) {
    const eq = payload.indexOf("=");
    const tag = payload.slice(eq + 1);
    if (!tag.includes(":")) return { kind: eq === 5 ? "start" : "jobend", tag };
  } else if (payload.startsWith("envfile=")) {
    const colon = payload.indexOf(":", 8);
    if (colon > 0) return { kind: "envfile", tag: payload.slice(8, colon), path: payload.slice(colon + 1) };
  } else if (payload.startsWith("discarded=")) {
    const colon = payload.lastIndexOf(":");
    const count = payload.slice(colon + 1);
    if (colon > 9 && /^\d{1,10}$/.test(count)) return { kind: "discarded", tag: payload.slice(10, colon), count: Number(count) };
  } else if (payload.startsWith("exit=")) {
    const colon = payload.lastIndexOf(":");
    const codeText = payload.slice(colon + 1);
    if (colon > 4 && /^-?\d{1,10}$/.test(codeText)) {
      return { kind: "exit", tag: payload.slice(5, colon), code: Number(codeText) };
    }
  } else if (payload.startsWith("cwd=")) {
    const colon = payload.indexOf(":", 4);
    if (colon > 0) return { kind: "cwd", tag: payload.slice(4, colon), path: payload.slice(colon + 1) };
  }
  return { kind: "other", payload };
}

/** Where the marker that starts at `start` ends, or why it cannot be told yet. */
type Probe =
  | { state: "marker"; payloadEnd: number; end: number }
  | { state: "incomplete" } // could still become a marker: hold it back
  | { state: "not-marker" };

function probe(data: string, start: number): Probe {
  const n = data.length;
  // Compare the fixed prefix first: most ESCs in real output are colour codes and fail here at once.
  for (let k = 1; k < PREFIX.length; k++) {
    if (start + k >= n) return { state: "incomplete" };
    if (data.charCodeAt(start + k) !== PREFIX.charCodeAt(k)) return { state: "not-marker" };
  }
  // A bounded per-character loop: it stops at the first BEL or ESC, so hostile input cannot make it quadratic.
  const limit = Math.min(n, start + MAX_MARKER_CHARS);
  for (let i = start + PREFIX.length; i < limit; i++) {
    const c = data.charCodeAt(i);
    if (c === 0x07) return { state: "marker", payloadEnd: i, end: i + 1 };
    if (c === 0x1b) {
      if (i + 1 >= n) return n - start < MAX_MARKER_CHARS ? { state: "incomplete" } : { state: "not-marker" };
      // ESC \ is the string terminator; any other ESC aborts the OSC the way a terminal would.
      return data.charCodeAt(i + 1) === 0x5c
        ? { state: "marker", payloadEnd: i, end: i + 2 }
        : { state: "not-marker" };
    }
  }
  return limit === n && n - start < MAX_MARKER_CHARS ? { state: "incomplete" } : { state: "not-marker" };
}

export class MarkerScanner {
  // ignoreBOM: a terminal shows a BOM as it is; stripping it would also differ between the first chunk and later ones.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Undecided tail of the previous chunk: always a possible marker prefix, at most MAX_MARKER_CHARS long. */
  private held = "";
  private pendingBytes = false;

  push(chunk: string | Uint8Array): ScanEvent[] {
    let text: string;
    if (typeof chunk === "string") {
      // Bytes still waiting for the rest of a character come first, as whatever they decode to.
      text = this.pendingBytes ? this.decoder.decode() + chunk : chunk;
      this.pendingBytes = false;
    } else {
      text = this.decoder.decode(chunk, { stream: true });
      this.pendingBytes = chunk.length > 0;
    }
    if (this.held === "" && text.indexOf(ESC) === -1) return text === "" ? [] : [{ type: "text", text }];
    const data = this.held + text;
    this.held = "";
    return this.scan(data);
  }

  /** End of stream: bytes and a held-back would-be marker become text. */
  flush(): ScanEvent[] {
    const rest = this.held + (this.pendingBytes ? this.decoder.decode() : "");
    this.held = "";
    this.pendingBytes = false;
    return rest === "" ? [] : [{ type: "text", text: rest }];
  }

  private scan(data: string): ScanEvent[] {
    const events: ScanEvent[] = [];
    let textStart = 0;
    let i = data.indexOf(ESC);
    while (i !== -1) {
      const p = probe(data, i);
      if (p.state === "incomplete") {
        this.held = data.slice(i);
        break;
      }
      if (p.state === "not-marker") {
        i = data.indexOf(ESC, i + 1);
        continue;
      }
      if (i > textStart) events.push({ type: "text", text: data.slice(textStart, i) });
      events.push({ type: "marker", marker: parseMarker(data.slice(i + PREFIX.length, p.payloadEnd)) });
      textStart = p.end;
      i = data.indexOf(ESC, textStart);
    }
    const textEnd = this.held === "" ? data.length : data.length - this.held.length;
    if (textEnd > textStart) events.push({ type: "text", text: data.slice(textStart, textEnd) });
    return events;
  }
}
