// Config files that make later code run (red team round 3, F11): writing one asks under balanced (and is refused
// under strict, as every config-write is), and the ones a program on the person's host runs commands from are also
// kept read-only by the node runtime's OS sandbox (src/lib/protected.ts is the one list both read). HOME is the
// workspace in the node runtime, so a dot file there is the user-wide configuration of every program the shell starts.
import { mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS } from "../../src/lib/protected.ts";
import { protectedWriteReason } from "../../src/runtime/node/protect.ts";
import { guardFor } from "./helpers.ts";
import { tripped } from "./tripwire.ts";

const PY = spawnSync("python3", ["-c", 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")'], { encoding: "utf8" }).stdout.trim();

/** Every spelling of the class: a config file written by a redirect, tee, cp, sed -i or a heredoc. */
const CONFIG_FILES_THAT_RUN_CODE_LATER = [
  ".claude/settings.json", ".claude/settings.local.json", "sub/.claude/settings.json", ".CLAUDE/Settings.Local.json", ".claude/hooks/check.sh",
  ".pre-commit-config.yaml", "sub/.pre-commit-config.yaml", ".devcontainer/devcontainer.json", ".devcontainer/Dockerfile",
  `.local/lib/${PY}/site-packages/x.pth`, "venv/lib/python3.12/site-packages/evil.pth", "lib/python3/dist-packages/x.pth",
  "sitecustomize.py", `.local/lib/${PY}/site-packages/usercustomize.py`, ".config/lesskey", ".config/fish/config.fish", ".config/git/config",
  ".config/nvim/init.lua", ".gdbinit", ".bunfig.toml", "bunfig.toml", ".cargo/config.toml", ".hgrc", ".tmux.conf", ".ssh/authorized_keys",
  ".ssh/config", ".vscode/tasks.json", ".vscode/settings.json", ".idea/workspace.xml", ".envrc", ".direnv/x", ".psqlrc", ".irbrc",
  ".Rprofile", ".bash_aliases", ".docker/config.json", ".gnupg/gpg-agent.conf", ".kube/config", ".aws/credentials",
];

const WRITES = (target: string) => [
  `echo x > ${target}`, `echo x >> ${target}`, `tee ${target} < x`, `cp a ${target}`, `cat > ${target} <<'EOF'\nx\nEOF`, `printf x | tee -a ${target}`,
];

describe("config files that run code later: a write asks under balanced", () => {
  it.each(CONFIG_FILES_THAT_RUN_CODE_LATER.map((t) => [t]))("config files that run code later: %s", async (target) => {
    const balanced = await guardFor("balanced");
    const strict = await guardFor("strict");
    for (const command of WRITES(target)) {
      expect(balanced.check(command), command).toMatchObject({ decision: "ask", rule: "config-write" });
      expect(strict.check(command).decision, command).not.toBe("allow");
    }
  });

  it.each(["cat .claude/settings.json", "ls .config", "cat .pre-commit-config.yaml", "less .envrc", "echo x > paths.pth", "echo x > src/settings.json", "echo x > app.config"])(
    "config files that run code later: %j is not a config write",
    async (command) => {
      expect((await guardFor("balanced")).check(command).rule).not.toBe("config-write");
    },
  );
});

describe("config files that run code later: the host-run ones are also read-only in the OS sandbox (one list)", () => {
  it.each([".claude/settings.json", ".claude/settings.local.json", ".pre-commit-config.yaml", ".devcontainer/devcontainer.json", ".vscode/tasks.json", ".envrc"])(
    "%s is in src/lib/protected.ts and refused by the sandbox's write check at any depth",
    (target) => {
      const listed = [...PROTECTED_FILES, ...PROTECTED_PATHS].some((f) => target === f) || PROTECTED_DIRS.some((d) => target.startsWith(`${d}/`));
      expect(listed).toBe(true);
      for (const p of [`/w/${target}`, `/w/a/b/${target}`, `/w/${target.toUpperCase()}`]) expect(protectedWriteReason("/w", p), p).toMatch(/keeps it read-only/);
    },
  );
  it.each(["/w/settings.json", "/w/claude/settings.json", "/w/.claude/settings.json.bak", "/w/x.envrc", "/w/.devcontainerx/a"])("%s is not protected", (p) => {
    expect(protectedWriteReason("/w", p)).toBeNull();
  });
});

describe("config files that run code later: real bash and python prove the spellings run code", () => {
  const pth = `.local/lib/${PY}/site-packages/x.pth`;
  it(`a .pth under HOME's user site-packages runs at every python start (python3 -c pass), and the guard asks for writing it`, async () => {
    const write = `echo 'import os; os.system("touch F")' > ${pth}`;
    const setup = (dir: string) => mkdirSync(join(dir, `.local/lib/${PY}/site-packages`), { recursive: true });
    expect(tripped(`${write} && python3 -c pass`, { setup })).toBe(true);
    // The tripwire is the python start, not the write.
    expect(tripped(write, { setup })).toBe(false);
    expect((await guardFor("balanced")).check(write)).toMatchObject({ decision: "ask", rule: "config-write" });
    expect((await guardFor("strict")).check(write).decision).not.toBe("allow");
  });

  it("a usercustomize.py in HOME's user site-packages runs at every python start", async () => {
    const write = `echo 'open("F", "w")' > .local/lib/${PY}/site-packages/usercustomize.py`;
    const setup = (dir: string) => mkdirSync(join(dir, `.local/lib/${PY}/site-packages`), { recursive: true });
    expect(tripped(`${write} && python3 -c pass`, { setup })).toBe(true);
    expect((await guardFor("balanced")).check(write)).toMatchObject({ decision: "ask", rule: "config-write" });
  });

  it("a .gdbinit in HOME runs its shell commands when gdb starts (where gdb is installed)", async () => {
    const gdb = spawnSync("gdb", ["--version"]).status === 0;
    const write = "echo 'shell touch F' > .gdbinit";
    if (gdb) expect(tripped(`${write} && gdb -batch -ex quit`)).toBe(true);
    expect((await guardFor("balanced")).check(write)).toMatchObject({ decision: "ask", rule: "config-write" });
  });
});

// Red team round 4, G4: bash writes to the one existing name a glob in a redirection or file operand matches, so a
// glob in any part of the path hides the config file from a comparison of names. Every part of the pattern is
// matched against the config names and folders (src/guard/options/environment.ts, globMayBeConfig).
describe("config file behind a glob: the pattern is matched against the config names", () => {
  const GLOBBED = [
    ".gi[t]/config", ".gi?/hooks/pre-commit", ".claud?/settings.json", ".npmr*", ".npmr[c]", ".bashr[c]", "package.jso[n]",
    ".envr[c]", ".profil[e]", ".gitconfi[g]", ".inputr[c]", ".pre-commit-config.yam[l]", ".confi[g]/git/config", ".ss?/authorized_keys",
    ".vscod?/tasks.json", ".devcontaine?/devcontainer.json", ".gitmodul?s", ".gitattribute?", `.local/lib/${PY}/site-packages/*.pth`,
    ".??rc", ".*/config", "*/config", "**/config", "*", ".gi[!x]/config", ".gi[^T]/config", ".gi[s-u]/config", "[.]git/config",
    "[[:alpha:]]git/config", ".claude/co*/x.md",
  ];
  it.each(GLOBBED.map((t) => [t]))("config file behind a glob: %s", async (target) => {
    const balanced = await guardFor("balanced");
    const strict = await guardFor("strict");
    for (const command of [`echo x > ${target}`, `echo x >> ${target}`, `printf x | tee -a ${target}`, `sed -i s/a/b/ ${target}`, `sort -o ${target} x`, `touch ${target}`]) {
      expect(balanced.check(command), command).toMatchObject({ decision: "ask", rule: "config-write" });
      expect(strict.check(command).decision, command).toBe("deny");
    }
  });

  it.each<[string, string, string]>([
    ["echo x > out/*.log", "allow", "ask"],
    ["echo x >> log/*.txt", "allow", "ask"],
    ["touch src/*.ts", "allow", "ask"],
    ["echo x > /tmp/*.log", "allow", "ask"],
    ["echo x > '.gi[t]'/config.txt", "allow", "ask"],
    ["cat *.json > all.txt", "allow", "ask"],
    ["echo x > '*'", "allow", "ask"],
  ])("config file behind a glob: an honest globbed write %j keeps its verdicts", async (command, b, s) => {
    expect((await guardFor("balanced")).check(command).decision, command).toBe(b);
    expect((await guardFor("strict")).check(command).decision, command).toBe(s);
  });

  it("real bash: `>> .gi[t]/config` writes .git/config, and git status runs its fsmonitor", () => {
    const git = "git init -q . && printf '[core]\\n\\tfsmonitor = touch F\\n' >> .gi[t]/config && git status >/dev/null 2>&1";
    expect(tripped(git)).toBe(true);
    expect(tripped(git.replace(".gi[t]", "'.gi[t]'"))).toBe(false);
  });
  it("real bash: `>> .gi?/hooks/pre-commit` appends to an existing hook (a glob matches only names that exist), run at the next commit", () => {
    const hook = "git init -q . && printf '#!/bin/sh\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit";
    expect(tripped(`${hook} && echo 'touch F' >> .gi?/hooks/pre-commit && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x`)).toBe(true);
  });
  it("real bash: `>> .bashr[c]` appends to the .bashrc the next interactive bash runs", () => {
    const setup = (d: string): void => writeFileSync(join(d, ".bashrc"), "\n");
    expect(tripped("echo 'touch F' >> .bashr[c] && bash -ic true </dev/null >/dev/null 2>&1", { setup })).toBe(true);
  });
});
