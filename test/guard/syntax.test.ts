// A command the parser cannot parse is refused (fail closed) with the line, the column and the likely
// cause, so that the model can fix it in one turn.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";

async function syntax(command: string) {
  const v = (await guardFor()).check(command);
  expect(v).toMatchObject({ decision: "deny", layer: 0, rule: "syntax-error" });
  return v;
}

describe("syntax errors", () => {
  it("names an unclosed quote and where it opens", async () => {
    const v = await syntax("echo ok\necho 'oops");
    expect(v.reason).toContain("line 2, column 6");
    expect(v.reason).toMatch(/unclosed ' quote/);
  });

  it("names a dangling &&", async () => {
    const v = await syntax("npm test &&");
    expect(v.reason).toMatch(/dangling &&/);
  });

  it("names a dangling pipe", async () => {
    expect((await syntax("ls |")).reason).toMatch(/dangling \|/);
  });

  it("says an unterminated heredoc needs its EOF alone at the start of a line", async () => {
    const v = await syntax("cat > f.py <<'EOF'\nprint(1)\n");
    expect(v.reason).toContain("the closing EOF must stand alone at the start of a line");
  });

  it("catches a heredoc whose closing word is indented, which tree-sitter accepts and bash does not", async () => {
    const v = await syntax("cat <<'EOF'\nx\n  EOF\necho after");
    expect(v.reason).toContain("the closing EOF must stand alone at the start of a line");
    expect(v.reason).toContain('"  EOF"');
  });

  it("catches a heredoc whose closing word has trailing spaces", async () => {
    const v = await syntax("cat <<'PY'\nx\nPY  ");
    expect(v.reason).toContain("the closing PY must stand alone");
  });

  it("accepts <<- with tab-indented closing words", async () => {
    expect((await guardFor()).check("cat <<-EOF\n\tx\n\tEOF").decision).toBe("allow");
  });

  it("names an unclosed if", async () => {
    expect((await syntax("if true; then ls")).reason).toMatch(/`fi`|if/);
  });

  it("reports errors inside a bash -c string, and says so", async () => {
    const v = await syntax("bash -c 'echo \"oops'");
    expect(v.reason).toContain("bash -c");
  });

  it("lets a correct heredoc through byte for byte", async () => {
    const v = (await guardFor()).check("cat > /tmp/x.py <<'EOF'\nprint('$HOME `id`')\nEOF");
    expect(v.decision).toBe("allow");
  });
});
