// The call queue: the sandbox's callers share one shell, so their bash calls run one at a time (check, approval,
// run), in the order they came; a second caller waits instead of being refused, and a cancelled wait leaves the line.

export /** A FIFO lock: bash calls run one at a time, in the order they came. */
class CallQueue {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  /** Resolves with a release function, or null when `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i !== -1) this.waiting.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  get length(): number {
    return this.waiting.length + (this.busy ? 1 : 0);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.busy = false;
    };
  }
}
