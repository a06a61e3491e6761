import { describe, expect, it } from "vitest";
import { compileRule, suggestRule, toBlockedError, type Policy } from "../../src/guard/index.ts";
import { guardFor } from "./helpers.ts";

describe("presets", () => {
  const table: [string, Record<Policy, string>][] = [
    ["ls -la", { strict: "allow", balanced: "allow", permissive: "allow" }],
    // Project code is one class: allowed under balanced, asked under strict (read-only).
    ["make build", { strict: "ask", balanced: "allow", permissive: "allow" }],
    ["python3 x.py", { strict: "ask", balanced: "allow", permissive: "allow" }],
    ["xdg-open README.md", { strict: "deny", balanced: "ask", permissive: "allow" }],
    ["rm notes.txt", { strict: "deny", balanced: "ask", permissive: "allow" }],
    ["curl https://example.com", { strict: "deny", balanced: "ask", permissive: "allow" }],
    ["rm -rf /", { strict: "deny", balanced: "deny", permissive: "deny" }],
    ["echo x > /etc/hosts", { strict: "deny", balanced: "deny", permissive: "deny" }],
    ["cat /etc/hosts", { strict: "ask", balanced: "allow", permissive: "allow" }],
    ["cd /etc", { strict: "ask", balanced: "ask", permissive: "ask" }],
    ["$CMD", { strict: "deny", balanced: "ask", permissive: "ask" }],
  ];
  it.each(table)("%j", async (command, expected) => {
    for (const policy of ["strict", "balanced", "permissive"] as const) {
      expect([policy, (await guardFor(policy)).check(command).decision]).toEqual([policy, expected[policy]]);
    }
  });

  it("refuses rm's -r, -f, --force and -i flags by name under strict", async () => {
    const v = (await guardFor("strict")).check("rm -rf ./build");
    expect(v).toMatchObject({ decision: "deny", rule: "strict-rm-flags" });
    expect(v.reason).toContain("-r -f");
  });

  it("says which preset let a command through under permissive", async () => {
    expect((await guardFor("permissive")).check("xdg-open README.md")).toMatchObject({ decision: "allow", rule: "permissive" });
  });
});

describe("interpreters' inline code is running project code: allowed under balanced, never allowed under strict", () => {
  it.each([
    "python3 -c 'print(1)'", "python3 -Ic 'print(1)'", "node -e \"console.log(1)\"", "node -pe 1", "node --eval 'while(1){}'",
    "perl -e 'print 1'", "perl -ne 'print' f", "ruby -e 'puts 1'", "php -r 'echo 1;'", "deno eval 'console.log(1)'",
    "bun -e 'console.log(1)'", "ts-node -e 1", "env python3 -c 1", "timeout 5 node -e 1",
    // Resource bombs that are not fork loops are the same class: the sandbox bounds them, not the guard.
    "python3 -c 'a=\"x\"*10**12'", "python3 -c 'import os; os.fork()'", "node -e 'require(\"child_process\").execSync(\"ls\")'",
  ])("%s", async (command) => {
    expect((await guardFor("balanced")).check(command)).toMatchObject({ decision: "allow", rule: "project-code" });
    expect((await guardFor("strict")).check(command)).toMatchObject({ decision: "ask", rule: "project-code" });
  });

  it.each([
    "python3 -c 'import os\nwhile 1: os.fork()'", "perl -e 'fork while 1'", "perl -E 'fork while 1'", "ruby -e 'loop { fork }'",
    "node -e 'const cp=require(\"child_process\"); for(;;) cp.spawn(process.execPath, [\"-e\", \"\"])'", "php -r 'while(1) pcntl_fork();'",
  ])("a fork loop in inline code is refused under every preset: %s", async (command) => {
    for (const policy of ["strict", "balanced", "permissive"] as const) {
      expect([policy, (await guardFor(policy)).check(command)]).toMatchObject([policy, { decision: "deny", rule: "fork-loop" }]);
    }
  });
});

describe("false positives the anchors' users complained about stay allowed", () => {
  it.each([
    "npm test 2>&1",
    "npm test > /tmp/log 2>&1",
    "npm run build 2>&1 | tail -20",
    "git log --oneline | head -5",
    "cat package.json | jq .scripts",
    "grep -rn '# TODO' src",
    'echo "a # b"',
    "ls -la # list",
    "# just a comment",
    "find . -name '*.ts' | xargs grep -l foo",
    "ls > /dev/null 2>&1",
    "npm test; echo exit=$?",
    "CI=1 npm test",
    "NODE_ENV=test npm test",
    "timeout 60 npm test",
  ])("%j is allowed", async (command) => {
    expect((await guardFor()).check(command).decision).toBe("allow");
  });
});

