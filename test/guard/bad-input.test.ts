// Bad input gets a well-formed verdict, never an uncaught throw or a hang.
import { describe, expect, it } from "vitest";
import { expectWellFormed, guardFor } from "./helpers.ts";

describe("bad input", () => {
  it.each([
    ["empty", "", "empty-command"],
    ["blank", " \n\t ", "empty-command"],
    ["a NUL byte", "echo a\u0000b", "invalid-input"],
    ["a lone high surrogate", "echo \uD800x", "invalid-input"],
    ["a lone low surrogate", "echo \uDC00", "invalid-input"],
  ])("%s gets %s", async (_name, command, rule) => {
    const v = (await guardFor()).check(command);
    expectWellFormed(v);
    expect(v).toMatchObject({ decision: "deny", layer: 0, rule });
  });

  it.each([[42], [null], [undefined], [{ command: "ls" }], [["ls"]], [Symbol.iterator]])("a non-string from JavaScript (%s) gets invalid-input", async (value) => {
    const v = (await guardFor()).check(value as unknown as string);
    expectWellFormed(v);
    expect(v.rule).toBe("invalid-input");
  });

  it("judges a 1 MB command", async () => {
    const command = "echo " + "a".repeat(1024 * 1024);
    const v = (await guardFor()).check(command);
    expectWellFormed(v);
    expect(v.decision).toBe("allow");
  });

  it("judges a 1 MB script of many commands and still finds the bad one at the end", async () => {
    const command = "echo hello world\n".repeat(60_000) + "rm -rf /";
    expect(command.length).toBeGreaterThan(1_000_000);
    const v = (await guardFor()).check(command);
    expect(v.rule).toBe("recursive-delete-root");
  });

  it("survives substitutions nested 1,000 deep without overflowing the stack", async () => {
    const command = "echo " + "$(echo ".repeat(1000) + "$(rm -rf /)" + ")".repeat(1000);
    const v = (await guardFor()).check(command);
    expectWellFormed(v);
    expect(v.decision).toBe("deny");
  });

  it("survives subshells nested 1,000 deep", async () => {
    const v = (await guardFor()).check("(".repeat(1000) + "ls" + ")".repeat(1000));
    expectWellFormed(v);
  });

  it("refuses code nested deeper than it unpacks, instead of guessing", async () => {
    const v = (await guardFor()).check("eval ".repeat(20) + "echo hi");
    expect(v).toMatchObject({ decision: "deny", rule: "too-complex" });
  });

  it("handles non-ASCII text and reports columns in characters", async () => {
    const v = (await guardFor()).check("echo 'héllo wörld 😀' && echo \"ünclosed");
    expect(v.rule).toBe("syntax-error");
    expect(v.reason).toContain("column 30");
  });

  it("accepts unknown context values without throwing", async () => {
    const g = await guardFor();
    expectWellFormed(g.check("ls", { cwd: 7 as unknown as string }));
    expectWellFormed(g.check("ls", { cwd: "relative/path" }));
    expectWellFormed(g.check("ls", null as unknown as undefined));
  });
});
