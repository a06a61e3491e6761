// The session engine on the embedded runtime (just-bash in a worker) under a long run of mixed calls (see stress.ts).
import { createEmbeddedRuntime } from "../../src/runtime/embedded/index.ts";
import { stressSuite } from "./stress.ts";

stressSuite("embedded", () => createEmbeddedRuntime());
