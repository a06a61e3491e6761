// The node runtime's OS sandbox against the red team's attacks, each test named after its script (attacks/ in the red
// team's checkout): real bubblewrap, real bash, real git, and tripwires that show whether planted code ran.
// Commands the guard would stop go straight to the shell session (sandbox.session.run): the point is what the OS
// sandbox does when a command gets past the guard. The file tools go through callTool, as an agent's do.

import { execFileSync, execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createGuard } from "../../src/guard/index.ts";
import { TOOLS } from "../../src/limits.ts";
import { createSandbox, type Sandbox } from "../../src/node.ts";
import { createNodeRuntime } from "../../src/runtime/node.ts";
import { createNodeFs } from "../../src/runtime/node/fs.ts";
import { LIBRARY_DIRS, LIBRARY_FILES, PROTECTED_DIRS, PROTECTED_FILES } from "../../src/lib/protected.ts";
import { protectedWritePaths, protectedWriteReason } from "../../src/runtime/node/protect.ts";
import type { DirEntry, Runtime, RuntimeFs } from "../../src/runtime/types.ts";

const canSandbox = process.platform === "linux" && existsSync("/usr/bin/bwrap");

function text(r: { content: Array<{ text: string }> }): string {
  return r.content.map((c) => c.text).join("\n");
}

async function sh(sb: Sandbox, command: string): Promise<{ output: string; exitCode: number | null }> {
  const r = await sb.session.run(command, { timeoutSec: 60, softTimeoutSec: 60 });
  return { output: r.output, exitCode: r.exitCode };
}

