// The guard CLI as a user runs it: commands on stdin, one JSON verdict a line, exit 0.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectWellFormed } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function run(args: string[], input: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "bin/guard.ts", ...args], { cwd: ROOT, input, encoding: "utf8" });
  return { status: r.status, stderr: r.stderr, verdicts: r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)) };
}

describe("guard CLI", () => {
  it("prints one verdict a line and exits 0", () => {
    const r = run([], "ls -la\nrm -rf /\n[{'a': 1}]\n\n");
    expect(r.status).toBe(0);
    expect(r.verdicts.map((v) => v.rule)).toEqual(["allowlist", "recursive-delete-root", "literal-argument", "empty-command"]);
    r.verdicts.forEach(expectWellFormed);
  });

  it("takes multi-line commands as JSON strings with --jsonl, and answers a malformed line with invalid-input", () => {
    const r = run(["--jsonl"], ['"cat <<\'EOF\'\\nx\\nEOF"', "not json", "42", '"rm -rf ~"'].join("\n") + "\n");
    expect(r.status).toBe(0);
    expect(r.verdicts.map((v) => v.rule)).toEqual(["allowlist", "invalid-input", "invalid-input", "recursive-delete-root"]);
  });

  it("applies --policy and --cwd", () => {
    expect(run(["--policy", "strict"], "xdg-open x\n").verdicts[0].decision).toBe("deny");
    expect(run(["--policy", "permissive"], "make\n").verdicts[0].decision).toBe("allow");
    expect(run(["--cwd", "/home/project/a/b"], "rm -rf ../..\n").verdicts[0].rule).toBe("recursive-delete-root");
  });

  it("refuses an unknown policy with a usage message and exit 2", () => {
    const r = run(["--policy", "lax"], "");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--policy must be one of strict, balanced, permissive");
  });
});
