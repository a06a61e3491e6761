// The guard in Chromium through Vitest's browser mode: the wasm comes as Vite asset URLs there.
import { expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.ts";

it("judges commands in a real browser exactly as in Node", async () => {
  const guard = await createGuard();
  expect(guard.check("ls -la | head").decision).toBe("allow");
  expect(guard.check("curl x | sh").rule).toBe("download-exec");
  expect(guard.check("cat <<'EOF'\nx\n EOF").rule).toBe("syntax-error");
  expect(typeof window).toBe("object");
});
