// Work for the screen, done once per animation frame instead of once per event: the views watch the sandbox and never
// sit on a tool call's path (a call's output, state changes and audit entries only queue here). What arrives between
// two draws is handed over together, in order; where frames stop (a hidden tab), UI.frameFallbackMs still drains it.
// A view that is costly to lay out (the activity panel) draws at most every `minIntervalMs`: a person reads no faster,
// and calls that come back to back would otherwise pay a page layout each.

import { UI } from "../limits.ts";

export interface FrameQueue<T> {
  /** Queues an item for the next draw. */
  push(item: T): void;
  /** Hands over what is queued now (before something that must come after it). */
  flush(): void;
}

export function perFrame<T>(apply: (items: T[]) => void, options: { minIntervalMs?: number } = {}): FrameQueue<T> {
  const minInterval = options.minIntervalMs ?? 0;
  let items: T[] = [];
  let frame = 0;
  let wait: ReturnType<typeof setTimeout> | null = null;
  let fallback: ReturnType<typeof setTimeout> | null = null;
  let last = -Infinity;
  const flush = (): void => {
    if (frame !== 0) cancelAnimationFrame(frame);
    if (wait !== null) clearTimeout(wait);
    if (fallback !== null) clearTimeout(fallback);
    frame = 0;
    wait = null;
    fallback = null;
    if (items.length === 0) return;
    last = performance.now();
    const taken = items;
    items = [];
    apply(taken);
  };
  return {
    push(item) {
      items.push(item);
      if (frame !== 0 || wait !== null || fallback !== null) return;
      const delay = last + minInterval - performance.now();
      if (delay > 0) wait = setTimeout(() => ((wait = null), (frame = requestAnimationFrame(flush))), delay);
      else frame = requestAnimationFrame(flush);
      fallback = setTimeout(flush, Math.max(delay, 0) + UI.frameFallbackMs);
    },
    flush,
  };
}
