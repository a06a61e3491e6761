// The person at the terminal: what they type goes to the shell when no agent command runs, and waits in a bounded
// queue while one does (C-c excepted: a person may always stop what runs).

import { SHELL } from "../limits.ts";

export class PersonInput {
  /** A command the person entered runs (its start marker came, its prompt not yet). */
  busy = false;
  /** The person typed since the last prompt. */
  dirty = false;
  /** The person pressed Enter since the last prompt: a continuation line (PS2) may be open. */
  entered = false;
  private queue: string[] = [];
  private queued = 0;

  /** Keys typed while the agent's command runs: kept (bounded) for when it has ended. */
  hold(data: string): void {
    if (this.queued + data.length > SHELL.maxPersonQueueChars) return;
    this.queue.push(data);
    this.queued += data.length;
  }

  /** Notes keys that go to the shell now. */
  typed(data: string): void {
    this.dirty = true;
    if (/[\r\n]/.test(data)) this.entered = true;
  }

  /** The held keys, now due (null when none); they count as typed. */
  release(): string | null {
    if (this.queue.length === 0) return null;
    const data = this.queue.join("");
    this.queue = [];
    this.queued = 0;
    this.typed(data);
    return data;
  }

  /** A prompt came: whatever the person ran is over. True when that changes the session's state. */
  atPrompt(): boolean {
    this.entered = false;
    const changed = this.busy || this.dirty;
    this.busy = false;
    this.dirty = false;
    return changed;
  }

  reset(): void {
    this.busy = false;
    this.dirty = false;
  }
}
