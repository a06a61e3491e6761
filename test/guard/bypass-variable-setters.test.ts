// Variables that change what runs (PATH, PROMPT_COMMAND, PS0–PS4, BASH_ENV, …) set by something other than a
// plain `NAME=value`: arithmetic (`let`, `(( ))`), builtins that fill a variable (`read`, `printf -v`, `mapfile`,
// `getopts`, `wait -p`), a nameref (`declare -n`), and an array element (`PATH[0]=…`: element 0 of a scalar is the
// scalar, and bash runs every element of a PROMPT_COMMAND array). The guard never allows them; real bash proves
// that the spellings work, with a `touch`-like tripwire standing in for the payload.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

describe("a dangerous variable set without an assignment word is never allowed", () => {
  it.each([
    "let PROMPT_COMMAND=0", "let PS0=1", "let PATH=0; ls", "let BASH_ENV=0; bash x.sh", "(( PS4=1 ))",
    "read PROMPT_COMMAND", "read PROMPT_COMMAND <<< 'touch F'", "read -r PATH <<< 0; ls", "read -a PATH <<< 0", "read -p x -r -- PATH",
    "printf -v PROMPT_COMMAND 'touch F'", "printf -vPATH 0; ls", "printf -v 'PATH' 0",
    "mapfile PATH <<< 0", "mapfile -t PROMPT_COMMAND <<< 'touch F'", "readarray -t PATH < f", "mapfile -t BASH_ENV < f",
    "declare -n r=PATH; r=0; ls", "declare -n r=PROMPT_COMMAND", "typeset -n r=BASH_ENV; r=x", "local -n r=PATH", "declare -n r; r=PATH",
    "declare -n r=PATH; read r <<< 0", "declare -n r=PATH; printf -v r 0", "declare -n r=PATH; mapfile -t r <<< 0", "declare -n r=PATH; let r=0",
    "getopts ab PATH", "read PATH\\?x", "wait -p PATH", "wait -p \"$1\"", "read \"$1\" <<< 0", "printf -v \"$1\" 0", "mapfile -t \"$1\" < f",
  ])("%j", async (command) => {
    expect((await guardFor("balanced")).check(command).decision).not.toBe("allow");
    expect((await guardFor("strict")).check(command).decision).not.toBe("allow");
  });
});

describe("an array element of a dangerous variable is that variable", () => {
  it.each([
    "PS4[0]='$(touch F)'; set -x; :", "PROMPT_COMMAND[0]='touch F'", "PROMPT_COMMAND[1]='touch F'", "declare PS4[0]='$(touch F)'",
    "local PATH[0]=0", "PATH[0]=0; ls", "read 'PATH[0]' <<< 0", "printf -v 'PROMPT_COMMAND[1]' 'touch F'", ": ${PATH[0]:=0}",
    "let 'PATH[0]=0'", "(( PS4[0]=1 ))", "wait -p 'PS4[0]'", "BASH_ENV[0]=x bash y.sh", "unset PATH[0]", "unset 'PATH[0]'",
  ])("%j is not allowed", async (command) => {
    expect((await guardFor("balanced")).check(command).decision).not.toBe("allow");
    expect((await guardFor("strict")).check(command).decision).not.toBe("allow");
  });

  it.each([["PS4[1]='$(rm -rf ~)'"], ["PS4[0]='$(rm -rf ~)'"]])("the text of %j is judged as the code bash runs", async (command) => {
    expect((await guardFor("permissive")).check(command)).toMatchObject({ decision: "deny", rule: "recursive-delete-root" });
  });

  // The session's own prompt (session-names) is refused whatever its text.
  it.each([["PROMPT_COMMAND[1]='rm -rf ~'"], ["PS1[0]='$(rm -rf ~)'"]])("%j is refused under permissive", async (command) => {
    expect((await guardFor("permissive")).check(command)).toMatchObject({ decision: "deny", layer: 1 });
  });

  it.each([
    ["x=ls; x[0]=rm; $x -rf /", "deny"],
    ["x=ls; let 'x[0]=1'; $x -rf /", "deny"],
    ["x=/tmp/a; x[0]=/etc/passwd; echo > $x", "ask"],
    ["x=/tmp/a; read 'x[0]' <<< /etc/passwd; echo > $x", "ask"],
    ["x=/tmp/a; printf -v 'x[0]' /etc/passwd; echo > $x", "ask"],
    ["x=/tmp/a; wait -p 'x[0]'; echo > $x", "ask"],
    ["x=/tmp/a; unset 'x[0]'; echo > $x", "ask"],
    ["x=tmp/a; let 'x[0]=0'; echo > /$x", "ask"],
    ["x=tmp/a; : ${x[0]:=/etc/passwd}; echo > $x", "ask"],
  ])("after %j the variable's value is not the one assigned before (%s)", async (command, decision) => {
    expect((await guardFor("balanced")).check(command).decision).toBe(decision);
  });

  it.each([
    "arr[0]=1", "read -r 'arr[1]' < f", "printf -v out '%s' x", "let 'a[1]=2'", "wait -n -p pid", "read -r line < f", "mapfile -t lines < f",
    // tree-sitter reads `a[2]` after unset as two words; bash refuses the name `REPLY?x` and sets nothing.
    "unset array[2]", "read REPLY\\?x",
  ])(
    "a harmless name stays as it was: %j",
    async (command) => {
      const expected = command.startsWith("mapfile") ? "ask" : "allow"; // mapfile is not on the known-safe list
      expect((await guardFor("balanced")).check(command).decision).toBe(expected);
    },
  );
});

