// The transport floor of bench/api in Chromium: a page on the sandbox's origin, framed by the host page as the
// playground is, that does nothing but answer. The host page sends it a MessagePort (as connectSandbox does); on that
// port each message comes straight back, or (`via: "worker"`) goes on to a module Worker of this page and back: the
// two hops a tool call needs, with no work at either end. Bundled by bench/api.ts (esbuild); no Sandshell code runs here.

const worker = new Worker("/bench-echo-worker.js", { type: "module" });
let waiting: ((data: unknown) => void) | null = null;
worker.onmessage = (e) => waiting?.(e.data);

window.addEventListener("message", (event: MessageEvent) => {
  const port = event.ports[0];
  if (port === undefined) return;
  port.onmessage = (e: MessageEvent<{ via?: string }>) => {
    if (e.data.via !== "worker") {
      port.postMessage(e.data);
      return;
    }
    waiting = (data) => port.postMessage(data);
    worker.postMessage(e.data);
  };
  port.postMessage({ ready: true });
});
window.parent.postMessage({ echo: "ready" }, "*");
