// The worker's devices: paths that are not files. What a statement writes to the output device (and /dev/tty) goes
// to the terminal; reading a terminal device waits for what is typed (config.ts DEVICES); /dev/null keeps nothing
// (to just-bash's InMemoryFs it is a plain file, which would keep what is written there and give it back).

import { normalizePath } from "../../lib/paths.ts";
import { DEVICES } from "./config.ts";

/**
 * How a running command reads the terminal: to end of input (C-d), one line, or a count of lines or characters
 * (characters end early at Enter, as `read -n` does). Silent reads are not echoed.
 */
export type TtyKind = "eof" | "line" | "line-silent" | { lines: number } | { chars: number; silent: boolean };

export interface DeviceHooks {
  /** Output of a statement: text (already decoded). */
  output(text: string): void;
  /** Input from the terminal, as text. */
  readTty(kind: TtyKind): Promise<string>;
  /** The bytes of the page's file at `path` (a stub is read); null when the page has no such file. */
  fetch(path: string): Promise<Uint8Array | null>;
}

export type Enc = string | { encoding?: string | null } | null | undefined;

export function encodingOf(options: Enc): string {
  if (typeof options === "string") return options;
  return options?.encoding ?? "utf8";
}

function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

export function bytesToLatin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
}

export function ttyKind(path: string): TtyKind | null {
  const p = normalizePath(path);
  if (p === DEVICES.tty) return "eof";
  if (p === DEVICES.ttyLine) return "line";
  if (p === DEVICES.ttyLineSilent) return "line-silent";
  if (p.startsWith(DEVICES.ttyCounted)) {
    const m = /^(lines|chars|chars-silent)-([1-9][0-9]{0,8})$/.exec(p.slice(DEVICES.ttyCounted.length));
    if (m === null) return null;
    const n = Number(m[2]);
    return m[1] === "lines" ? { lines: n } : { chars: n, silent: m[1] === "chars-silent" };
  }
  return null;
}

/** Writes to and reads from the devices, through the hooks the worker's core gives (null: not yet attached). */
export class Devices {
  private readonly decoder = new TextDecoder("utf-8");

  constructor(private readonly hooks: () => DeviceHooks | null) {}

  /** A write to `path`: true when it was a device's (taken here), false when `path` is a file. */
  write(path: string, content: Uint8Array | string, options: Enc): boolean {
    const p = normalizePath(path);
    if (p === "/dev/null") return true;
    if (p !== DEVICES.out && p !== DEVICES.tty) return false; // writing to /dev/tty is writing to the terminal
    const hooks = this.hooks();
    if (hooks === null) return true;
    let text: string;
    if (typeof content !== "string") text = this.decoder.decode(content, { stream: true });
    else {
      const enc = encodingOf(options);
      text = enc === "binary" || enc === "latin1" ? this.decoder.decode(latin1ToBytes(content), { stream: true }) : content;
    }
    if (text !== "") hooks.output(text);
    return true;
  }

  /** A read of `path`: what is typed when it is a terminal device, null when it is a file. */
  async read(path: string): Promise<string | null> {
    const kind = ttyKind(path);
    if (kind === null) return null;
    const hooks = this.hooks();
    return hooks === null ? "" : hooks.readTty(kind);
  }
}