describe("user rules (Claude Code's grammar)", () => {
  it("matches `prefix:*` at a word boundary, exact commands, and `*` globs", () => {
    const r = compileRule("npm run test:*");
    expect(r.test("npm run test")).toBe(true);
    expect(r.test("npm run test -- --watch")).toBe(true);
    expect(r.test("npm run test:unit")).toBe(true);
    expect(r.test("npm run testing")).toBe(false);
    expect(compileRule("git status").test("git status")).toBe(true);
    expect(compileRule("git status").test("git status -s")).toBe(false);
    expect(compileRule("docker * ps").test("docker compose ps")).toBe(true);
    expect(compileRule("Bash(make:*)").test("make build")).toBe(true);
  });

  it("evaluates deny, then ask, then allow", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["git:*"], ask: ["git push:*"], deny: ["git push --force:*"] } });
    expect(g.check("git fetch").decision).toBe("allow");
    expect(g.check("git push origin main")).toMatchObject({ decision: "ask", rule: "user-ask" });
    expect(g.check("git push --force origin main")).toMatchObject({ decision: "deny", rule: "user-deny", layer: 3 });
  });

  it("allows a compound command only when every part is allowed", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["npm test:*", "make:*"] } });
    expect(g.check("npm test && make build").decision).toBe("allow");
    expect(g.check("npm test && curl x | sh")).toMatchObject({ decision: "deny", rule: "download-exec" });
    expect(g.check("npm test && xdg-open x").decision).toBe("ask");
  });

  it("never lets an allow rule override a dangerous operation", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["*"] } });
    expect(g.check("rm -rf /").decision).toBe("deny");
    expect(g.check("echo x > /etc/passwd").decision).toBe("deny");
    expect(g.check("make").decision).toBe("allow");
  });

  it("turns an ask into an allow, and an allow into an ask", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["rm:*"], ask: ["ls:*"] } });
    expect(g.check("rm notes.txt")).toMatchObject({ decision: "allow", rule: "user-allow" });
    expect(g.check("ls -la")).toMatchObject({ decision: "ask", rule: "user-ask" });
  });

  it("matches through transparent wrappers and leading assignments", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["make:*"] } });
    expect(g.check("CI=1 timeout 60 make test").decision).toBe("allow");
  });

  it("suggests a prefix rule for Always allow", () => {
    expect(suggestRule("npm run build --watch")).toBe("npm run build:*");
    expect(suggestRule("git push origin main")).toBe("git push:*");
    expect(suggestRule("make -j4")).toBe("make:*");
  });
});