function git(cwd: string, args: string): string {
  return execSync(`git ${args}`, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A real repository the person gives as the workspace, with a nested one (sub/) that has a commit. */
async function personRepo(): Promise<string> {
  const repo = await fsp.mkdtemp(join(tmpdir(), "sandshell-person-repo-"));
  git(repo, "init -q && git config user.email p@x && git config user.name person");
  git(repo, "init -q sub && git -C sub -c user.email=p@x -c user.name=p commit -q --allow-empty -m s");
  return repo;
}

describe("the library's list of protected files is Sandshell's", () => {
  it("PROTECTED_FILES and PROTECTED_DIRS are @anthropic-ai/sandbox-runtime's DANGEROUS_FILES and dangerous directories, and Sandshell's additions", async () => {
    const spec = "@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js";
    const lib = (await import(/* @vite-ignore */ spec).catch(async () => import(/* @vite-ignore */ join(process.cwd(), "node_modules", spec)))) as {
      DANGEROUS_FILES: string[];
      getDangerousDirectories: () => string[];
    };
    expect([...LIBRARY_FILES]).toEqual(lib.DANGEROUS_FILES);
    expect([...LIBRARY_DIRS]).toEqual(lib.getDangerousDirectories());
    expect(PROTECTED_FILES.slice(0, LIBRARY_FILES.length)).toEqual([...LIBRARY_FILES]);
    expect(PROTECTED_DIRS.slice(0, LIBRARY_DIRS.length)).toEqual([...LIBRARY_DIRS]);
  });

  it("protectedWriteReason names the protected part at any depth, in any case, and nothing else", () => {
    const ws = "/w";
    for (const p of [
      "/w/.bashrc", "/w/a/b/c/d/.mcp.json", "/w/.vscode/tasks.json", "/w/x/.IDEA/y", "/w/.claude/commands/c.md", "/w/.git/hooks/pre-commit",
      "/w/.git/config", "/w/sub/.git/commondir", "/w/.git/modules/m/config", "/w/.git/worktrees/t/gitdir", "/w/sub/.git",
      "/w/.claude/settings.json", "/w/a/.claude/settings.local.json", "/w/.pre-commit-config.yaml", "/w/.devcontainer/devcontainer.json", "/w/.envrc", "/w/.npmrc", "/w/pkg/.NPMRC",
    ]) {
      expect(protectedWriteReason(ws, p), p).toMatch(/keeps it read-only/);
    }
    for (const p of ["/w/src/a.ts", "/w/.git/HEAD", "/w/.git/objects/ab/cd", "/w/.claude/x.md", "/w/settings.json", "/w/config", "/w/.vscodex", "/w", "/etc/.bashrc"]) {
      expect(protectedWriteReason(ws, p), p).toBeNull();
    }
  });
});

describe.skipIf(!canSandbox)("node runtime's OS sandbox against the red team's attacks", () => {
  const tripwire = join(tmpdir(), `sandshell-planted-ran-${process.pid}`);
  const planted = (what: string): string => `${tripwire}-${what}`;

  afterAll(async () => {
    for (const what of ["hook", "fsmonitor", "sub-hook", "commondir", "tool-hook"]) await fsp.rm(planted(what), { force: true });
  });

  it("dangerous-files: hooks, .git/config (core.fsmonitor), .bashrc, .vscode, .mcp.json, .claude/settings.json, .pre-commit-config.yaml, .devcontainer, .envrc, .npmrc planted in the person's repository by the shell or the file tools: all refused, and the person's git commit and status on the host run nothing", async () => {
    const repo = await personRepo();
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    // An approver that says yes to everything: what stops the writes is the sandbox, not a person.
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    expect(sb.runtimeInfo.isolation?.state).toBe("sandboxed");
    const hook = `#!/bin/sh\ntouch ${planted("hook")}\n`;
    const targets = [
      ".git/hooks/pre-commit", ".git/config", ".bashrc", ".vscode/tasks.json", ".mcp.json", ".idea/workspace.xml", ".claude/commands/x.md",
      "sub/.git/hooks/post-checkout", "sub/.git/config", ".claude/settings.json", ".claude/settings.local.json", ".pre-commit-config.yaml",
      ".devcontainer/devcontainer.json", ".envrc", ".npmrc",
    ];
    const shell = await sh(
      sb,
      targets.map((t) => `mkdir -p "$(dirname ${t})" 2>/dev/null; (printf '%s' ${JSON.stringify(hook)} >> ${t}) 2>/dev/null && echo "WROTE ${t}" || echo "refused ${t}"`).join("; ") +
        `; git config core.fsmonitor 'touch ${planted("fsmonitor")}; false' 2>/dev/null && echo WROTE-config || echo refused-config` +
        // Around the denies: move the folder aside, remove the file, link over it, unlink the stand-in.
        "; mv .git/hooks .git/h 2>/dev/null && echo MOVED-hooks; mv .git .g 2>/dev/null && echo MOVED-git; rm -f .git/config 2>/dev/null && echo REMOVED-config" +
        "; ln -sf /tmp/x .git/hooks/pre-commit 2>/dev/null && echo LINKED-hook; rm -f .bashrc 2>/dev/null && echo REMOVED-bashrc; mv sub sub2 2>/dev/null && echo MOVED-sub",
    );
    for (const t of targets) expect(shell.output, t).toContain(`refused ${t}`);
    expect(shell.output).toContain("refused-config");
    expect(shell.output).not.toMatch(/WROTE|MOVED|REMOVED|LINKED/);
    // The file tools write from the host, outside the sandbox: they refuse the same, also through a symlink.
    await sh(sb, "ln -s .git/hooks hk");
    for (const path of [...targets, "hk/pre-commit", ".git/commondir"]) {
      const r = await sb.callTool("write_file", { path, content: hook });
      expect(r.isError, path).toBe(true);
      expect(r.structuredContent, path).toMatchObject({ refused: "protected" });
      expect(text(r), path).toMatch(/was not written: .*keeps it read-only: the shell cannot write it either/);
    }
    const edit = await sb.callTool("edit_file", { path: ".git/config", old_str: "[core]", new_str: `[core]\n\tfsmonitor = touch ${planted("fsmonitor")}` });
    expect(edit.isError).toBe(true);
    expect(text(edit)).toMatch(/\.git\/config was not written/);
    // Ordinary work in the same repository goes on.
    expect((await sb.callTool("write_file", { path: "src/a.ts", content: "export {};\n" })).isError).toBeUndefined();
    await sh(sb, "rm hk");
    await sb.close();
    // The person, later, on the host.
    git(repo, "add src/a.ts && git commit -q -m work");
    git(repo, "status --short");
    git(join(repo, "sub"), "status --short");
    expect(existsSync(planted("hook")), "the planted pre-commit hook ran").toBe(false);
    expect(existsSync(planted("fsmonitor")), "the planted core.fsmonitor ran").toBe(false);
    expect(git(repo, "log --oneline").split("\n").filter(Boolean)).toHaveLength(1);
    // Nothing the sandbox stood in for missing names is left in the person's repository.
    expect(git(repo, "status --short")).toBe("?? sub/\n");
  });

  it("dangerous-files, around the list: a .git/commondir that sends git to a config the shell wrote is removed at once, so the person's git status runs nothing", async () => {
    const repo = await personRepo();
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: "deny" });
    onTestFinished(() => sb.close());
    const notices: string[] = [];
    sb.runtime.on((e) => {
      if (e.type === "status") notices.push(e.message);
    });
    const r = await sh(
      sb,
      `mkdir .evil && cp -r .git/objects .git/refs .git/HEAD .evil/ && printf '[core]\\n\\tfsmonitor = touch ${planted("commondir")}; false\\n' > .evil/config && echo ../.evil > .git/commondir && echo planted; ` +
        "for i in 1 2 3 4 5 6 7 8 9 10; do [ -e .git/commondir ] || break; sleep 0.2; done; [ -e .git/commondir ] && echo STILL-THERE || echo removed",
    );
    expect(r.output).toContain("planted");
    expect(r.output).toContain("removed");
    git(repo, "status --short");
    expect(existsSync(planted("commondir"))).toBe(false);
    expect(notices.some((n) => n.includes(".git/commondir"))).toBe(true);
  });

  it("honest git work: git init where there is no .git, add -A and commit past the stand-ins, --global config in the private temp folder; --local config and a new remote are refused", async () => {
    // Yes to everything the guard asks: what is refused here, the sandbox refuses.
    const sb = await createSandbox({ approver: () => true });
    onTestFinished(() => sb.close());
    const r = await sh(
      sb,
      [
        "git init -q && echo init-ok",
        "git config --global user.name Agent && git config --global user.email agent@x && echo global-ok",
        "echo a > a && git add -A && git commit -qm first && echo commit-ok",
        "git status --short | wc -l",
        "git checkout -q -b feature && echo a2 >> a && git commit -qam second && git log --oneline | wc -l",
        "cat $GIT_CONFIG_GLOBAL | grep -c Agent",
      ].join(" && "),
    );
    expect(r.output).toBe("init-ok\nglobal-ok\ncommit-ok\n0\n2\n1\n");
    expect(readFileSync(join(sb.runtimeInfo.isolation!.tempDir, ".gitconfig"), "utf8")).toContain("Agent");
    // A .git that git init made in this running shell was not there when the shell started: its hooks are the
    // shell's to write until the shell starts again (docs/sandbox.md). A background job started now, and the file
    // tools at once, refuse them.
    const gap = await sh(sb, "echo x > .git/hooks/pre-commit && echo running-shell-wrote");
    expect(gap.output).toBe("running-shell-wrote\n");
    const job = await sb.callTool("bash", { command: "echo y > .git/hooks/post-commit 2>&1; echo rc=$?", run_in_background: true });
    const out = await sb.callTool("job_output", { id: job.structuredContent.jobId, wait: 30 });
    expect(text(out)).toMatch(/Read-only file system[\s\S]*rc=1/);
    expect((await sb.callTool("write_file", { path: ".git/hooks/post-merge", content: "x" })).structuredContent).toMatchObject({ refused: "protected" });
    // Once the shell starts again, it is covered too; then its config is read-only and `git config --local` fails.
    await sb.session.run("exit", { timeoutSec: 20 }).catch(() => undefined);
    const after = await sh(sb, "echo z > .git/hooks/pre-push 2>&1; git config --local x.y z 2>&1; echo rc=$?; git remote add o /x 2>&1; echo rc=$?");
    expect(after.output).toMatch(/Read-only file system[\s\S]*could not write config file \.git\/config[\s\S]*rc=\d+\n[\s\S]*rc=\d+\n$/);
    expect(after.output).not.toMatch(/rc=0/);
  });

  it("nested repositories are found in the workspace as the library finds them under its own working directory", async () => {
    const ws = await fsp.mkdtemp(join(tmpdir(), "sandshell-nested-"));
    onTestFinished(() => fsp.rm(ws, { recursive: true, force: true }));
    git(ws, "init -q a && git init -q b/c && mkdir -p d/e/f && git -C d/e/f init -q && mkdir -p node_modules/x && git -C node_modules/x init -q");
    await fsp.mkdir(join(ws, "p/.vscode"), { recursive: true });
    await fsp.writeFile(join(ws, "p/.vscode/settings.json"), "{}");
    const found = await protectedWritePaths(ws);
    for (const p of ["a/.git/hooks", "a/.git/config", "b/c/.git/hooks", "b/c/.git/config", "p/.vscode", ".bashrc", ".vscode"]) expect(found, p).toContain(join(ws, p));
    // As deep as the look goes (NODE_SANDBOX.protectScanDepth: a repository's top at most two folders down), and
    // never inside node_modules.
    expect(found.some((p) => p.includes("d/e/f"))).toBe(false);
    expect(found.some((p) => p.includes("node_modules"))).toBe(false);
  });

  it("large-command-toctou: a watcher racing to swap a saved long command finds it, cannot write it, and the checked command is what runs", async () => {
    const sb = await createSandbox({ approver: "deny" });
    onTestFinished(() => sb.close());
    await sb.callTool("write_file", {
      path: "watcher.py",
      content: [
        "import glob, os, time",
        "seen = set()",
        "while True:",
        "    for f in glob.glob('/tmp/sandshell-u*/cmd-*/cmd-*.sh') + glob.glob('/tmp/cmd-*.sh'):",
        "        if f in seen: continue",
        "        seen.add(f)",
        "        for how in ('write', 'replace', 'unlink'):",
        "            try:",
        "                if how == 'write':",
        "                    open(f, 'w').write('touch SWAPPED\\n')",
        "                elif how == 'replace':",
        "                    open(f + '.new', 'w').write('touch SWAPPED\\n'); os.replace(f + '.new', f)",
        "                else:",
        "                    os.unlink(f)",
        "                r = 'DONE'",
        "            except OSError as e:",
        "                r = e.strerror",
        "            open('watch.log', 'a').write(f'{how} {r}\\n')",
        "    time.sleep(0.002)",
        "",
      ].join("\n"),
    });
    const job = await sb.callTool("bash", { command: "python3 watcher.py", run_in_background: true });
    expect(job.structuredContent).toMatchObject({ status: "running" });
    const big = `echo ${"a".repeat(70_000)} > /dev/null; echo benign-done`;
    for (let i = 0; i < 8; i++) {
      const r = await sb.callTool("bash", { command: big, timeout: 60 });
      expect(r.structuredContent).toMatchObject({ status: "completed", exitCode: 0, verdict: { decision: "allow" } });
      expect(text(r)).toContain("benign-done");
      expect(text(r)).toMatch(/was saved to \/tmp\/sandshell-u\d+\/cmd-[^/]+\/cmd-\d+\.sh/);
    }
    // The watcher saw every saved command and every write, replace and unlink failed.
    let log = "";
    for (let t = 0; t < 50 && log.split("\n").filter(Boolean).length < 24; t++) {
      await new Promise((r) => setTimeout(r, 100));
      log = existsSync(join(sb.runtimeInfo.workspace, "watch.log")) ? readFileSync(join(sb.runtimeInfo.workspace, "watch.log"), "utf8") : "";
    }
    const lines = log.split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(24);
    for (const line of lines) expect(line).toMatch(/^(write|replace|unlink) (Read-only file system|Permission denied)$/);
    expect(existsSync(join(sb.runtimeInfo.workspace, "SWAPPED"))).toBe(false);
    await sb.callTool("job_kill", { id: job.structuredContent.jobId });
  });

  it("os-sandbox: /etc/shadow and /etc/gshadow cannot be read inside (uid 0 inside is the host's root when the host runs as root); /etc/passwd can", async () => {
    const sb = await createSandbox({ approver: "deny" });
    onTestFinished(() => sb.close());
    const secrets = ["/etc/shadow", "/etc/gshadow"].filter((p) => existsSync(p));
    const r = await sh(sb, `${secrets.map((p) => `cat ${p} >/dev/null 2>&1 && echo READ ${p}`).join("; ")}; ls -A /root | grep -c history; head -c 5 /etc/passwd; echo; id -u`);
    expect(r.output).not.toContain("READ");
    // ~root is hidden like the host user's home (only tool folders on PATH, such as ~/.cargo, stay).
    expect(r.output).toMatch(/^0\nroot:\n\d+\n$/);
  });

  it("macOS view: where the shell's /tmp is read-only, the guard treats $TMPDIR as the scratch folder and refuses a write to /tmp", async () => {
    const rt = await createNodeRuntime({ mode: "required" });
    // The view sandbox-exec gives (tested on Linux by forcing it): /tmp read-only, $TMPDIR the private folder.
    const mac: Runtime = { ...rt, isolation: { ...rt.isolation, tmp: "read-only" } };
    const sb = await createSandbox({ runtime: mac, approver: "deny" });
    onTestFinished(async () => {
      await sb.close();
      await rt.dispose();
    });
    const tmp = await sb.callTool("bash", { command: "echo x > /tmp/scratch" });
    expect(tmp.structuredContent).toMatchObject({ status: "blocked", verdict: { rule: "write-outside-workspace" } });
    expect(text(tmp)).toContain(`outside the workspace and ${rt.tempDir}`);
    const own = await sb.callTool("bash", { command: `echo x > ${rt.tempDir}/scratch && echo ok` });
    expect(own.structuredContent).toMatchObject({ status: "completed", verdict: { decision: "allow" } });
    // The guard's option on its own, and its default.
    const guard = await createGuard({ workspace: "/w", scratch: "/var/folders/x/T" });
    expect(guard.check("echo x > /tmp/y").decision).toBe("deny");
    expect(guard.check("echo x > /var/folders/x/T/y").decision).toBe("allow");
    expect((await createGuard({ workspace: "/w" })).check("echo x > /tmp/y").decision).toBe("allow");
  });

  it("file-tools size race: a job swapping a small file and a sparse 1.5 GB one on one name never gets the big one read", async () => {
    const sb = await createSandbox({ approver: "deny" });
    onTestFinished(() => sb.close());
    await sh(sb, "echo small > small && truncate -s 1500M big && ln -f small x");
    // Each swap a rename, so the name is never missing.
    const job = await sb.session.startJob("while :; do ln -f big t1 && mv -f t1 x; ln -f small t2 && mv -f t2 x; done");
    onTestFinished(() => sb.session.killJob(job.id).then(() => undefined));
    const seen = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const tool = i % 2 === 0 ? "read_file" : "edit_file";
      const r = await sb.callTool(tool, tool === "read_file" ? { path: "x" } : { path: "x", old_str: "nothing-like-this", new_str: "y" });
      const t = text(r);
      // Either the small file, or refused by its size: never read whole (it would have been "a binary file").
      if (/small|not found/.test(t)) seen.add("small");
      else {
        expect(t).toMatch(/is 1\.5 GB, more than the 10\.0 MB/);
        seen.add("big");
      }
      expect(r.structuredContent.binary).toBeUndefined();
    }
    expect(seen.has("small")).toBe(true);
  });

  for (const access of ["proc-fd", "cwd-helper"] as const) {
    it(`file-tools size race (${access}): the opened file's own size decides, and at most the limit plus one byte is read`, async () => {
      const dir = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "sandshell-size-")));
      onTestFinished(() => fsp.rm(dir, { recursive: true, force: true }));
      const fs = createNodeFs(access);
      execFileSync("truncate", ["-s", "1500M", join(dir, "big")]);
      await fsp.writeFile(join(dir, "small"), "0123456789");
      await expect(fs.readFile(join(dir, "big"), { maxBytes: 1024 })).rejects.toMatchObject({ code: "EFBIG", size: 1500 * 1024 * 1024 });
      expect(new TextDecoder().decode(await fs.readFile(join(dir, "small"), { maxBytes: 10 }))).toBe("0123456789");
      await expect(fs.readFile(join(dir, "small"), { maxBytes: 9 })).rejects.toMatchObject({ code: "EFBIG", size: 10 });
    });
  }
});

