// Option spec rows as tests: every example is allowed under balanced by its program's row, no near miss
// is; and the GNU getopt_long parser, the sed-script parser and the awk check on their own.
import { describe, expect, it } from "vitest";
import type { Word } from "../../src/guard/facts.ts";
import { awkUnsafe } from "../../src/guard/options/awk.ts";
import { getopt, optionTable } from "../../src/guard/options/getopt.ts";
import { OPTION_SPECS } from "../../src/guard/options/index.ts";
import { parseSed } from "../../src/guard/sed.ts";
import { guardFor } from "./helpers.ts";

describe.each(OPTION_SPECS.map((s) => [s.names.join("/"), s] as const))("option spec %s", (_name, spec) => {
  it.each(spec.examples.map((e) => [e]))("allows %j", async (command) => {
    const v = (await guardFor("balanced")).check(command);
    expect({ decision: v.decision, rule: v.rule, reason: v.reason }).toMatchObject({ decision: "allow", rule: "allowlist" });
  });
  if (spec.nearMisses.length) {
    it.each(spec.nearMisses.map((e) => [e]))("does not allow %j", async (command) => {
      expect((await guardFor("balanced")).check(command).decision).not.toBe("allow");
    });
  }
  it("has a reason", () => {
    expect(spec.reason.length).toBeGreaterThan(5);
  });
});

it("gives each program one option spec row", () => {
  const names = OPTION_SPECS.flatMap((s) => s.names);
  expect(new Set(names).size).toBe(names.length);
});

const w = (value: string): Word => ({ raw: value, value, dynamic: false, glob: false });
const words = (...vs: string[]) => vs.map(w);

describe("getopt_long", () => {
  const t = optionTable("zo:c::n", ["output=", "output-error=?", "recursive", "reverse", "color=?", "colour=?"], true, ["compress-program"]);
  const parse = (...vs: string[]) => {
    const p = getopt(words(...vs), t);
    return p.ok ? { opts: p.opts.map((o) => [o.name, o.value?.value ?? null]), operands: p.operands.map((o) => o.value) } : { unknown: p.unknown };
  };

  it("reads a bundle whose last option takes the next word", () => {
    expect(parse("-zo", "FILE", "x")).toEqual({ opts: [["z", null], ["o", "FILE"]], operands: ["x"] });
  });
  it("reads an attached value", () => {
    expect(parse("-oFILE")).toEqual({ opts: [["o", "FILE"]], operands: [] });
    expect(parse("-zoFILE")).toEqual({ opts: [["z", null], ["o", "FILE"]], operands: [] });
    expect(parse("--output=FILE")).toEqual({ opts: [["output", "FILE"]], operands: [] });
  });
  it("takes a unique prefix of a long option, and refuses an ambiguous one", () => {
    expect(parse("--output", "F")).toEqual({ opts: [["output", "F"]], operands: [] });
    expect(parse("--outp", "F")).toEqual({ unknown: "--outp" }); // output or output-error
    expect(parse("--rev")).toEqual({ opts: [["reverse", null]], operands: [] });
    expect(parse("--rec")).toEqual({ opts: [["recursive", null]], operands: [] });
    expect(parse("--re")).toEqual({ unknown: "--re" });
    expect(parse("--output-e=x")).toEqual({ opts: [["output-error", "x"]], operands: [] });
  });
  it("treats color and colour as one option when abbreviated", () => {
    expect(parse("--col")).toEqual({ opts: [["color", null]], operands: [] });
  });
  it("never reads an unlisted option, or an abbreviation of it, as a listed one", () => {
    expect(parse("--compress-program=sh")).toEqual({ unknown: "--compress-program=sh" });
    expect(parse("--comp=sh")).toEqual({ unknown: "--comp=sh" });
  });
  it("takes an optional argument only when attached", () => {
    expect(parse("-c", "x")).toEqual({ opts: [["c", null]], operands: ["x"] });
    expect(parse("-cx")).toEqual({ opts: [["c", "x"]], operands: [] });
    expect(parse("--color", "x")).toEqual({ opts: [["color", null]], operands: ["x"] });
  });
  it("reads options after operands (GNU permutes) and stops at --", () => {
    expect(parse("a", "-z", "b")).toEqual({ opts: [["z", null]], operands: ["a", "b"] });
    expect(parse("--", "-o", "x")).toEqual({ opts: [], operands: ["-o", "x"] });
  });
  it("refuses an unknown option, a value on a flag, and a missing value", () => {
    expect(parse("-q")).toEqual({ unknown: "-q" });
    expect(parse("--recursive=1")).toEqual({ unknown: "--recursive=1" });
    expect(parse("-o")).toEqual({ unknown: "-o" });
  });
  it("reads -NUM as a number option where the program takes one", () => {
    expect(parse("-5", "x")).toEqual({ opts: [["#", "5"]], operands: ["x"] });
  });
});

describe("sed-script parser", () => {
  it.each([
    ["s/a/b/", [], []], ["1,10p", [], []], ["/x/,/y/d", [], []], [":a;N;$!ba;s/\\n/ /g", [], []], ["s/a/b/w out", ["out"], []],
    ["1r in\np", [], ["in"]], ["$a\\\nend", [], []], ["s/[/]/x/", [], []], ["y/abc/xyz/", [], []], ["/a/I,+3{p;d}", [], []],
    ["\\%x%d", [], []], ["0~2p", [], []], ["{:q;N;s/\\n/ /g;t q}", [], []], ["# comment\np", [], []],
    // `[` opens a bracket expression only in a regular expression: not in s's replacement, nor in y's parts.
    ["y/[/x/", [], []], ["y/a[/]x/", [], []], ["s/a/[/", [], []], ["s/a/[/w out", ["out"], []], ["s/[[:alpha:]/]/x/", [], []],
  ])("parses %j", (script, writes, reads) => {
    expect(parseSed(script)).toEqual({ ok: true, script: { writes, reads, runs: null, runsInput: false } });
  });
  it.each(["1e touch t", "s/x/y/e", "s|x|id|e", "e", "/a/e id", "s/x/y/ge", "y/[/x/;1e id", "s/a/[/e"])("finds the command %j runs", (script) => {
    const r = parseSed(script);
    expect(r.ok && r.script.runs).toMatch(/runs/);
  });
  it.each(["s/a/b", "{p", "p}", "1,", "k", "s/a/b/q", "/x"])("refuses %j, which does not parse", (script) => {
    expect(parseSed(script).ok).toBe(false);
  });
});

describe("awk check", () => {
  it.each(["{print $1}", "NR%2==0", "{ s += $2 } END { print s / NR }", "/a|b/ {print}", "$1 > 5 {print}", "{print ($1 > 5)}", '{print "a|b"}', "$1 || $2"])(
    "knows %j is safe",
    (program) => {
      expect(awkUnsafe(program)).toBeNull();
    },
  );
  it.each(['{system("id")}', '{print | "sh"}', '{"id" | getline}', '{print > "f"}', '{print >> "f"}', '{print |& "sh"}', '@load "x"', '{printf "%s", $1 > "/etc/x"}'])(
    "finds what %j runs or writes",
    (program) => {
      expect(awkUnsafe(program)).not.toBeNull();
    },
  );
});