/** A program named ls in `sub` of the directory, which leaves the tripwire F there. */
function plantLs(sub: string): (d: string) => void {
  return (d) => {
    mkdirSync(join(d, sub), { recursive: true });
    writeFileSync(join(d, sub, "ls"), "#!/bin/sh\n: > F\n");
    chmodSync(join(d, sub, "ls"), 0o755);
  };
}

describe("in real bash 5 these spellings run the tripwire", () => {
  it.each([
    "PROMPT_COMMAND[1]='touch F'", "read PROMPT_COMMAND <<< 'touch F'", "printf -v PROMPT_COMMAND 'touch F'",
    "mapfile -t PROMPT_COMMAND <<< 'touch F'", "declare -n r=PROMPT_COMMAND; r='touch F'", "read 'PROMPT_COMMAND[1]' <<< 'touch F'",
  ])("an interactive shell runs PROMPT_COMMAND set by %j", (script) => {
    expect(tripped(script, { interactive: true })).toBe(true);
  });

  it.each(["let PATH=0; ls", "read PATH <<< 0; ls", "printf -v PATH 0; ls", "declare -n r=PATH; r=0; ls", "x=PATH; read $x <<< 0; ls"])(
    "%j runs ./0/ls",
    (script) => {
      expect(tripped(script, { setup: plantLs("0") })).toBe(true);
    },
  );

  it("PS4[0]='$(…)' is PS4: set -x runs it", () => {
    expect(tripped("PS4[0]='$(touch F)'; set -x; :")).toBe(true);
  });

  it("x[0]=… changes $x: element 0 is the variable", () => {
    expect(tripped("x=ls; x[0]=touch; $x F")).toBe(true);
  });
});

/** A gettext catalog (.mo) that translates each msgid to its msgstr, written by hand (no msgfmt needed). */
function moFile(entries: Record<string, string>): Buffer {
  const all: Record<string, string> = { "": "Content-Type: text/plain; charset=UTF-8\n", ...entries };
  const ids = Object.keys(all).sort();
  const n = ids.length;
  const header = 28;
  const tables = header + 16 * n;
  const strings: Buffer[] = [];
  const table = Buffer.alloc(16 * n);
  let at = tables;
  const place = (text: string, slot: number): void => {
    const bytes = Buffer.from(text, "utf8");
    table.writeUInt32LE(bytes.length, slot);
    table.writeUInt32LE(at, slot + 4);
    strings.push(bytes, Buffer.from([0]));
    at += bytes.length + 1;
  };
  ids.forEach((id, i) => place(id, 8 * i));
  ids.forEach((id, i) => place(all[id]!, 8 * n + 8 * i));
  const head = Buffer.alloc(header);
  head.writeUInt32LE(0x950412de, 0);
  head.writeUInt32LE(0, 4);
  head.writeUInt32LE(n, 8);
  head.writeUInt32LE(header, 12);
  head.writeUInt32LE(header + 8 * n, 16);
  return Buffer.concat([head, table, ...strings]);
}

describe('$"…" strings: the catalog TEXTDOMAIN and TEXTDOMAINDIR name is code bash runs', () => {
  // bash translates $"hello" from TEXTDOMAINDIR/LANG/LC_MESSAGES/TEXTDOMAIN.mo and expands the translation again, so
  // a catalog in the workspace runs what it likes: the variables that choose it change what runs, like PATH.
  const plantCatalog = (d: string): void => {
    mkdirSync(join(d, "loc", "C.UTF-8", "LC_MESSAGES"), { recursive: true });
    writeFileSync(join(d, "loc", "C.UTF-8", "LC_MESSAGES", "d.mo"), moFile({ hello: "$(touch F)hi" }));
  };

  it("in real bash 5 a catalog in the workspace runs the tripwire", () => {
    expect(tripped('TEXTDOMAIN=d; TEXTDOMAINDIR=$PWD/loc\necho $"hello"', { setup: plantCatalog, env: { LANG: "C.UTF-8" } })).toBe(true);
    expect(tripped('echo $"hello"', { setup: plantCatalog, env: { LANG: "C.UTF-8" } })).toBe(false);
  });

  it.each([
    "TEXTDOMAIN=d; TEXTDOMAINDIR=$PWD/loc", "TEXTDOMAINDIR=$PWD/loc", "export TEXTDOMAINDIR=loc", "declare TEXTDOMAIN=d",
    "read TEXTDOMAINDIR <<< loc", "printf -v TEXTDOMAIN d", "TEXTDOMAINDIR=loc bash -c 'echo $\"hello\"'", "env TEXTDOMAINDIR=loc bash x.sh",
  ])("%j is never allowed", async (command) => {
    expect((await guardFor("balanced")).check(command).decision).not.toBe("allow");
    expect((await guardFor("strict")).check(command).decision).not.toBe("allow");
  });

  it('echo $"hello" with the system catalogs stays allowed', async () => {
    expect((await guardFor("balanced")).check('echo $"hello"').decision).toBe("allow");
  });
});
