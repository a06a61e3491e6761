// Bounded cost: every command up to the shell's limit (INPUT.maxCommandChars, 1 MB) gets a verdict, whatever its
// shape. A red team's `"cd a && ".repeat(n) + "ls"` took 6 s and 554 MB at 128 KB and killed the host process past
// it; a 64 KB pipeline ending in `"$x"` took tree-sitter to 2 GB. Times and memory per shape are bench/guard-worst.ts's
// business (no timing here); these tests pin that a verdict comes back, and the limits that make it so.
import { describe, expect, it } from "vitest";
import { GUARD, INPUT } from "../../src/limits.ts";
import { longestPipeline } from "../../src/guard/pipelines.ts";
import { expectWellFormed, guardFor } from "./helpers.ts";
import { WORST_SHAPES } from "./worst-shapes.ts";

describe("bounded cost: every shape at the command limit gets a verdict", () => {
  for (const [name, build] of Object.entries(WORST_SHAPES)) {
    it(`${name}, ~1 MB`, async () => {
      const g = await guardFor();
      const command = build(INPUT.maxCommandChars - 64);
      expect(command.length).toBeLessThanOrEqual(INPUT.maxCommandChars);
      const v = g.check(command);
      expectWellFormed(v);
      // Whatever it is, it is not waved through because the guard gave up.
      if (v.rule === "too-complex") expect(v.decision).toBe("deny");
    }, 180_000);
  }
});

describe("bounded cost: the limits behind it", () => {
  it("cd chain: a working directory deeper than GUARD.maxKnownPathChars is unknown, so a cd into it asks", async () => {
    const g = await guardFor();
    const under = "cd a && ".repeat(Math.floor((GUARD.maxKnownPathChars - 64) / 2)) + "touch x";
    expect(g.check(under).decision).toBe("allow");
    const over = "cd a && ".repeat(GUARD.maxKnownPathChars) + "touch x";
    expect(g.check(over)).toMatchObject({ decision: "ask", rule: "cd-outside-workspace" });
  });

  it("value doubling: x=$x$x past GUARD.maxKnownValueChars is an unknown value, not a huge known one", async () => {
    const g = await guardFor();
    const doubling = "x=/etc/passwd; " + "x=$x$x; ".repeat(40) + "cat $x";
    // 2^40 copies would be a terabyte; the guard reads x as unknown once it passes the limit.
    expect(g.check(doubling).decision).not.toBe("deny");
    expect(g.check("x=a; " + "x=$x$x; ".repeat(40) + 'rm -rf "$x"')).toMatchObject({ decision: "ask", rule: "recursive-delete-unknown" });
  });

  it("a word of many $x is unknown once what it substitutes passes GUARD.maxKnownValueChars", async () => {
    const g = await guardFor();
    const x = "a".repeat(1000);
    // Known (2,000 characters): an ordinary deletion in the workspace. Past the limit: a target the guard cannot know.
    expect(g.check(`x=${x}; rm -rf "${"$x".repeat(2)}"`).rule).toBe("deletion");
    expect(g.check(`x=${x}; rm -rf "${"$x".repeat(8)}"`)).toMatchObject({ decision: "ask", rule: "unknown-write-target" });
  });

  it("arithmetic values that name others: reading them stops at the check's budget and asks", async () => {
    const g = await guardFor();
    const names = "abcdefgh".split("");
    const defs = names.map((n, i) => `${n}='${`${names[i + 1] ?? "1"}+`.repeat(1500)}0'; `).join("");
    expect(g.check(`${defs}echo $((a))`)).toMatchObject({ decision: "ask", rule: "unknown-evaluated-code" });
    expect(g.check("a=b+1; b=2; echo $((a))").decision).toBe("allow");
  });

  it("code inside code: a value run as code again and again stops at GUARD.parsedCharsPerChar", async () => {
    const g = await guardFor();
    const x = "ls -l a; ".repeat(400);
    expect(g.check(`x='${x}'; ${'eval "$x"; '.repeat(20)}`).decision).toBe("ask"); // eval of a known value: judged
    expect(g.check(`x='${x}'; ${'eval "$x"; '.repeat(400)}`)).toMatchObject({ decision: "deny", rule: "too-complex" });
  });

  it("deep nesting: a syntax tree deeper than GUARD.maxSyntaxDepth is refused, one just under it is judged", async () => {
    const g = await guardFor();
    const nest = (n: number) => "if true; then ".repeat(n) + "ls" + "; fi".repeat(n);
    expect(g.check(nest(GUARD.maxSyntaxDepth))).toMatchObject({ decision: "deny", rule: "too-complex" });
    expect(g.check(nest(40)).decision).toBe("allow");
  });

  it("long pipelines: more than GUARD.maxPipelineStages stages are refused before tree-sitter (quadratic) or the rules see them", async () => {
    const g = await guardFor();
    const long = "y | ".repeat(GUARD.maxPipelineStages + 1) + '"$x"';
    expect(g.check(long)).toMatchObject({ decision: "deny", rule: "too-complex" });
    expect(g.check(long).reason).toContain("pipeline");
    // The plain path too (no tree-sitter), and a pipeline just under the limit is judged.
    expect(g.check("cat f" + " | cat".repeat(GUARD.maxPipelineStages + 1)).rule).toBe("too-complex");
    expect(g.check("cat f" + " | cat".repeat(GUARD.maxPipelineStages - 2)).decision).toBe("allow");
  });

  it("user rules with several * match in linear time (no regular-expression backtracking)", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["echo * b * c * d"] } });
    const v = g.check("echo " + "b c ".repeat(100_000));
    expectWellFormed(v);
    expect(g.check("echo a b x c y d").rule).toBe("user-allow");
  });
});

