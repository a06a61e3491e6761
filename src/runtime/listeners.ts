// The runtime's listener sets are the leaf module's (src/lib/listeners.ts). This re-export stays while branches that
// split the runtimes still import "../listeners.ts"; new code imports src/lib/listeners.ts.
export { Listeners } from "../lib/listeners.ts";
