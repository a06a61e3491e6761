// Subscribers to one kind of event: a process's output, a runtime's events. A listener that throws is
// logged and the others still hear the event: one broken subscriber must not silence a shell.
import type { Unsubscribe } from "./types.ts";

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** `what` names the listeners in the log line ("runtime", "terminal"). */
  constructor(private readonly what: string) {}

  add(listener: (value: T) => void): Unsubscribe {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of this.set) {
      try {
        listener(value);
      } catch (err) {
        console.error(`sandshell: a ${this.what} listener threw:`, err);
      }
    }
  }

  clear(): void {
    this.set.clear();
  }
}
