// What git on the host reads from the workspace's repositories, kept from the sandboxed shell (node/protect.ts,
// node/protect-git.ts, node/protect-sweep.ts), against the red team's second round (attacks/protect-*.ts in its
// checkout): real bubblewrap, real bash, real git on the host as the person runs it, and tripwires that show whether
// planted code ran. Commands the guard would stop go straight to the shell session (sandbox.session.run): the point is
// what the OS sandbox does when a command gets past the guard.

import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { NODE_SANDBOX } from "../../src/limits.ts";
import { createSandbox, type Sandbox } from "../../src/node.ts";
import { planProtection, protectedWriteReason } from "../../src/runtime/node/protect.ts";
import { disarmRepository, findGitDirs } from "../../src/runtime/node/protect-repos.ts";
import { RepoSweeper } from "../../src/runtime/node/protect-sweep.ts";

const canSandbox = process.platform === "linux" && existsSync("/usr/bin/bwrap");

function text(r: { content: Array<{ text: string }> }): string {
  return r.content.map((c) => c.text).join("\n");
}

async function sh(sb: Sandbox, command: string): Promise<string> {
  return (await sb.session.run(command, { timeoutSec: 120, softTimeoutSec: 120 })).output;
}

/** The runtime's status notices from now on (what the sandbox says it undid or left out). */
function statusNotices(sb: Sandbox): string[] {
  const notices: string[] = [];
  sb.runtime.on((e) => {
    if (e.type === "status") notices.push(e.message);
  });
  return notices;
}

