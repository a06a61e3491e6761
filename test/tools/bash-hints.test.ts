// The bash tool's pure parts: runtime capability gaps as hints, and the timeout rules.

import { describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/runtime/types.ts";
import { effectiveTimeout } from "../../src/tools/bash.ts";
import { capabilityHints } from "../../src/tools/bash-result.ts";

const none: Capabilities = { heredocs: false, pipes: false, redirects: false, lists: false, background: false, exportVars: false, programs: { make: false, ls: true } };
const all: Capabilities = { heredocs: true, pipes: true, redirects: true, lists: true, background: true, exportVars: true, programs: {} };

describe("capability hints", () => {
  it("a shell without heredocs points to write_file", () => {
    expect(capabilityHints("cat > a.py <<'EOF'\nx\nEOF", none).join(" ")).toMatch(/heredocs.*write_file/);
  });

  it("names pipes, lists and background jobs when the runtime lacks them", () => {
    const hints = capabilityHints("ls | wc -l; sleep 1 &", none).join("\n");
    expect(hints).toMatch(/pipes/);
    expect(hints).toMatch(/`;`, `\|\|` or `\$\?`/);
    expect(hints).toMatch(/run_in_background/);
  });

  it("quoted text, 2>&1, &> and && are not pipes, lists or background jobs", () => {
    expect(capabilityHints('echo "a & b | c; d" 2>&1 && echo ok &> /dev/null', { ...none, redirects: true })).toEqual([]);
  });

  it("a runtime that has everything gets no hints", () => {
    expect(capabilityHints("cat <<EOF | sort; sleep 1 &\nb\nEOF", all)).toEqual([]);
  });

  it("a program the runtime lacks is named when the command was not found", () => {
    const r = { output: "", exitCode: 127, cwd: "/", durationMs: 1, status: "completed" as const, truncated: false };
    expect(capabilityHints("make build", none, r).join("")).toBe("make is not available in this runtime. Programs it has include: ls.");
    expect(capabilityHints("make build", none, { ...r, exitCode: 2 })).toEqual([]);
  });
});

describe("timeout", () => {
  it("keeps a valid timeout, clamps a large one, reads milliseconds as such, and ignores a non-positive one", () => {
    expect(effectiveTimeout(30)).toEqual({ sec: 30 });
    expect(effectiveTimeout(undefined)).toEqual({ sec: undefined });
    expect(effectiveTimeout(5_000_000)).toMatchObject({ sec: 600 });
    expect(effectiveTimeout(300_000)).toMatchObject({ sec: 300 });
    expect(effectiveTimeout(0).sec).toBeUndefined();
    expect(effectiveTimeout(-5).note).toMatch(/default 120 s applies/);
  });
});