describe("list_dir on a folder of 200,000 entries", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "sandshell-wide-")));
    execSync("mkdir -p many && cd many && seq -f 'f%06g' 1 200000 | xargs touch", { cwd: dir });
  }, 120_000);
  afterAll(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  for (const access of ["proc-fd", "cwd-helper"] as const) {
    it(`the node file system (${access}) reads no more than maxEntries + 1 of them`, async () => {
      const fs = createNodeFs(access);
      const some = await fs.readdir(join(dir, "many"), { maxEntries: 500 });
      expect(some).toHaveLength(501);
      expect(some.every((e) => e.type === "file" && /^f\d{6}$/.test(e.name))).toBe(true);
    });
  }

  it("list_dir and read_file's near-name hint take at most their limit of entries from the folder, and say there are more", async () => {
    const rt = await createNodeRuntime({ workspace: dir, mode: "off" });
    const taken: number[] = [];
    const fs: RuntimeFs = {
      ...rt.fs,
      readdir: async (path, options) => {
        const list: DirEntry[] = await rt.fs.readdir(path, options);
        taken.push(list.length);
        return list;
      },
    };
    const sb = await createSandbox({ runtime: { ...rt, fs }, approver: "deny" });
    onTestFinished(async () => {
      await sb.close();
      await rt.dispose();
    });
    const r = await sb.callTool("list_dir", { path: "many" });
    expect(r.structuredContent).toMatchObject({ status: "completed", entries: TOOLS.listMaxEntries, truncated: true });
    expect(text(r)).toMatch(/more entries not shown/);
    expect(Math.max(...taken)).toBeLessThanOrEqual(TOOLS.listMaxEntries + 1);
    taken.length = 0;
    const top = await sb.callTool("list_dir", { depth: 1 });
    expect(text(top)).toContain(`many/ (more than ${TOOLS.listMaxEntries} entries)`);
    taken.length = 0;
    const missing = await sb.callTool("read_file", { path: "many/f00001x" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^No such file: many\/f00001x\./);
    expect(Math.max(...taken)).toBeLessThanOrEqual(TOOLS.hintMaxEntries + 1);
  }, 60_000);
});
