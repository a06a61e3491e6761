// Subscribers to one kind of event (a process's output, a runtime's events, approvals, the audit log): a listener
// that throws is logged and the others still hear the event. Listeners belong to others; one broken subscriber must
// not silence a shell, a log or an API.

export type Unsubscribe = () => void;

/** Calls `fn`; when it throws, logs "sandshell: a <what> listener threw" and goes on. */
export function callListener(what: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    console.error(`sandshell: ${/^[aeiou]/i.test(what) ? "an" : "a"} ${what} listener threw:`, err);
  }
}

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** `what` names the listeners in the log line ("runtime", "terminal", "approvals"). */
  constructor(private readonly what: string) {}

  add(listener: (value: T) => void): Unsubscribe {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  /** Every listener hears `value`, in the order they were added; one added meanwhile waits for the next event. */
  emit(value: T): void {
    if (this.set.size === 0) return;
    for (const listener of [...this.set]) callListener(this.what, () => listener(value));
  }

  get size(): number {
    return this.set.size;
  }

  clear(): void {
    this.set.clear();
  }
}
