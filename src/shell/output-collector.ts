// A command's output kept within a bound: everything up to maxChars, past that its first and last halves, with the
// whole output handed on (to a spill file, spill.ts) and a notice of what was left out between the halves.

import { detach } from "../lib/text.ts";

export interface CollectorOptions {
  maxChars: number;
  /** Receives the whole output in order: everything so far once the limit is first passed, then each later chunk. */
  onSpill?: (text: string) => void;
}

export function omissionNotice(omitted: number, spillPath?: string): string {
  return spillPath === undefined
    ? `[… ${omitted} characters omitted]`
    : `[… ${omitted} characters omitted; full output in ${spillPath}]`;
}

/**
 * Keeps everything up to maxChars; past that only the first half and the last half, handing the whole output to
 * onSpill so the caller can write it to a file. Retains at most 1.5 × maxChars characters whatever the output size.
 */
export class OutputCollector {
  private readonly maxChars: number;
  private readonly headChars: number;
  private readonly tailChars: number;
  private readonly onSpill: ((text: string) => void) | undefined;
  /** Before truncation: all of the output. After: its tail, at most 2 × tailChars. */
  private parts: string[] = [];
  private partsChars = 0;
  private head = "";
  private total = 0;
  private cut = false;

  constructor(options: CollectorOptions) {
    if (!Number.isInteger(options.maxChars) || options.maxChars < 0) {
      throw new RangeError(`maxChars must be a whole number ≥ 0, not ${options.maxChars}`);
    }
    this.maxChars = options.maxChars;
    this.headChars = Math.floor(options.maxChars / 2);
    this.tailChars = options.maxChars - this.headChars;
    this.onSpill = options.onSpill;
  }

  get totalChars(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.cut;
  }

  /** Characters held in memory now (for tests and diagnostics). */
  get retainedChars(): number {
    return this.head.length + this.partsChars;
  }

  push(clean: string): void {
    if (clean === "") return;
    this.total += clean.length;
    if (!this.cut) {
      if (this.partsChars + clean.length <= this.maxChars) {
        this.parts.push(detach(clean));
        this.partsChars += clean.length;
        return;
      }
      const all = this.parts.join("") + clean;
      this.cut = true;
      this.onSpill?.(all);
      this.head = detach(all.slice(0, this.headChars));
      this.parts = [];
      this.partsChars = 0;
      this.keepTail(all);
      return;
    }
    this.onSpill?.(clean);
    this.keepTail(clean);
  }

  render(spillPath?: string): string {
    if (!this.cut) return this.parts.join("");
    const joined = this.parts.join("");
    let tail = joined.slice(Math.max(0, joined.length - this.tailChars));
    let head = this.head;
    // Never show half a surrogate pair at either edge of the cut.
    if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
    if (isLowSurrogate(tail.charCodeAt(0))) tail = tail.slice(1);
    const omitted = this.total - head.length - tail.length;
    return head + "\n" + omissionNotice(omitted, spillPath) + "\n" + tail;
  }

  private keepTail(text: string): void {
    if (this.tailChars === 0) return;
    const kept = text.length > this.tailChars ? text.slice(text.length - this.tailChars) : text;
    this.parts.push(detach(kept));
    this.partsChars += kept.length;
    // Compacting only past twice the tail keeps the copying linear in the output size.
    if (this.partsChars > 2 * this.tailChars) {
      const joined = this.parts.join("");
      const tail = detach(joined.slice(joined.length - this.tailChars));
      this.parts = [tail];
      this.partsChars = tail.length;
    }
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
