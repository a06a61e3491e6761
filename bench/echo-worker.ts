// bench/echo-frame.ts's Worker: every message straight back (the bare page → Worker round trip).

const scope = self as unknown as { onmessage: ((e: MessageEvent) => void) | null; postMessage(m: unknown): void };
scope.onmessage = (e) => scope.postMessage(e.data);
