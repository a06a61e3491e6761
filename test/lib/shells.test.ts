import { describe, expect, it } from "vitest";
import { isShellName, isTerminalOperand, readsCommands } from "../../src/lib/shells.ts";

describe("readsCommands: whether typed text reaches a shell as commands", () => {
  it("an interactive shell, one reading standard input, or one with no script reads commands", () => {
    for (const argv of [["bash"], ["-bash"], ["sh", "-i"], ["bash", "-s"], ["bash", "--interactive"], ["bash", "-il"], ["bash", "--norc"], ["busybox", "sh"], ["sh", "-"], ["bash", "--"]]) {
      expect(readsCommands(argv), argv.join(" ")).toBe(true);
    }
  });

  it("a shell running a file or a -c string does not", () => {
    for (const argv of [["bash", "build.sh"], ["sh", "-c", "ls"], ["bash", "-lc", "ls"], ["bash", "--", "x.sh"], ["sh", "-", "x.sh"], ["bash", "-o", "errexit", "x.sh"], ["bash", "/dev/null.sh"], ["sh", "/tmp/dev/tty"]]) {
      expect(readsCommands(argv), argv.join(" ")).toBe(false);
    }
  });

  // Red-team round 5, R2: `sh /dev/tty` ran `rm -rf precious` typed with is_input, unchecked, as "not a shell".
  it("a script operand that is the terminal or standard input reads commands (sh /dev/tty, bash /dev/stdin)", () => {
    for (const operand of ["/dev/tty", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/1234/fd/0", "/proc/thread-self/fd/0", "/dev/pts/3", "/dev/./tty", "/dev//stdin", "/proc/self/../self/fd/0", "/dev/console", "-"]) {
      expect(isTerminalOperand(operand), operand).toBe(true);
      expect(readsCommands(["sh", operand]), `sh ${operand}`).toBe(true);
      expect(readsCommands(["bash", "--norc", "--", operand]), `bash --norc -- ${operand}`).toBe(true);
    }
    for (const operand of ["x.sh", "/dev/null", "/dev/fd/3", "/proc/self/fd/10", "dev/tty", "/tmp/dev/stdin", "/dev/pts/x"]) {
      expect(isTerminalOperand(operand), operand).toBe(false);
    }
  });

  it("a caller that knows what an operand is (a link, a relative path) decides for it", () => {
    expect(readsCommands(["sh", "term"], (o) => o === "term")).toBe(true);
    expect(readsCommands(["sh", "term"])).toBe(false);
  });

  it("shells are known by their base name, a login shell's dash removed", () => {
    expect(isShellName("/usr/bin/bash")).toBe(true);
    expect(isShellName("-dash")).toBe(true);
    expect(isShellName("tool")).toBe(false);
  });
});
