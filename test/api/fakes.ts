// Fakes for what Node does not have: windows that post to each other with origins (for the handshake and
// connectSandbox), and a port whose events a test fires by hand (for messageerror).

import type { PortLike } from "../../src/api/transport.ts";

type Listener = (event: MessageEvent) => void;

/** A window: listeners, an origin, a parent. Windows reach each other only through views (below). */
export class FakeWindow {
  readonly location: { origin: string };
  parent: unknown = this;
  private readonly listeners = new Set<Listener>();
  private readonly others = new Map<string, Set<() => void>>();
  readonly dropped: Array<{ data: unknown; targetOrigin: string }> = [];

  constructor(origin: string) {
    this.location = { origin };
  }

  addEventListener(type: string, listener: Listener): void {
    if (type === "message") this.listeners.add(listener);
    else {
      if (!this.others.has(type)) this.others.set(type, new Set());
      this.others.get(type)!.add(listener as () => void);
    }
  }

  removeEventListener(type: string, listener: Listener): void {
    if (type === "message") this.listeners.delete(listener);
    else this.others.get(type)?.delete(listener as () => void);
  }

  /** Message listeners. */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Fires a non-message event (pagehide). */
  fire(type: string): void {
    for (const l of [...(this.others.get(type) ?? [])]) l();
  }

  countOf(type: string): number {
    return this.others.get(type)?.size ?? 0;
  }

  /** Delivers a message as the browser would: later, with the sender's origin and its view as source. */
  deliver(data: unknown, targetOrigin: string, from: { origin: string; view: unknown }, ports: unknown[] = []): void {
    if (targetOrigin !== "*" && targetOrigin !== this.location.origin) {
      this.dropped.push({ data, targetOrigin });
      return;
    }
    setTimeout(() => {
      const event = { data, origin: from.origin, source: from.view, ports } as unknown as MessageEvent;
      for (const l of [...this.listeners]) l(event);
    }, 0);
  }
}

/** How one window sees another: what `iframe.contentWindow` and `window.parent` are. */
export interface WindowView {
  window: WindowView;
  postMessage(data: unknown, targetOrigin: string, transfer?: unknown[]): void;
}

/** Frames `frame` in `host`: returns the iframe element as the host sees it. */
export function frame(host: FakeWindow, inner: FakeWindow, src: string): { src: string; contentWindow: WindowView } {
  const hostView = {} as WindowView; // the host, seen from the frame (frame's window.parent)
  const frameView = {} as WindowView; // the frame, seen from the host (iframe.contentWindow)
  hostView.window = hostView;
  frameView.window = frameView;
  hostView.postMessage = (data, targetOrigin, transfer) => host.deliver(data, targetOrigin, { origin: inner.location.origin, view: frameView }, transfer);
  frameView.postMessage = (data, targetOrigin, transfer) => inner.deliver(data, targetOrigin, { origin: host.location.origin, view: hostView }, transfer);
  inner.parent = hostView;
  return { src, contentWindow: frameView };
}

/** A port whose events the test fires; what is posted is collected. */
export class FakePort implements PortLike {
  readonly posted: unknown[] = [];
  closed = false;
  started = false;
  private readonly listeners = new Map<string, Set<(event: MessageEvent) => void>>();

  postMessage(message: unknown): void {
    if (!this.closed) this.posted.push(message);
  }
  start(): void {
    this.started = true;
  }
  close(): void {
    this.closed = true;
  }
  addEventListener(type: string, listener: (event: MessageEvent) => void): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }
  removeEventListener(type: string, listener: (event: MessageEvent) => void): void {
    this.listeners.get(type)?.delete(listener);
  }
  fire(type: "message" | "messageerror" | "close", data?: unknown): void {
    for (const l of [...(this.listeners.get(type) ?? [])]) l({ data } as MessageEvent);
  }
}