describe("longestPipeline: the stages of the longest pipeline, read without parsing", () => {
  const stages = (n: number, stage = "y") => Array.from({ length: n }, () => stage).join(" | ");

  it("counts the stages of one pipeline, and a separator ends it", () => {
    expect(longestPipeline("ls")).toBe(1);
    expect(longestPipeline(stages(5))).toBe(5);
    expect(longestPipeline(`${stages(3)}; ${stages(4)}`)).toBe(4);
    expect(longestPipeline(`${stages(3)} && ${stages(4)} || ${stages(2)} & ${stages(3)}\n${stages(2)}`)).toBe(4);
    expect(longestPipeline("a |& b |& c")).toBe(3);
  });

  it("a line end after | continues the pipeline; 2>&1 and &> are redirects, not separators", () => {
    expect(longestPipeline("a |\nb |\nc")).toBe(3);
    expect(longestPipeline("a 2>&1 | b &>/dev/null | c >&2 | d")).toBe(4);
  });

  it("each level of nesting counts its own pipelines; a nested group is one stage of the outer one", () => {
    expect(longestPipeline(`y | (${stages(5)}; ${stages(5)}) | y`)).toBe(5);
    expect(longestPipeline(`y | $(${stages(4)}) | y | y`)).toBe(4);
    expect(longestPipeline(`y | { a; b; } | y | y | y`)).toBe(5);
    expect(longestPipeline(`y | if a; then b; fi | y | while c; do d; done | y`)).toBe(5);
    expect(longestPipeline(`y | case x in a|b|c) z;; esac | y`)).toBe(3);
  });

  it("quotes, comments and heredoc bodies are not code", () => {
    expect(longestPipeline(`echo '${stages(9)}' "${stages(9)}" | y # ${stages(9)}`)).toBe(2);
    expect(longestPipeline(`cat <<'EOF' | y\n${stages(9)}\n| a | b |\nEOF\ny | z`)).toBe(2);
    expect(longestPipeline(`echo "$(${stages(6)})"`)).toBe(6);
    expect(longestPipeline(`echo $'it\\'s' | ${stages(3)}`)).toBe(4);
  });

  it("cannot be fooled into resetting the count of an outer pipeline (a closer where no command starts, a stray `)`)", () => {
    // `echo done` inside ( … ) closes nothing; `echo fi` inside if … fi neither.
    const outer = (stage: string) => Array.from({ length: 300 }, () => stage).join(" | ");
    expect(longestPipeline(outer("( echo done; )"))).toBe(300);
    expect(longestPipeline(outer("if a; then echo fi; fi"))).toBe(300);
    expect(longestPipeline(outer("{ echo }; }"))).toBe(300);
    expect(longestPipeline(outer("(case x in a) b;; esac)"))).toBe(300);
    // Arithmetic shifts are not heredocs: what follows is still read as code.
    expect(longestPipeline(`echo $((1 << 2))\n${outer("y")}\n2`)).toBe(300);
    expect(longestPipeline(`(( x <<= 2 ))\n${outer("y")}\n2`)).toBe(300);
  });

  it("a heredoc delimiter it cannot read makes the answer unknown", () => {
    expect(longestPipeline('cat <<"E O F"\nx\nE O F\n')).toBe(Infinity);
    expect(longestPipeline("cat <<E$x\nx\n")).toBe(Infinity);
  });
});
