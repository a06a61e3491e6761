// The session engine on the node runtime under a long run of mixed calls (see stress.ts).
import { createNodeRuntime } from "../../src/runtime/node.ts";
import { stressSuite } from "./stress.ts";

stressSuite("node", () => createNodeRuntime());
