// The embedded runtime as the playground runs it: just-bash in a module Web Worker in Chromium, driven by
// the same session engine and the same conformance suite as in Node (memory is measured in Node only).
import { createEmbeddedRuntime } from "../../src/runtime/embedded/index.ts";
import { conformanceSuite, ENV_CASE } from "./conformance.ts";

conformanceSuite("embedded in a Chromium Web Worker", () => createEmbeddedRuntime(), { skip: [ENV_CASE] });
