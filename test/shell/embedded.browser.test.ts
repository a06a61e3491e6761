// The embedded runtime as the playground runs it: just-bash in a module Web Worker in Chromium, driven by
// the same session engine and the same conformance suite as in Node (memory is measured in Node only).
import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../src/runtime/embedded/index.ts";
import { createShellSession } from "../../src/shell/session.ts";
import { conformanceSuite, ENV_CASE } from "./conformance.ts";

conformanceSuite("embedded in a Chromium Web Worker", () => createEmbeddedRuntime(), { skip: [ENV_CASE] });

describe("embedded in a Chromium Web Worker: files", () => {
  it("a 2 MB file is read as bytes (wc, head -c, base64), whether the shell wrote it or gets it from the page", async () => {
    const runtime = await createEmbeddedRuntime();
    const session = await createShellSession(runtime);
    try {
      await session.run("seq 1 300000 > a.txt");
      // the next line gets the file from the page (the shell gave its copy back at the end of the line before)
      expect((await session.run("wc -c a.txt; head -c 6 a.txt | tr '\\n' ,; echo")).output).toBe("1988895 a.txt\n1,2,3,\n");
      await runtime.fs.writeFile(`${runtime.workspace}/page.bin`, new Uint8Array(300_000).fill(66));
      expect((await session.run("wc -c < page.bin; base64 page.bin | head -c 8; echo")).output).toBe("300000\nQkJCQkJC\n");
    } finally {
      await session.close();
      await runtime.dispose();
    }
  }, 60_000);
});
