// The guard inside a module Worker: createGuard() loads the wasm here, check() answers each message.
// The listener is added before anything is awaited: a worker drops messages that arrive while its
// module is suspended at a top-level await with no listener yet.
import { createGuard } from "../src/guard/index.ts";

const guard = createGuard();
self.addEventListener("message", async (e: MessageEvent<{ id: number; command: string }>) => {
  self.postMessage({ id: e.data.id, verdict: (await guard).check(e.data.command) });
});
