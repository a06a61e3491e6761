// Reading the OS sandbox library's bubblewrap command back, and presenting the sandbox's private temp folder at /tmp
// (src/runtime/node/bwrap.ts). Pure word work here; test/runtime/node-sandbox.test.ts runs the result in bubblewrap.

import { describe, expect, it } from "vitest";
import { presentTempAtTmp, quoteWords, readBwrapCommand, unquoteWords } from "../../src/runtime/node/bwrap.ts";

describe("the library's quoting, read back", () => {
  it("gives back every word, whatever it holds", () => {
    const words = ["bwrap", "", "a b", "it's", "'", "''", "=x", "x=y", "$(id)", "`id`", "a\nb", "--", '"', "\\", "é ü", "a'b'c"];
    expect(unquoteWords(quoteWords(words))).toEqual(words);
    for (const w of words) expect(unquoteWords(quoteWords([w]))).toEqual([w]);
  });

  it("refuses a line the library's quoting would not make", () => {
    for (const line of ["a  b", "a ", " a", "'a", '"a"', "a'b'", "$(x)", "a;b", "'a'b", "a\tb", "''''"]) {
      expect(unquoteWords(line), line).toBeNull();
    }
  });
});

describe("the bubblewrap command inside it", () => {
  it("splits options from the command, taking each option's arguments whatever they look like", () => {
    const line = quoteWords(["bwrap", "--setenv", "X", "--", "--ro-bind", "/", "/", "--", "/bin/bash", "-c", "echo --"]);
    expect(readBwrapCommand(line)).toEqual({
      bwrap: "bwrap",
      options: ["--setenv", "X", "--", "--ro-bind", "/", "/"],
      command: ["/bin/bash", "-c", "echo --"],
    });
  });

  it("reads the mounts of a long profile from the unnamed file the library hands over", () => {
    const launcher = 'exec 9<"$1" && shift && exec "$@"';
    const line = quoteWords(["/bin/sh", "-c", launcher, "srt-args", "/proc/42/fd/31", "/usr/bin/bwrap", "--new-session", "--args", "9", "--dev", "/dev", "--", "/bin/bash", "-c", "x"]);
    const read: string[] = [];
    const cmd = readBwrapCommand(line, (path) => {
      read.push(path);
      return "--ro-bind\0/\0/\0--bind\0/w\0/w\0";
    });
    expect(read).toEqual(["/proc/42/fd/31"]);
    expect(cmd).toEqual({
      bwrap: "/usr/bin/bwrap",
      options: ["--new-session", "--ro-bind", "/", "/", "--bind", "/w", "/w", "--dev", "/dev"],
      command: ["/bin/bash", "-c", "x"],
    });
    // An --args on another descriptor than the launcher opened is not the library's.
    expect(() => readBwrapCommand(line.replace("--args 9", "--args 3"), () => "--dev\0/dev\0")).toThrow(/cannot rewrite/);
  });

  it("refuses an option bubblewrap does not list, a missing argument, and a command without --", () => {
    expect(() => readBwrapCommand("bwrap --bind-everything / / -- sh")).toThrow(/the option "--bind-everything"/);
    expect(() => readBwrapCommand("bwrap --bind /a")).toThrow(/cannot rewrite/);
    expect(() => readBwrapCommand("bwrap --ro-bind / / sh -c x")).toThrow(/cannot rewrite/);
    expect(() => readBwrapCommand("bwrap 'a")).toThrow(/its quoting/);
  });
});