describe("Always allow is never broader than the write it was asked about", () => {
  it("suggests the exact command for a config write, shell state or a variable (a prefix would allow every such write)", async () => {
    const g = await guardFor();
    expect(g.suggestRule("echo '[core] pager = id' >> .git/config")).toBe("echo [core] pager = id >> .git/config");
    expect(g.suggestRule("cat > .bashrc <<'EOF'\nexport X=1\nEOF")).toBe("cat > .bashrc << export X=1");
    expect(g.suggestRule("alias ll='ls -l'")).toBe("alias ll=ls -l");
    expect(g.suggestRule("PATH=/tmp/x ls")).toBe("PATH=/tmp/x ls");
    expect(g.suggestRule("let PATH=1")).toBe("let PATH=1");
  });

  it("suggests about the part that asked, not the first one", async () => {
    const g = await guardFor();
    expect(g.suggestRule("ls && curl https://example.com")).toBe("curl:*");
    expect(g.suggestRule("cd src && echo x > .npmrc")).toBe("echo x > .npmrc");
    expect(g.suggestRule("npm run build --watch")).toBe("npm run build:*");
    expect(g.suggestRule("rm -f nothing.txt")).toBe("rm:*");
  });

  it("the suggested rule allows that command again, and no other write", async () => {
    const asked = "echo x > .git/config";
    const rule = (await guardFor()).suggestRule(asked);
    const g = await guardFor("balanced", { rules: { allow: [rule] } });
    expect(g.check(asked)).toMatchObject({ decision: "allow", rule: "user-allow" });
    expect(g.check("echo x > .bashrc")).toMatchObject({ decision: "ask", rule: "config-write" });
    expect(g.check("echo y > .git/config")).toMatchObject({ decision: "ask", rule: "config-write" });
  });

  it("a prefix or pattern rule does not allow a config write, shell state or a variable; an exact one does", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["echo:*", "npm run build:*", "ls:*", "alias *", "cat > .bashrc << export X=1"] } });
    expect(g.check("echo x")).toMatchObject({ decision: "allow", rule: "user-allow" });
    expect(g.check("echo x > .bashrc")).toMatchObject({ decision: "ask", rule: "config-write" });
    expect(g.check("npm run build > .npmrc")).toMatchObject({ decision: "ask", rule: "config-write" });
    expect(g.check("PATH=/tmp/x ls")).toMatchObject({ decision: "ask", rule: "environment" });
    expect(g.check("alias ll='ls -la'")).toMatchObject({ decision: "ask" });
    expect(g.check("cat > .bashrc <<'EOF'\nexport X=1\nEOF")).toMatchObject({ decision: "allow", rule: "user-allow" });
    expect(g.check("cat > .bashrc <<'EOF'\nexport PATH=/tmp/x\nEOF")).toMatchObject({ decision: "ask", rule: "config-write" });
  });

  it("an exact rule no longer matches the same words with another redirect", async () => {
    const g = await guardFor("balanced", { rules: { allow: ["git status"] } });
    expect(g.check("git status").rule).toBe("user-allow");
    expect(g.check("git status > .gitmodules").rule).toBe("config-write");
  });
});

describe("the working directory", () => {
  it("resolves relative write targets against the cwd it is given", async () => {
    const g = await guardFor();
    expect(g.check("rm -rf ..", { cwd: "/home/project/app/src" }).rule).toBe("deletion");
    expect(g.check("rm -rf ..", { cwd: "/home/project/app" }).rule).toBe("recursive-delete-root");
    expect(g.check("rm -rf ../..", { cwd: "/home/project/app" }).rule).toBe("write-outside-workspace");
    expect(g.check("rm -rf ../../..", { cwd: "/home/project/app" }).rule).toBe("recursive-delete-root");
    expect(g.check("echo x > f", { cwd: "/etc" }).rule).toBe("write-outside-workspace");
  });

  it("follows cd inside the command", async () => {
    const g = await guardFor();
    expect(g.check("cd /tmp && rm x").rule).toBe("deletion");
    expect(g.check("cd /usr && rm x").rule).toBe("write-outside-workspace");
    // A cd inside ( … ) does not leak: `.` is still the workspace root.
    expect(g.check("(cd /tmp); rm -rf .").rule).toBe("recursive-delete-root");
    expect(g.check("cd /tmp && rm -rf .").rule).toBe("deletion");
    // After `;` the cd may have failed: rm then runs in the workspace root.
    expect(g.check("cd /tmp; rm -rf .").rule).toBe("recursive-delete-root");
    // tree-sitter hangs `>> ../x` on the whole list; bash gives it to find, after the cd.
    expect(g.check("mkdir -p B && cd B && find . >> ../tmp.txt").decision).toBe("allow");
    expect(g.check("cd /tmp && ls > ../etc/x").rule).toBe("write-outside-workspace");
  });

  it("honours a workspace option", async () => {
    const g = await guardFor("balanced", { workspace: "/work" });
    expect(g.check("echo x > /work/a").decision).toBe("allow");
    expect(g.check("echo x > /home/project/a").rule).toBe("write-outside-workspace");
    expect(g.check("rm -rf /work").rule).toBe("recursive-delete-root");
  });
});

describe("verdicts", () => {
  it("names the part that decided, for compound commands", async () => {
    const v = (await guardFor()).check("ls && sudo reboot && pwd");
    expect(v.part).toBe("sudo reboot");
    expect(v.rule).toBe("system-power");
  });

  it("turns a deny into the blocked-command error object", async () => {
    const v = (await guardFor()).check("rm -rf /");
    expect(toBlockedError(v)).toEqual({
      error: `Command blocked by safety rule: ${v.reason}`,
      rule: "recursive-delete-root",
      layer: 1,
    });
  });
});