function git(cwd: string, args: string): string {
  return execSync(`git ${args}`, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A repository the person gives as the workspace, with one commit; `setup` runs in it on the host first. */
async function personRepo(setup = "true"): Promise<string> {
  const repo = await fsp.mkdtemp(join(tmpdir(), "sandshell-protect-"));
  execSync(`git init -q && git config user.email p@x && git config user.name person && echo hi > README && git add README && git commit -qm init && ${setup}`, {
    cwd: repo,
    shell: "/bin/bash",
    stdio: "ignore",
  });
  return repo;
}

const tripwire = join(tmpdir(), `sandshell-protect-ran-${process.pid}`);
const planted = (what: string): string => `${tripwire}-${what}`;
const fsmonitor = (what: string): string => `[core]\\n\\tfsmonitor = \\"touch ${planted(what)}; false\\"\\n`;
const hookScript = (what: string): string => `#!/bin/sh\\ntouch ${planted(what)}\\n`;
afterAll(async () => {
  for (const f of await fsp.readdir(tmpdir())) if (f.startsWith(`sandshell-protect-ran-${process.pid}`)) await fsp.rm(join(tmpdir(), f), { force: true });
});
const ran = async (): Promise<string[]> => (await fsp.readdir(tmpdir())).filter((f) => f.startsWith(`sandshell-protect-ran-${process.pid}-`));

describe("what a repository's configuration names is protected (planProtection)", () => {
  it("core.hooksPath (and husky's folder above `_`), include.path and includeIf files (missing ones too), a program a value names, config.worktree with extensions.worktreeConfig, and a relative hooksPath in the host's own config, for the workspace's and nested repositories", async () => {
    const repo = await personRepo(
      [
        "git config core.hooksPath .githooks",
        "git config include.path ../team.gitconfig",
        "git config 'includeIf.gitdir:/nowhere/.path' ../only-on-host.gitconfig",
        "git config extensions.worktreeConfig true",
        "mkdir -p scripts && echo 'echo x' > scripts/tc.sh",
        "printf '[alias]\\n\\tt = !sh ./scripts/tc.sh --quiet\\n' > team.gitconfig",
        "git init -q sub && git -C sub config core.hooksPath .husky/_",
      ].join(" && "),
    );
    const home = await fsp.mkdtemp(join(tmpdir(), "sandshell-protect-home-"));
    onTestFinished(async () => {
      for (const d of [repo, home]) await fsp.rm(d, { recursive: true, force: true });
    });
    await fsp.writeFile(join(home, ".gitconfig"), "[core]\n\thooksPath = .hooks-everywhere\n");
    const plan = await planProtection(repo, { hostHome: home });
    const expected = [
      ".githooks", "team.gitconfig", "only-on-host.gitconfig", "scripts/tc.sh", ".git/config.worktree", ".hooks-everywhere",
      "sub/.husky/_", "sub/.husky", "sub/.hooks-everywhere", "sub/.git/config", "sub/.git/hooks",
      ".git/config", ".git/hooks", ".git/worktrees/.sandshell-read-only", ".git/modules/.sandshell-read-only",
    ];
    for (const p of expected) expect(plan.paths, p).toContain(join(repo, p));
    for (const p of [".githooks", "team.gitconfig", "scripts/tc.sh", "sub/.husky"]) expect(plan.named, p).toContain(join(repo, p));
    expect(plan.leftOut).toEqual([]);
    expect(plan.gitDirs).toEqual([join(repo, ".git"), join(repo, "sub/.git")]);
    // The file tools refuse them too, whatever the case of the spelling.
    for (const p of [".githooks/pre-commit", "TEAM.gitconfig", "scripts/tc.sh", "sub/.husky/pre-commit", ".git/info/attributes", ".git/config.worktree"]) {
      expect(protectedWriteReason(repo, join(repo, p), plan.named), p).toMatch(/keeps it read-only/);
    }
    expect(protectedWriteReason(repo, join(repo, "scripts/other.sh"), plan.named)).toBeNull();
  });

  it("a bounded list: past NODE_SANDBOX.maxProtectMounts the deepest nested names are left out and said, never the workspace's own names or its repository's git files", async () => {
    const repo = await personRepo("for i in $(seq 1 1500); do mkdir -p d$i/e && : > d$i/.bashrc && : > d$i/e/.zshrc; done; git init -q d7");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const plan = await planProtection(repo);
    // Each name costs its mount and one for every folder above it not yet counted.
    expect(plan.paths.length).toBeLessThan(NODE_SANDBOX.maxProtectMounts);
    expect(plan.leftOut.length).toBeGreaterThan(2_000);
    for (const p of [".bashrc", ".git/hooks", ".git/config", ".vscode", "d7/.git/hooks", "d7/.git/config"]) expect(plan.paths, p).toContain(join(repo, p));
    // Shallower names before deeper ones.
    expect(plan.leftOut.some((p) => p.endsWith("/e/.zshrc"))).toBe(true);
    expect(plan.paths.some((p) => p.endsWith("/e/.zshrc"))).toBe(false);
    // However small the bound, the most dangerous come first.
    const small = await planProtection(repo, { maxMounts: 30 });
    for (const p of [".bashrc", ".git/hooks", ".git/config"]) expect(small.paths, p).toContain(join(repo, p));
  });
});

describe("git folders at any depth (findGitDirs, as git's is_git_directory)", () => {
  it("finds .git folders and folders git takes for a repository whatever their name (a valid HEAD with objects/ and refs/, or a commondir), node_modules last; not a folder whose HEAD is no ref; past the bound it names the folders not looked in", async () => {
    const repo = await personRepo(
      [
        "mkdir -p a/b/c/d node_modules/dep notgit/objects notgit/refs",
        "git -C a/b/c/d init -q && git -C node_modules/dep init -q && git init -q --bare bare.git",
        "echo 'not a ref' > notgit/HEAD",
        "mkdir -p linked && echo 'ref: refs/heads/main' > linked/HEAD && echo ../.git > linked/commondir",
      ].join(" && "),
    );
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const all = await findGitDirs(repo, 100_000);
    expect(all.notLooked).toEqual([]);
    expect(new Set(all.gitDirs)).toEqual(new Set([".git", "a/b/c/d/.git", "node_modules/dep/.git", "bare.git", "linked"].map((d) => join(repo, d))));
    // node_modules is looked in last.
    expect(all.gitDirs.at(-1)).toBe(join(repo, "node_modules/dep/.git"));
    // A FIFO the shell planted as HEAD, or as a made repository's config, never blocks the host (git blocks on it and
    // runs nothing; the config is moved aside unread).
    execSync("mkdir -p fifo/objects fifo/refs && mkfifo fifo/HEAD && git init -q made && rm made/.git/config && mkfifo made/.git/config", { cwd: repo });
    expect((await findGitDirs(repo, 100_000)).gitDirs).not.toContain(join(repo, "fifo"));
    expect(disarmRepository(join(repo, "made/.git")).map(([from]) => from)).toEqual([join(repo, "made/.git/config")]);
    const cut = await findGitDirs(repo, 3);
    expect(cut.notLooked.length).toBeGreaterThan(0);
    expect(cut.notLooked).toContain(join(repo, "node_modules"));
  });
});

describe("RepoSweeper's look for repositories", () => {
  it("remembers the repositories there at its first look, disables a new one not named .git, keeps a new .git one for close, and names the folders a cut look left", async () => {
    const repo = await personRepo("git init -q --bare fixtures/bare.git && mkdir -p d1 d2 d3");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const notices: string[] = [];
    const sweeper = new RepoSweeper(repo, [repo], () => undefined, (m) => notices.push(m));
    expect(new Set(await sweeper.look())).toEqual(new Set([join(repo, ".git"), join(repo, "fixtures/bare.git")]));
    execSync("git init -q --bare made.git && git init -q sub", { cwd: repo });
    expect(new Set(await sweeper.look())).toEqual(new Set([join(repo, ".git"), join(repo, "fixtures/bare.git"), join(repo, "sub/.git")]));
    expect(existsSync(join(repo, "made.git/HEAD.sandshell-disabled"))).toBe(true);
    expect(existsSync(join(repo, "fixtures/bare.git/HEAD"))).toBe(true);
    expect(notices.filter((n) => n.startsWith(`Disabled ${join(repo, "made.git")}:`))).toHaveLength(1);
    await sweeper.look(2);
    expect(notices.at(-1)).toMatch(/^The look for repositories the shell made stopped after 2 folder entries .* folders were not looked in, e\.g\. /);
  });
});

describe.skipIf(!canSandbox)("node runtime's OS sandbox against the red team's second round", () => {
  it("protect-spellings: core.hooksPath, include.path, includeIf, config.worktree, a linked worktree's commondir and a sub/.git link planted by the shell: all refused or removed, and the person's git commit and status on the host run nothing", async () => {
    const repo = await personRepo(
      "mkdir .githooks && git config core.hooksPath .githooks && git config include.path ../team.gitconfig && touch team.gitconfig && " +
        "git config 'includeIf.gitdir:/nowhere/.path' ../later.gitconfig && git config extensions.worktreeConfig true",
    );
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    // Yes to everything the guard asks: what stops the writes is the sandbox, not a person.
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    expect(sb.runtimeInfo.isolation?.state).toBe("sandboxed");
    const attempts: Array<[string, string]> = [
      ["hooksPath", `printf '${hookScript("hookspath")}' > .githooks/pre-commit && chmod +x .githooks/pre-commit`],
      ["include", `printf '${fsmonitor("include")}' > team.gitconfig`],
      ["includeIf", `printf '${fsmonitor("includeif")}' > later.gitconfig`],
      ["config.worktree", `printf '${fsmonitor("config-worktree")}' > .git/config.worktree`],
      ["worktree", "git worktree add -q wt"],
      ["worktrees folder", "mkdir -p .git/worktrees/wt && echo ../.. > .git/worktrees/wt/commondir"],
      ["modules folder", "mkdir -p .git/modules/m"],
      ["info", "echo '* filter=x' > .git/info/attributes"],
    ];
    const out = await sh(sb, attempts.map(([name, cmd]) => `( ${cmd} ) 2>/dev/null && echo "WROTE ${name}" || echo "refused ${name}"`).join("; "));
    for (const [name] of attempts) expect(out, name).toContain(`refused ${name}`);
    expect(out).not.toContain("WROTE");
    // A `.git` file naming a repository whose config the shell wrote: nothing can stop its being made, so it is
    // removed (here at the sandbox's close; also at any job's or shell's start).
    const link = await sh(
      sb,
      `mkdir -p sub evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '${fsmonitor("gitfile")}' > evil/config && printf 'gitdir: ../evil\\n' > sub/.git && echo linked`,
    );
    expect(link).toContain("linked");
    // The file tools, which write from the host, refuse what the config names.
    for (const path of [".githooks/pre-commit", "team.gitconfig", "later.gitconfig", ".git/config.worktree", ".git/info/attributes"]) {
      const r = await sb.callTool("write_file", { path, content: "x" });
      expect(r.structuredContent, path).toMatchObject({ refused: "protected" });
    }
    await sb.close();
    expect(existsSync(join(repo, "sub/.git"))).toBe(false);
    // The person, later, on the host.
    git(repo, "commit -q --allow-empty -m person");
    git(repo, "status --short");
    git(join(repo, "sub"), "status --short");
    expect(await ran()).toEqual([]);
  });

  it("protect-spellings, husky 9: the hooks under .husky/_ run the files in .husky, which stay read-only; the person's commit runs nothing planted", async () => {
    const repo = await personRepo(
      "mkdir -p .husky/_ && printf '#!/bin/sh\\n[ ! -f .husky/pre-commit ] || sh .husky/pre-commit\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit && git config core.hooksPath .husky/_",
    );
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const out = await sh(sb, `(printf 'touch ${planted("husky")}\\n' > .husky/pre-commit) 2>&1; (echo x >> .husky/_/pre-commit) 2>&1; echo done`);
    expect(out.match(/Read-only file system/g)?.length).toBe(2);
    await sb.close();
    git(repo, "commit -q --allow-empty -m person");
    expect(await ran()).toEqual([]);
  });

  it("honest git work in the person's repository goes on: status, add, commit, checkout -b, stash and pop, merge, rebase, tag, log; `git worktree add` and `git config --local` are refused", async () => {
    const repo = await personRepo("git config extensions.worktreeConfig true");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const env = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" };
    const sb = await createSandbox({ workspace: repo, approver: () => true, runtimeOptions: { node: { env } } });
    onTestFinished(() => sb.close());
    const steps = [
      "git status --short | wc -l",
      "echo a > a && git add -A && git commit -qm a && echo commit-ok",
      "git checkout -q -b feature && echo b > b && git add b && git commit -qm b && echo branch-ok",
      "echo c >> a && git stash -q && git stash pop -q && git commit -qam c && echo stash-ok",
      "git checkout -q - && echo d > d && git add d && git commit -qm d && git merge -q --no-edit feature && echo merge-ok",
      "git checkout -q feature && git rebase -q master 2>/dev/null || git rebase -q main && echo rebase-ok",
      "git tag v1 && git log --oneline | wc -l",
      "git worktree add -q ../elsewhere 2>/dev/null && echo WORKTREE || echo worktree-refused",
      "git config --local x.y z 2>/dev/null && echo CONFIG || echo config-refused",
    ];
    const out = await sh(sb, steps.join("; "));
    expect(out).toBe("0\ncommit-ok\nbranch-ok\nstash-ok\nmerge-ok\nrebase-ok\n6\nworktree-refused\nconfig-refused\n");
  });

  it("protect-watcher: a commondir the watcher does not see (a nested repository's) is removed at the command's end, at a job's start and at close", async () => {
    const repo = await personRepo("git init -q sub && git -C sub commit -q --allow-empty -m s");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    const commondir = join(repo, "sub/.git/commondir");
    const plant = `mkdir -p evil && cp -r sub/.git/objects sub/.git/refs sub/.git/HEAD evil/ 2>/dev/null; printf '${fsmonitor("commondir")}' > evil/config; echo ../../evil > sub/.git/commondir`;
    // 1. The command that plants it: gone when its result comes back.
    expect(await sh(sb, `${plant}; [ -e sub/.git/commondir ] && echo planted`)).toContain("planted");
    expect(existsSync(commondir)).toBe(false);
    expect(notices.filter((n) => n.includes("sub/.git/commondir"))).toHaveLength(1);
    // 2. A job plants it after its command returned: the next job's start removes it.
    const job = await sb.callTool("bash", { command: `sleep 1; ${plant}; echo job-planted`, run_in_background: true });
    expect(text(await sb.callTool("job_output", { id: job.structuredContent.jobId, wait: 30 }))).toContain("job-planted");
    expect(existsSync(commondir)).toBe(true);
    const next = await sb.callTool("bash", { command: "true", run_in_background: true });
    expect(next.structuredContent).toMatchObject({ status: expect.stringMatching(/running|completed/) });
    expect(existsSync(commondir)).toBe(false);
    // 3. Again, then close.
    const again = await sb.callTool("bash", { command: `${plant}; echo job-planted`, run_in_background: true });
    expect(text(await sb.callTool("job_output", { id: again.structuredContent.jobId, wait: 30 }))).toContain("job-planted");
    expect(existsSync(commondir)).toBe(true);
    await sb.close();
    expect(existsSync(commondir)).toBe(false);
    git(join(repo, "sub"), "status --short");
    expect(await ran()).toEqual([]);
  });

  it("a folder the shell makes a repository (HEAD, objects/, refs/ and a config naming core.worktree and core.fsmonitor in the person's tracked src/): disabled at a job's start and at close, said, and the person's git status in src/lib runs nothing; the person's own bare repository is left alone", async () => {
    const repo = await personRepo("mkdir -p src/lib && echo x=1 > src/lib/a.py && git init -q --bare fixtures/bare.git && git add src && git commit -qm src");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    const config = `[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = \\"touch ${planted("gitdir")}; false\\"\\n`;
    const plant = (dir: string) => `mkdir -p ${dir} && cp -r .git/objects .git/refs .git/HEAD ${dir}/ && printf '${config}' > ${dir}/config && echo planted`;
    // At a job's start: a folder made a repository by an earlier command is disabled before the job runs.
    expect(await sh(sb, plant("tools"))).toContain("planted");
    const job = await sb.callTool("bash", { command: "ls tools", run_in_background: true });
    const listed = text(await sb.callTool("job_output", { id: job.structuredContent.jobId, wait: 30 }));
    expect(listed).toContain("HEAD.sandshell-disabled");
    expect(notices.some((n) => n.startsWith(`Disabled ${join(repo, "tools")}:`))).toBe(true);
    // At close: the person's tracked folder, made a repository by the last command.
    expect(await sh(sb, plant("src"))).toContain("planted");
    await sb.close();
    expect(existsSync(join(repo, "src/HEAD"))).toBe(false);
    expect(existsSync(join(repo, "src/HEAD.sandshell-disabled"))).toBe(true);
    expect(notices.some((n) => n.startsWith(`Disabled ${join(repo, "src")}:`) && n.includes("HEAD.sandshell-disabled"))).toBe(true);
    git(join(repo, "src/lib"), "status --short");
    git(join(repo, "tools"), "status --short");
    expect(await ran()).toEqual([]);
    // The person's bare repository, there before the sandbox opened, is theirs.
    expect(existsSync(join(repo, "fixtures/bare.git/HEAD"))).toBe(true);
  });

  it("a repository made with git init during the session works in it until close; then a config that runs programs and hooks are moved aside (plain settings such as the remote kept), said, and the person's git status and commit there run nothing", async () => {
    const repo = await personRepo();
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const env = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" };
    const sb = await createSandbox({ workspace: repo, approver: () => true, runtimeOptions: { node: { env } } });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    const out = await sh(
      sb,
      [
        "git init -q sub && git -C sub remote add origin https://example.com/x.git && echo x > sub/f && git -C sub add f && git -C sub commit -qm s && echo honest-ok",
        `git -C sub config core.fsmonitor "touch ${planted("init-fsmonitor")}; false"`,
        `git -C sub config alias.st "!touch ${planted("init-alias")}"`,
        `printf '${hookScript("init-hook")}' > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit && echo planted`,
        "git init -q plain && echo plain-ok",
        // A linked worktree's folder in it whose commondir names a folder with objects/, refs/ and a config (no HEAD,
        // so no repository of its own), and a .git file into that worktree.
        "mkdir -p evil sub/.git/worktrees/wt wt2 && cp -r .git/objects .git/refs evil/",
        `printf '${fsmonitor("init-worktree")}' > evil/config`,
        "git -C sub rev-parse HEAD > sub/.git/worktrees/wt/HEAD && echo ../../../../evil > sub/.git/worktrees/wt/commondir && printf 'gitdir: ../sub/.git/worktrees/wt\\n' > wt2/.git",
        // An honest linked worktree of the same repository.
        "git -C sub worktree add -q ../honest-wt && echo worktree-ok",
      ].join(" && "),
    );
    expect(out).toContain("worktree-ok");
    expect(out).toContain("honest-ok");
    expect(out).toContain("plain-ok");
    await sb.close();
    const sub = join(repo, "sub");
    expect(existsSync(join(sub, ".git/config.sandshell-disabled"))).toBe(true);
    expect(existsSync(join(sub, ".git/hooks.sandshell-disabled/pre-commit"))).toBe(true);
    expect(git(sub, "config remote.origin.url").trim()).toBe("https://example.com/x.git");
    expect(notices.some((n) => n.startsWith(`Moved ${join(sub, ".git/config")} aside`))).toBe(true);
    expect(notices.some((n) => n.startsWith(`Moved ${join(sub, ".git/hooks")} aside`))).toBe(true);
    // A repository whose config runs nothing is left as git made it.
    expect(existsSync(join(repo, "plain/.git/config.sandshell-disabled"))).toBe(false);
    git(sub, "status --short");
    git(sub, "-c user.email=p@x -c user.name=p commit -q --allow-empty -m person");
    expect(() => git(sub, "st")).toThrow();
    expect(git(sub, "log --oneline").split("\n").filter(Boolean)).toHaveLength(2);
    expect(() => git(join(repo, "wt2"), "status --short")).toThrow(/not a git repository/);
    expect(git(join(repo, "honest-wt"), "log --oneline").split("\n").filter(Boolean)).toHaveLength(1);
    expect(notices.some((n) => n.startsWith("Repositories made inside the sandbox during this session: ") && n.includes("sub/.git") && n.includes("plain/.git"))).toBe(true);
    expect(await ran()).toEqual([]);
  });

  it("an interactive rebase planted in progress with an exec line is moved aside at close and said: the person's git rebase --continue runs nothing", async () => {
    const repo = await personRepo("echo two > f && git add f && git commit -qm two");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    const plant = [
      "mkdir -p .git/rebase-merge && cd .git/rebase-merge && git rev-parse HEAD > orig-head && git rev-parse HEAD~1 > onto",
      "echo refs/heads/$(git -C ../.. branch --show-current) > head-name && : > interactive && : > done && echo 1 > msgnum && echo 1 > end",
      `printf 'pick %s two\\nexec touch ${planted("rebase")}\\n' $(git rev-parse --short HEAD) > git-rebase-todo && echo planted`,
    ].join(" && ");
    expect(await sh(sb, plant)).toContain("planted");
    await sb.close();
    expect(existsSync(join(repo, ".git/rebase-merge"))).toBe(false);
    expect(notices.some((n) => n.startsWith(`Moved ${join(repo, ".git/rebase-merge")} aside`))).toBe(true);
    expect(() => git(repo, "rebase --continue")).toThrow(/No rebase in progress/);
    expect(await ran()).toEqual([]);
  });

  it("the person's nested repositories deeper than NODE_SANDBOX.protectScanDepth and under node_modules are read-only inside (config and hooks)", async () => {
    const repo = await personRepo("mkdir -p a/b/c/d node_modules/dep src/github.com/org/r && git -C a/b/c init -q && git -C a/b/c/d init -q && git -C node_modules/dep init -q && git -C src/github.com/org/r init -q");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const dirs = ["a/b/c", "a/b/c/d", "node_modules/dep", "src/github.com/org/r"];
    const out = await sh(sb, dirs.map((d) => `(printf '${fsmonitor("deep")}' > ${d}/.git/config) 2>&1; (printf '${hookScript("deep")}' > ${d}/.git/hooks/pre-commit) 2>&1`).join("; "));
    expect(out.match(/Read-only file system/g)?.length).toBe(dirs.length * 2);
    await sb.close();
    for (const d of dirs) git(join(repo, d), "status --short");
    expect(await ran()).toEqual([]);
  });

  it("a person's repository left out of the profile (mounts spent on 1,500 nested names) whose config the shell changed has it moved aside at close and said: the person's git status there runs nothing", async () => {
    const repo = await personRepo("mkdir d{1..1500} && for i in {1..1500}; do : > d$i/.bashrc; done; mkdir -p a/b/c/d/e && git -C a/b/c/d/e init -q && git init -q kept");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    expect(await sh(sb, `printf '${fsmonitor("left-out")}' > a/b/c/d/e/.git/config && echo wrote`)).toContain("wrote");
    // The person changes their own protected repository's config on the host meanwhile: theirs, left alone.
    git(repo, "config alias.hi '!echo hi'");
    await sb.close();
    const deep = join(repo, "a/b/c/d/e");
    expect(existsSync(join(deep, ".git/config.sandshell-disabled"))).toBe(true);
    expect(notices.some((n) => n.startsWith(`Moved ${join(deep, ".git/config")} aside`))).toBe(true);
    // The person's repositories the shell did not change are left as they were.
    expect(existsSync(join(repo, "kept/.git/config.sandshell-disabled"))).toBe(false);
    expect(existsSync(join(repo, ".git/config.sandshell-disabled"))).toBe(false);
    git(deep, "status --short");
    expect(await ran()).toEqual([]);
  }, 180_000); // 1,500 folders made, a sandbox start with hundreds of mounts

  it("protect-argv: 4,000 nested .bashrc files: jobs and a fresh shell still start inside the sandbox, the workspace's own names and repository stay read-only, and what was left out is said", async () => {
    const repo = await personRepo("mkdir d{1..4000} && for i in {1..4000}; do : > d$i/.bashrc; done");
    onTestFinished(() => fsp.rm(repo, { recursive: true, force: true }));
    const sb = await createSandbox({ workspace: repo, approver: () => true });
    onTestFinished(() => sb.close());
    const notices = statusNotices(sb);
    const job = await sb.callTool("bash", { command: "echo in-job; cat /proc/1/cmdline | tr '\\0' ' ' | head -c 4", run_in_background: true });
    expect(text(await sb.callTool("job_output", { id: job.structuredContent.jobId, wait: 60 }))).toContain("in-job");
    await sb.session.run("exit", { timeoutSec: 20 }).catch(() => undefined);
    const out = await sh(sb, "echo next-shell; (echo x > .bashrc) 2>&1; (echo x > .git/hooks/pre-commit) 2>&1");
    expect(out).toMatch(/^next-shell\n.*Read-only file system\n.*Read-only file system\n/);
    expect(sb.runtimeInfo.isolation?.state).toBe("sandboxed");
    expect(notices.some((n) => /\d+ protected names in the workspace did not fit/.test(n))).toBe(true);
  }, 180_000); // 4,000 folders made, then two sandbox starts with hundreds of mounts: 6 s idle, 38 s seen on a loaded machine
});
