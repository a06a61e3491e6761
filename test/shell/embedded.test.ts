// The session engine on the embedded runtime (just-bash in a worker): the shared conformance suite.

import { heapUsedAfterGc } from "./heap.ts";
import { createEmbeddedRuntime } from "../../src/runtime/embedded/index.ts";
import { conformanceSuite, ENV_CASE } from "./conformance.ts";

conformanceSuite("embedded", () => createEmbeddedRuntime(), { heapUsed: heapUsedAfterGc, skip: [ENV_CASE] });
