// The OS sandbox's package is an optional peer (package.json): where it is not installed, the node runtime says how to
// add it instead of quietly running the shell unsandboxed. The package is installed here (devDependencies), so its
// absence is simulated: importing it fails as Node fails for a package that is not there.

import { existsSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

describe("without @anthropic-ai/sandbox-runtime installed", () => {
  it('the node runtime refuses to start, names the package and version to add and sandbox: "off"; it leaves no folder behind', async () => {
    vi.resetModules();
    vi.doMock("@anthropic-ai/sandbox-runtime", () => {
      const err = new Error("Cannot find package '@anthropic-ai/sandbox-runtime' imported from node/sandbox-library.ts") as NodeJS.ErrnoException;
      err.code = "ERR_MODULE_NOT_FOUND";
      throw err;
    });
    const { createNodeRuntime } = await import("../../src/runtime/node.ts");
    const { listPrivateDirs } = await import("../../src/runtime/node/private-dirs.ts");
    const { SANDBOX_RUNTIME_PACKAGE } = await import("../../src/runtime/node/sandbox-library.ts");
    const before = listPrivateDirs().length;
    await expect(createNodeRuntime()).rejects.toThrow(
      new RegExp(`needs the optional package @anthropic-ai/sandbox-runtime[\\s\\S]*npm install @anthropic-ai/sandbox-runtime@${SANDBOX_RUNTIME_PACKAGE.version.replace(/\./g, "\\.")}[\\s\\S]*sandbox: "off"`),
    );
    expect(listPrivateDirs().length).toBe(before);
    // "off" needs no package.
    const off = await createNodeRuntime({ mode: "off" });
    expect(off.isolation).toMatchObject({ state: "off", tmp: "host" });
    await off.dispose();
    expect(existsSync(off.tempDir)).toBe(false);
    vi.doUnmock("@anthropic-ai/sandbox-runtime");
  });
});