describe("the private temp folder at /tmp", () => {
  const ws = "/tmp/sandshell-u0/ws-A";
  const rt = "/tmp/sandshell-u0/rt-A";
  // The shape the library renders (0.0.83): sockets, environment, the bind of /, pins, allow binds, hidden folders,
  // their exceptions, denies, then /dev and /proc.
  const library = [
    "--new-session", "--die-with-parent", "--unshare-net",
    "--bind", "/tmp/claude-http-1.sock", "/tmp/claude-http-1.sock",
    "--setenv", "TMPDIR", "/tmp/claude",
    "--ro-bind", "/", "/",
    "--ro-bind", `${ws}/r0`, `${ws}/r0`,
    "--bind", ws, ws,
    "--bind", rt, rt,
    "--bind", "/tmp/claude", "/tmp/claude",
    "--tmpfs", "/root",
    "--ro-bind", "/root/.cargo", "/root/.cargo",
    "--tmpfs", "/tmp/sandshell-u0",
    "--bind", ws, ws,
    "--bind", rt, rt,
    "--ro-bind", `${ws}/r0/.git/hooks`, `${ws}/r0/.git/hooks`,
    "--ro-bind", "/tmp/claude", "/tmp/claude",
    "--dev", "/dev", "--unshare-pid", "--proc", "/proc",
  ];

  it("goes after the pins and before everything the library mounts on it; its sockets come back; /tmp/claude is left out", () => {
    expect(presentTempAtTmp(library, rt, [ws, rt], ["/tmp/tools/bin", "/usr/bin", `${ws}/bin`])).toEqual([
      "--new-session", "--die-with-parent", "--unshare-net",
      "--bind", "/tmp/claude-http-1.sock", "/tmp/claude-http-1.sock",
      "--setenv", "TMPDIR", "/tmp/claude",
      "--ro-bind", "/", "/",
      "--ro-bind", `${ws}/r0`, `${ws}/r0`,
      "--bind", rt, "/tmp",
      "--ro-bind-try", "/tmp/tools/bin", "/tmp/tools/bin",
      "--bind", "/tmp/claude-http-1.sock", "/tmp/claude-http-1.sock",
      "--bind", ws, ws,
      "--bind", rt, rt,
      "--tmpfs", "/root",
      "--ro-bind", "/root/.cargo", "/root/.cargo",
      "--tmpfs", "/tmp/sandshell-u0",
      "--bind", ws, ws,
      "--bind", rt, rt,
      "--ro-bind", `${ws}/r0/.git/hooks`, `${ws}/r0/.git/hooks`,
      "--dev", "/dev", "--unshare-pid", "--proc", "/proc",
    ]);
  });

  it("keeps modifiers with the operation they change", () => {
    const out = presentTempAtTmp(["--perms", "0700", "--tmpfs", "/tmp/p", "--ro-bind", "/", "/", "--bind", ws, ws], rt, [ws]);
    expect(out).toEqual(["--perms", "0700", "--tmpfs", "/tmp/p", "--ro-bind", "/", "/", "--bind", rt, "/tmp", "--perms", "0700", "--tmpfs", "/tmp/p", "--bind", ws, ws]);
  });

  it("refuses an order it does not know rather than hide the workspace or mount something twice", () => {
    // The workspace bound before the bind of / (and so never after the new /tmp).
    expect(() => presentTempAtTmp(["--bind", ws, ws, "--ro-bind", "/", "/"], rt, [ws])).toThrow(/no bind of .*ws-A/);
    // No bind of /, or two.
    expect(() => presentTempAtTmp(["--bind", ws, ws], rt, [ws])).toThrow(/0 read-only binds of \//);
    expect(() => presentTempAtTmp(["--ro-bind", "/", "/", "--ro-bind", "/", "/", "--bind", ws, ws], rt, [ws])).toThrow(/2 read-only binds/);
    // A file handed over on a descriptor, under /tmp, before the bind of /: it cannot be mounted again.
    expect(() => presentTempAtTmp(["--file", "5", "/tmp/f", "--ro-bind", "/", "/", "--bind", ws, ws], rt, [ws])).toThrow(/--file under \/tmp/);
    // A workspace outside /tmp needs nothing after the new /tmp.
    expect(presentTempAtTmp(["--ro-bind", "/", "/", "--bind", "/home/p", "/home/p"], rt, ["/home/p"])).toEqual([
      "--ro-bind", "/", "/", "--bind", rt, "/tmp", "--bind", "/home/p", "/home/p",
    ]);
  });
});
