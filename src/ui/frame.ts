// Work for the screen, done once per animation frame instead of once per event: the views watch the sandbox and never
// sit on a tool call's path (a call's output, state changes and audit entries only queue here). What arrives between
// two frames is handed over together, in order; where frames stop (a hidden tab), UI.frameFallbackMs still drains it.

import { UI } from "../limits.ts";

export interface FrameQueue<T> {
  /** Queues an item for the next frame. */
  push(item: T): void;
  /** Hands over what is queued now (before something that must come after it). */
  flush(): void;
}

export function perFrame<T>(apply: (items: T[]) => void): FrameQueue<T> {
  let items: T[] = [];
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    if (frame !== 0) cancelAnimationFrame(frame);
    if (timer !== null) clearTimeout(timer);
    frame = 0;
    timer = null;
    if (items.length === 0) return;
    const taken = items;
    items = [];
    apply(taken);
  };
  return {
    push(item) {
      items.push(item);
      if (frame !== 0 || timer !== null) return;
      frame = requestAnimationFrame(flush);
      timer = setTimeout(flush, UI.frameFallbackMs);
    },
    flush,
  };
}
