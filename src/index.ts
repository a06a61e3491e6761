// `sandshell` (browser): a sandbox in your own page, and serveSandbox to offer it over postMessage like the
// sandbox page does. Host pages that frame the sandbox page want `sandshell/client` or `sandshell/embed` instead.
export { createSandbox } from "./sandbox.ts";
export { serveSandbox, type ApiServer, type ServeOptions } from "./api/index.ts";
