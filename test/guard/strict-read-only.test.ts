// Strict is read-only, like Codex's untrusted mode (red team round 3, F14): every write asks under strict, a
// redirect to a file, a program's output file or option, an in-place edit, a heredoc into a file, while balanced
// keeps allowing the same writes inside the workspace. Writes that discard or show (`> /dev/null`, `2>&1`, `>&2`)
// write no file and stay allowed; a program strict refuses stays refused (the row only turns an allow into an ask).
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const WRITES = [
  "touch x", "touch -d 2020-01-01 x", "echo x > f", "echo x >> f", "printf x > f", ": > f", ">f", "true > f", "tee a < x", "ls | tee a",
  "ls | tee -a log", "sort -o out x", "sort -oout x", "sort --output=out x", "sed -i s/a/b/ f", "sed -i.bak s/a/b/ f", "sed --in-place s/a/b/ f",
  "sed -n 'w out' f", "sed 's/a/b/w out' f", "mkdir d", "mkdir -p a/b", "cat > f <<'EOF'\nx\nEOF", "cat <<'EOF' > f\nx\nEOF", "ls &> log", "ls > out 2>&1",
  "ls 2> err", "xxd a b", "uniq a b", "find . -fprint out", "find . -fls out", "tree -o out", "base64 -d a > b", "diff a b > out", "git show HEAD > p",
  "jq . a > b", "date > f", "echo x > /tmp/x", "cd src && echo x > f", "echo x > \"$PWD/f\"",
];

describe("strict is read-only: every write asks under strict, balanced keeps allowing it", () => {
  it.each(WRITES.map((c) => [c]))("strict is read-only: %j", async (command) => {
    expect((await guardFor("strict")).check(command).decision).toBe("ask");
    expect((await guardFor("balanced")).check(command).decision).not.toBe("deny");
  });

  it.each(["touch x", "echo x > f", "tee a < x", "sort -o out x", "sed -i s/a/b/ f", "mkdir d", "cat > f <<'EOF'\nx\nEOF", "xxd a b"])(
    "strict is read-only: %j is the strict-write row under strict and allowed under balanced",
    async (command) => {
      const v = (await guardFor("strict")).check(command);
      expect(v).toMatchObject({ decision: "ask", layer: 3, rule: "strict-write" });
      expect(v.reason).toMatch(/read-only/);
      expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow", rule: "allowlist" });
      expect((await guardFor("permissive")).check(command).decision).toBe("allow");
    },
  );

  it.each(["cat f", "ls > /dev/null", "ls 2>/dev/null", "echo x >&2", "echo x 2>&1", "ls > /dev/stderr", "echo x > /dev/fd/2", "grep -n x f | head", "sed 's/a/b/' f", "sort x", "git status", "git log -3", "cat <<'EOF'\nx\nEOF"])(
    "strict is read-only: %j writes no file and stays allowed under strict",
    async (command) => {
      expect((await guardFor("strict")).check(command).decision).toBe("allow");
    },
  );

  it.each(["cp a b", "mv a b", "ln -s a b", "git add .", "chmod +x f", "split f", "awk '{print > \"out\"}' f"])(
    "strict is read-only: %j stays refused under strict (not known safe), asked under balanced",
    async (command) => {
      expect((await guardFor("strict")).check(command).decision).toBe("deny");
      expect((await guardFor("balanced")).check(command).decision).toBe("ask");
    },
  );

  it.each(["echo x > .npmrc", "sed -i s/a/b/ package.json", "echo x > .claude/settings.json"])("strict is read-only: a config write %j stays refused under strict", async (command) => {
    expect((await guardFor("strict")).check(command)).toMatchObject({ decision: "deny", rule: "config-write" });
  });

  it("strict is read-only: in real bash each kind of write makes a file (the tripwire is the write)", () => {
    for (const write of ["touch F", "echo x > F", "echo x | tee F", "sort -o F /dev/null", "mkdir F", "cat > F <<'EOF'\nx\nEOF", "printf 'a\\n' > F && sed -i s/a/b/ F"]) {
      expect(tripped(write), write).toBe(true);
    }
    expect(tripped("echo x > /dev/null; ls 2>/dev/null")).toBe(false);
  });
});
