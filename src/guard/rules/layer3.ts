// Layer 3: what runs unasked. A command is allowed only when every part of it is a
// form the guard positively knows to be safe: a program with an option spec row (src/guard/options/)
// whose every option the row lists, or project code (one class, allowed under balanced and asked under
// strict). Deletions, network, shell state, risky environment variables and writes to tool configuration
// ask (balanced) or are refused (strict); anything else asks (balanced), is refused (strict) or runs
// (permissive). Writes inside the workspace are fine under balanced (layer 2 has already refused the ones outside
// it); strict is read-only, so there they ask (row strict-write).

import { DYN, type Command } from "../facts.ts";
import { parseArgs } from "../argv.ts";
import { FETCHERS, SHELLS, programFileSource, programSource, scanProgram } from "../interpreters.ts";
import { WRAPPERS, type Effective } from "../wrappers.ts";
import { globMayBeConfig, isConfigPath, riskyVariable } from "../options/environment.ts";
import { numberExpansions } from "../options/getopt.ts";
import { resolvePath } from "../paths.ts";
import { changesShellRules, SHADOWED, stdinFeed } from "./semantics.ts";
import { isTerminalOperand } from "../../lib/shells.ts";
import { judgeEffective, specFor } from "../options/index.ts";
import { TRANSPARENT_WRAPPERS } from "../wrapper-effects.ts";
import { harmlessDevice, resolveWord, writable, type RuleEnv, type RuleRow } from "./row.ts";

/** Why a command is known safe (by its option spec row), or null. */
export function knownSafe(cmd: Command, eff: Effective): string | null {
  if (cmd.argv.length === 0) return "an assignment or redirect";
  const n = eff.name;
  if (n === null) return null;
  // Through a tracer, a namespace, a new root, a lock, another user or `exec`, a command is not what it is alone.
  for (const w of eff.wrappers) if (!TRANSPARENT_WRAPPERS.has(w)) return null;
  if (xargsRunsItsInput(eff)) return null;
  const args = eff.argv.slice(1);
  if (n === "[[") return "a test";
  const judged = judgeEffective(eff);
  // `find / | xargs sed -i …`: files that come from stdin are written where nobody can see.
  if (judged) return judged.unsafe === null && !(eff.stdinArgs && judged.operandsWritten) ? specFor(n)!.reason : null;
  // Below, programs without a row: through xargs they get words nobody sees (`xargs env` runs the program its input names).
  if (eff.stdinArgs) return null;
  if (n === "env" || n === "printenv") return args.length === 0 || (n === "printenv" && args.every((w) => /^[A-Za-z_]\w*$/.test(w.value))) ? "system information" : null;
  if (n === "command") return args.length === 2 && (args[0]!.value === "-v" || args[0]!.value === "-V") ? "a lookup" : null;
  if (versionCheck(eff)) return "a version check";
  return null;
}

/**
 * `python3 --version`, `node -v`, `perl -v`, `ruby --version`: the interpreter prints its version and exits without
 * reading a program, from a file or from its input (proved in test/guard/bypass-hidden-arguments.test.ts).
 */
function versionCheck(eff: Effective): boolean {
  const args = eff.argv.slice(1);
  if (eff.name === null || args.length !== 1 || eff.stdinArgs) return false;
  // Each program's own spelling: python3 -v is verbose mode (then it reads a program from the terminal), not a version.
  const flags = /^python[0-9.]*$/.test(eff.name) ? ["--version", "-V"] : VERSION_FLAGS[eff.name];
  return flags !== undefined && flags.includes(args[0]!.value);
}

const VERSION_FLAGS: Record<string, string[]> = {
  node: ["--version", "-v"], nodejs: ["--version", "-v"], perl: ["--version", "-v", "-V"], ruby: ["--version", "-v"], php: ["--version", "-v"],
  deno: ["--version", "-V"], bun: ["--version", "-v"], npm: ["--version", "-v"], git: ["--version"],
};

/**
 * `xargs xargs`: the inner xargs takes its own options and its program from the outer one's input (`sh -c '…'`). The
 * two peel to one `echo`, as `xargs xargs echo` does, so any xargs after the first is not known safe.
 */
function xargsRunsItsInput(eff: Effective): boolean {
  const first = eff.wrappers.indexOf("xargs");
  return first >= 0 && eff.wrappers.indexOf("xargs", first + 1) > first;
}

/** Why a known-safe verdict does not hold: the option or form the row does not know. */
export function notKnownSafe(eff: Effective): string | null {
  const opaque = eff.wrappers.find((w) => !TRANSPARENT_WRAPPERS.has(w));
  if (opaque) return `it runs through ${opaque}, which changes how or where it runs`;
  if (xargsRunsItsInput(eff)) return "the second xargs takes its options and its program from the first one's input";
  if (eff.stdinArgs && !judgeEffective(eff)) return `xargs gives ${eff.name ?? "it"} words from its input, which the guard cannot see`;
  const judged = judgeEffective(eff);
  if (judged && judged.unsafe === null && eff.stdinArgs && judged.operandsWritten) return "the files it writes come from its input, which the guard cannot see";
  return judged?.unsafe ?? null;
}

function isInterpreterName(n: string): boolean {
  return /^(?:node|nodejs|python[0-9.]*|ruby|perl|php|deno|bun)$/.test(n);
}

// ---- Project code: one class, one verdict per preset ----

const PKG_SAFE: Record<string, Set<string>> = {
  npm: new Set(["test", "t", "tst", "run", "run-script", "start", "ci", "install", "i", "add", "ls", "list", "outdated", "version"]),
  pnpm: new Set(["test", "t", "run", "start", "install", "i", "add", "ls", "list", "outdated"]),
  yarn: new Set(["test", "run", "start", "install", "add", "list", "outdated"]),
};

function packageScript(eff: Effective): boolean {
  const safe = PKG_SAFE[eff.name ?? ""];
  if (!safe) return false;
  const args = eff.argv.slice(1);
  if (args.some((w) => /^(?:-g|--global|--location=global|--prefix)/.test(w.value) || w.dynamic)) return false;
  if (eff.name === "yarn" && args.length === 0) return true; // bare `yarn` installs
  const sub = args.find((w) => !w.value.startsWith("-"))?.value;
  return sub !== undefined && safe.has(sub);
}

const BUILD_TOOLS: Record<string, Set<string> | null> = {
  make: null, gmake: null, pytest: null, "py.test": null, tsx: null, "ts-node": null, jest: null, vitest: null, mocha: null, tsc: null,
  cargo: new Set(["run", "test", "build", "check", "bench", "clippy", "doc", "r", "t", "b", "c"]),
  go: new Set(["run", "test", "build", "vet"]),
};

/**
 * `pip list|show|freeze|check` read what is installed, but pip is Python: it starts by running the `.pth` files and
 * sitecustomize of its environment (a workspace venv, `~/.local`), so it runs project code like `python3 -m pip list`.
 * Only the options that choose what to print: no index or network (`--outdated`), no log file, no other path.
 */
const PIP_READS = new Set(["list", "show", "freeze", "check"]);
const PIP_OPTION = /^(?:-[lvqef]+|--(?:local|user|verbose|quiet|not-required|exclude-editable|include-editable|editable|files|all|format(?:=(?:columns|freeze|json))?))$/;
function pipRead(eff: Effective): boolean {
  const [sub, ...rest] = eff.argv.slice(1);
  if (!sub || sub.dynamic || !PIP_READS.has(sub.value)) return false;
  return rest.every((w) => !w.dynamic && !w.glob && (w.value.startsWith("-") ? PIP_OPTION.test(w.value) : true));
}

/**
 * How an interpreter comes to read code typed at the terminal (a REPL, or a program read from it), or null: an
 * option that asks for it (`python3 -i x.py`, `node --interactive`, `php -a`, `perl -d`), or its program is its
 * standard input and nothing feeds that (`python3 -B`, `perl -w`, `python3 -`), or the program file is the terminal
 * (`python3 /dev/tty`). Node without a program file runs other modes (`node --test`), so there only `-` counts.
 */
export function typedCode(cmd: Command, eff: Effective, env: RuleEnv): string | null {
  const n = eff.name;
  if (n === null || !isInterpreterName(n) || eff.argv.length < 2 || versionCheck(eff)) return null;
  const { source, interactive } = scanProgram(eff);
  if (interactive !== null) return `${n} ${interactive} reads code typed at the terminal`;
  const program = eff.argv.slice(1).find((w) => !w.value.startsWith("-") || w.value === "-");
  if (program && !program.dynamic && programFileSource(program) === "file" && isTerminalOperand(program.value)) return `${n} reads its program from the terminal`;
  if (source !== "stdin" || stdinFeed(cmd, env).fed) return null;
  if (/^(?:node|nodejs|deno|bun)$/.test(n) && !eff.argv.some((w) => w.value === "-")) return null;
  return `${n} reads its program from the terminal`;
}

/** What project code the command runs (`a script`, `npm test`, `make`), or null. */
export function projectCode(cmd: Command, eff: Effective, env: RuleEnv): string | null {
  const n = eff.name;
  if (n === null) return null;
  const first = eff.argv[0]!;
  // With an option the guard does not know before it, which word is the program is not known.
  if (isInterpreterName(n)) return eff.argv.length > 1 && !versionCheck(eff) && programSource(eff) !== "unknown" ? `${n} runs project code` : null;
  if (SHELLS.has(n)) return programSource(eff) === "file" ? `${n} runs a project script` : null;
  if (n in PKG_SAFE) return packageScript(eff) ? `${n} runs the project's scripts` : null;
  if (n === "pip" || n === "pip3") return pipRead(eff) ? `${n} runs the .pth files of its environment` : null;
  if (n in BUILD_TOOLS) {
    const subs = BUILD_TOOLS[n];
    if (!subs) return `${n} runs project code`;
    const sub = eff.argv.slice(1).find((w) => !w.value.startsWith("-"));
    return sub && subs.has(sub.value) ? `${n} ${sub.value} runs project code` : null;
  }
  // `./build.sh`, `scripts/x`: a program inside the workspace or /tmp.
  if (first.value.includes("/") && !first.dynamic && !first.glob) {
    const r = resolveWord(first, cmd.cwd);
    if (r.kind === "path" && writable(r.path, env) && r.path.startsWith("/") && !r.path.startsWith("/dev/")) return "a project script";
  }
  return null;
}

// ---- Shell state that changes what later commands do ----


export function shellState(cmd: Command, eff: Effective, env: RuleEnv): string | null {
  if (cmd.fn) {
    if (SHADOWED.has(cmd.fn) || specFor(cmd.fn)) return `a function named ${cmd.fn} shadows the command`;
    // Any definition of it: a second `f() { …; } > file` redefines the first.
    if (env.functions(cmd.fn).some((fn) => fn.redirect)) return `the function ${cmd.fn} carries a redirect`;
  }
  if (cmd.argv.length === 0 && cmd.redirects.length === 0) return null;
  const n = eff.name;
  const args = eff.argv.slice(1);
  switch (n) {
    case "alias":
      return args.some((w) => w.value.includes("=") || w.dynamic) ? "alias" : null;
    case "trap":
      return args.some((w) => w.value !== "-p" && w.value !== "-l") ? "trap" : null;
    case "enable":
    case "coproc":
    case "bind":
      return n;
    case "hash":
      return parseArgs(args, "p").values.has("p") ? "hash -p" : null;
    case "set":
    case "shopt":
    case "declare":
    case "typeset":
    case "local":
    case "readonly":
      // Options that change how later commands are read: also layer 1's `shell-rules`, which asks under every preset.
      return changesShellRules(eff);
    case "history":
      return args.some((w) => /^-[a-z]*[anrws]/.test(w.value)) && parseArgs(args, "d").operands.length ? "history with a file" : null;
    case "complete":
    case "compgen":
      return parseArgs(args, "oAGWFCXPSDEI").values.has("C") || parseArgs(args, "oAGWFCXPSDEI").values.has("F") ? `${n} -C/-F` : null;
    case "mapfile":
    case "readarray":
      return parseArgs(args, "dntusCc").values.has("C") ? `${n} -C` : null;
    case "exec":
      return args.length === 0 && cmd.redirects.length ? "exec with redirects" : null;
  }
  return null;
}

/**
 * The first file the command writes, as written, that is not a harmless device (`> /dev/null`, `2>&1` writes none):
 * a redirect's target, a program's output operand or option (`tee f`, `sort -o f`, `touch f`, `mkdir d`), a file edited
 * in place (`sed -i`). Under strict every such write asks: strict is read-only.
 */
export function writesAFile(cmd: Command, env: RuleEnv): string | null {
  for (const w of env.writes(cmd)) {
    const r = resolveWord(w, cmd.cwd);
    if (r.kind === "path" && harmlessDevice(r.path)) continue;
    return w.raw;
  }
  return null;
}

/** A file the command writes that configures later commands (.git/config, .npmrc, package.json, hooks). */
export function configWrite(cmd: Command, env: RuleEnv): string | null {
  for (const w of env.writes(cmd)) {
    const r = resolveWord(w, cmd.cwd);
    // A name the guard cannot see (`.git/out.$$`, `.claude/commands/{}`) in a folder of configuration is configuration.
    if (r.kind === "unknown" && r.prefix !== null && isConfigPath(`${r.prefix}/${DYN}`)) return `${r.prefix}/…`;
    // Numbers (`$$`, `$!`, `$((…))`) make names too: `./.git$!/config` is .git/config before any background job (`$!`
    // is empty then), `site-packages/a$$.pth` a .pth. The word is judged as the pattern of every name it may be.
    const globs: string[] = [];
    if (r.kind === "unknown" && (numberExpansions(w.raw, globs) ?? 0) > 0) {
      const parts = w.value.split(DYN);
      const pattern = resolvePath(parts.map((p, i) => (i ? (parts.length - 1 === globs.length ? globs[i - 1] : "*") : "") + p).join(""), cmd.cwd);
      if (pattern !== null && globMayBeConfig(pattern)) return w.raw;
    }
    if (r.kind !== "path") continue;
    if (isConfigPath(r.path)) return r.path;
    // A glob names the one existing file it matches: `> .gi[t]/config` writes .git/config. r.path stops before the
    // first glob part; the whole pattern is judged against every config name and folder.
    const pattern = w.glob ? resolvePath(w.value, cmd.cwd) : null;
    if (pattern !== null && globMayBeConfig(pattern)) return pattern;
  }
  return null;
}
const DELETERS = new Set(["rm", "rmdir", "unlink", "shred"]);

export function deletes(eff: Effective): boolean {
  if (eff.name === null) return false;
  if (DELETERS.has(eff.name)) return true;
  if (eff.name === "find") return eff.argv.some((w) => w.value === "-delete");
  if (eff.name === "git") return eff.argv.some((w) => w.value === "clean" || w.value === "rm");
  return false;
}

const NETWORK = new Set([...FETCHERS, "ssh", "scp", "sftp", "rsync", "telnet", "ping", "dig", "nslookup", "host", "whois", "npx", "pnpx"]);

export function network(eff: Effective): boolean {
  const n = eff.name;
  if (n === null) return false;
  if (NETWORK.has(n)) return true;
  const at = eff.argv.findIndex((w, i) => i > 0 && !w.value.startsWith("-"));
  const sub = at > 0 ? eff.argv[at]!.value : undefined;
  if (n === "git") {
    // `git remote`, `git remote -v`, `git remote get-url NAME` and `git submodule status` only read the configuration.
    const verb = eff.argv[at + 1]?.value;
    const local = (sub === "remote" && (eff.argv.length <= 3 || verb === "get-url")) || (sub === "submodule" && verb === "status");
    return sub !== undefined && ["clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"].includes(sub) && !local;
  }
  if (/^pip[0-9.]*$/.test(n) || n === "uv") return sub === "install" || sub === "download";
  if (n === "npm" || n === "pnpm" || n === "yarn") return sub !== undefined && ["publish", "login", "adduser", "dlx", "exec", "x"].includes(sub);
  return false;
}


const text = (cmd: Command, eff: Effective) => eff.argv.map((w) => w.raw).join(" ") || cmd.text;

export const LAYER3: RuleRow[] = [
  {
    id: "strict-rm-flags",
    layer: 3,
    decision: "deny",
    policy: "strict",
    title: "rm -r / -f / --force / -i (strict only)",
    reason: "`rm {detail}` is refused under the strict policy.",
    hint: "Delete single files without -r, -f or -i, or ask a person to change the policy.",
    examples: ["rm -rf ./build", "rm -f x", "rm --force x", "rm -i x", "rm -r dir", "rm --rec dir"],
    nearMisses: ["rm x", "ls -rf"],
    match(_cmd, eff, env) {
      if (env.policy !== "strict" || eff.name !== "rm") return null;
      const p = parseArgs(eff.argv.slice(1), "", ["force", "recursive", "interactive", "dir", "one-file-system", "preserve-root", "no-preserve-root", "verbose"]);
      const bad = ["r", "R", "f", "i", "I", "force", "recursive", "interactive"].filter((f) => p.flags.has(f));
      return bad.length ? { detail: bad.map((f) => (f.length > 1 ? `--${f}` : `-${f}`)).join(" ") } : null;
    },
  },
  {
    id: "deletion",
    layer: 3,
    decision: "ask",
    title: "Deletions (ask in balanced, refused in strict)",
    reason: "`{detail}` deletes files.",
    hint: "A person approves deletions; or add an allow rule such as `rm:*` for the session.",
    examples: ["rm notes.txt", "rm -rf ./build", "rmdir old", "find . -name '*.tmp' -delete", "git clean -fd", "unlink x"],
    nearMisses: ["ls -r", "git status", "echo rm"],
    match(_cmd, eff) {
      return deletes(eff) ? { detail: eff.name! } : null;
    },
  },
  {
    id: "network",
    layer: 3,
    decision: "ask",
    title: "Network access (ask in balanced, refused in strict)",
    reason: "`{detail}` reaches the network.",
    hint: "A person approves network access; or add an allow rule such as `curl:*` for the session.",
    examples: [
      "curl https://example.com", "wget https://x/y.tgz", "git push origin main", "git clone https://x/y", "ssh host", "pip install requests", "npx create-vite",
      "cat < /dev/tcp/example.com/80", "exec 3</dev/tcp/example.com/80", "python3 -m code < /dev/tcp/h/80",
    ],
    nearMisses: ["npm install lodash", "git log", "git remote -v", "echo curl"],
    match(cmd, eff) {
      if (network(eff)) return { detail: eff.name! };
      // bash itself opens a socket for `< /dev/tcp/host/port` (and `>`, `<>`), whatever the program.
      const socket = cmd.redirects.find((r) => r.target && /^\/dev\/(?:tcp|udp)\//.test(r.target.value));
      return socket ? { detail: `${socket.op} ${socket.target!.value}` } : null;
    },
  },
  {
    id: "shell-state",
    layer: 3,
    decision: "ask",
    title: "Shell state that changes later commands: alias, trap, hash -p, enable, shadowing functions (ask in balanced, refused in strict)",
    reason: "`{detail}` changes what later commands in this shell do.",
    hint: "Run the command you mean directly instead of redefining one; a person approves changes to the shell itself.",
    examples: [
      "trap 'touch x' EXIT", "history -w /tmp/x", "f() { echo hi; } > /tmp/x", "coproc cat", "complete -C 'touch x' ls", "compgen -C 'touch x' ls",
      "mapfile -C 'touch x' -c 1 a < f", "exec > /tmp/log", "bind -x '\"\\C-t\": ls'",
      // alias, hash -p, enable and functions named like commands are layer 1's shell-rules (they ask under every preset)
    ],
    nearMisses: ["alias", "trap -p", "hash -r", "shopt -s globstar", "history | tail", "f() { echo hi; }; f", "unalias ll"],
    match(cmd, eff, env) {
      const what = shellState(cmd, eff, env);
      return what ? { detail: what } : null;
    },
  },
  {
    id: "environment",
    layer: 3,
    decision: "ask",
    title: "Setting a variable that is not known harmless (PATH, PAGER, GIT_*, LD_*, NODE_OPTIONS, …)",
    reason: "`{detail}` may change what a program runs; only a short list of harmless variables is set unasked.",
    hint: "Leave the variable out, or pass the setting as an option of the program; a person approves it otherwise.",
    examples: [
      "PAGER='touch x' git log", "GIT_EXTERNAL_DIFF=x git diff", "export PATH=/tmp:$PATH", "env LD_PRELOAD=/tmp/x.so ls", "declare -x BASH_ENV=/tmp/x",
      "NODE_OPTIONS='--require ./x.js' npm test", "PS4='$(id)' bash -x y.sh", "IFS=/ ", "RIPGREP_CONFIG_PATH=x rg y", "npm_config_script_shell=x npm test",
      "GIT_DIR=/tmp/evil/.git git status", "PS3=id", "HOME=/tmp", "CDPATH=/etc", "export GIT_CONFIG_COUNT=1",
      "let PATH=1", "(( IFS=1 ))", "for PATH in /tmp/x; do ls; done", ": ${PATH:=/tmp/x}", "unset PATH", "wait -p PATH",
      "PS4[0]='$(id)'", "PS4[1]='$(id)'", "read 'PATH[0]' < f", ": ${PATH[0]:=/tmp/x}",
      "[[ ${PS4:=x} ]]", "x=PATH; : ${!x:=1}", "export PAGER", "declare -x PAGER", "export -f f", "readonly PATH", "export -n PATH",
      ": {PATH}>/dev/null", "echo {CDPATH}>&-", "unset GIT_OPTIONAL_LOCKS", "env -u GIT_OPTIONAL_LOCKS git status", "env -i git status",
    ],
    nearMisses: [
      "LANG=C sort x", "export NODE_ENV=production", "x=1", "dir=src; ls $dir", "CI=1 npm test", "env TZ=UTC date", "declare -a arr",
      "let n=1", "for f in *.txt; do wc -l $f; done", "echo ${x:=a}", "unset x", "wait -p pid",
      "arr[0]=1", "export LANG", "unset array[2]", "declare -p PATH", "echo {a} >f", "env -u x ls",
    ],
    match(cmd, eff) {
      const name = riskyVariable(cmd, eff);
      return name ? { detail: name } : null;
    },
  },
  {
    id: "config-write",
    layer: 3,
    decision: "ask",
    title:
      "Writes to files that configure later commands (.git/, .npmrc, package.json, shell rc files, .vscode/, .mcp.json, .claude/, .config/, " +
      "a python .pth, .pre-commit-config.yaml, .devcontainer/, .envrc)",
    reason: "Writes to {detail}, which configures what later commands run.",
    hint: "A person approves changes to tool configuration; edit the project's code files instead.",
    examples: [
      "echo '[core] pager = id' >> .git/config", "echo 'x' > .npmrc", "tee package.json < x", "cat > .gitattributes <<'EOF'\n* diff=x\nEOF",
      "cp x .git/hooks/pre-commit", "echo --pre=sh > .rgrc", "sed -i s/a/b/ package.json",
      "printf '[core]\\n\\tpager = id\\n' > r/config", "echo 'ref: refs/heads/main' > r/HEAD", "echo x > ~/.ssh/config",
      "echo '{}' > .vscode/settings.json", "cp x .idea/workspace.xml", "echo '{}' > .mcp.json", "echo x > .claude/commands/x.md",
      "tee .claude/agents/a.md < x", "echo '{}' > .claude/settings.json", "echo x >> .ripgreprc", "echo '{}' > .claude/settings.local.json",
      "echo x > .pre-commit-config.yaml", "echo '{}' > .devcontainer/devcontainer.json", "echo 'import os' > .local/lib/python3.11/site-packages/x.pth",
      "echo x > venv/lib/python3.12/site-packages/sitecustomize.py", "echo x > .config/lesskey", "echo x > .config/fish/config.fish", "echo x > .gdbinit",
      "echo x > .bunfig.toml", "echo x > .cargo/config.toml", "echo x > .hgrc", "echo x > .tmux.conf", "echo x >> .ssh/authorized_keys", "echo x > .envrc",
      "echo x > .direnv/x", "echo x > .git/out.$$", "base64 -d t.b64 > .terminfo/x/xterm-256color", "echo 'DEFINE tbl sh' > .manpath", "echo '\\! touch x' > .psqlrc", "echo x > .irbrc", "echo x > .docker/config.json", "echo x > .gnupg/gpg-agent.conf",
    ],
    nearMisses: [
      "cat package.json", "echo x > notes.txt", "cat > src/a.ts <<'EOF'\nx\nEOF", "git config --get user.name", "cat .mcp.json", "echo x > claude/commands.md",
      "echo x > paths.pth", "echo x > src/settings.json", "cat .config/lesskey", "echo x > app.config",
    ],
    match(cmd, _eff, env) {
      const path = configWrite(cmd, env);
      return path ? { detail: path } : null;
    },
  },
  {
    id: "interactive-code",
    layer: 3,
    decision: "ask",
    decisions: { strict: "deny" },
    title: "Interpreters that read code typed at the terminal: a REPL or debugger, judged as the bare interpreter (asked in balanced, refused in strict)",
    reason: "`{detail}`: what is typed into it later runs as code the guard never sees.",
    hint: "Put the code in a file with write_file and run it (`python3 /tmp/run.py`), or pass it in a quoted heredoc: python3 - <<'EOF' … EOF.",
    examples: [
      "python3 -i", "python -i x.py", "python3 -Bi", "python3 -ic 'import os'", "python3 -B", "python3 -", "python3 -u /dev/tty", "node -i", "node --interactive",
      "node -", "perl -d x.pl", "perl -de 0", "php -a", "php --interactive", "perl -w",
    ],
    nearMisses: [
      "python3 x.py", "python3 -Wignore x.py", "python3 - <<'EOF'\nprint(1)\nEOF", "node --test", "perl -d:NYTProf x.pl", "python3 x.py -i", "node app.js --interactive", "python3 -m pytest",
      "python3 --version", "python3 -V", "perl -v", "ruby --version",
    ],
    match(cmd, eff, env) {
      const what = typedCode(cmd, eff, env);
      return what ? { detail: what } : null;
    },
  },
  {
    id: "project-code",
    layer: 3,
    decision: "allow",
    decisions: { strict: "ask" },
    title: "Running project code: scripts, interpreters, npm scripts, make, cargo, go (allowed in balanced, asked in strict)",
    reason: "`{detail}` runs the project's own code.",
    hint: "A person approves running project code under the strict policy, or a rule such as `npm test:*` allows it.",
    examples: [
      "python3 x.py", "node app.js", "npm test", "npm run build", "make", "bash build.sh", "./script.sh", "cargo run", "go run .", "pytest",
      "node -e 'console.log(1)'", "python3 -m pytest", "npm ci", "npm install lodash", "pnpm add zod", "yarn test", "node /tmp/run.js",
      "pip list", "pip3 show requests", "pip freeze", "pip list --format=json",
    ],
    nearMisses: [
      "npm install -g x", "cargo install x", "go get x", "sh -c 'ls'", "npm publish", "node --version", "python3 -V", "pip list --outdated",
      "pip list --log /tmp/x", "pip --log x list", "pip install x", "pip list $X",
    ],
    match(cmd, eff, env) {
      const what = projectCode(cmd, eff, env);
      return what ? { detail: text(cmd, eff) } : null;
    },
  },
  {
    id: "strict-write",
    layer: 3,
    decision: "allow",
    decisions: { strict: "ask" },
    policy: "strict",
    title: "Writes inside the workspace: a redirect to a file, a program's output file, an in-place edit (allowed in balanced, asked in strict)",
    reason: "`{detail}` is written: the strict policy is read-only.",
    hint: "A person approves writes under the strict policy; or read only (`> /dev/null` writes nothing).",
    examples: [
      "touch x", "echo x > f", "echo x >> f", "tee a < x", "ls | tee -a log", "sort -o out x", "sed -i s/a/b/ f", "mkdir d", "mkdir -p src/lib",
      "cat > f <<'EOF'\nx\nEOF", "ls &> log", "xxd a b", "uniq a b", "find . -fprint out", "tree -o out", "base64 -d a > b", "echo x > /tmp/x",
      "diff a b > out", "ls > out 2>&1", "nohup ls", "uniq *.txt",
    ],
    nearMisses: ["cat f", "ls > /dev/null", "ls 2>/dev/null", "echo x >&2", "echo x 2>&1", "ls > /dev/stderr", "grep -n x f | head", "sed 's/a/b/' f", "sort x", "git status"],
    match(cmd, eff, env) {
      // Balanced allows them (the allowlist row says why); strict asks only for what it would otherwise allow: a
      // program it does not know stays refused.
      if (env.policy !== "strict" || !knownSafe(cmd, eff)) return null;
      const what = writesAFile(cmd, env);
      return what ? { detail: what } : null;
    },
  },
  {
    id: "allowlist",
    layer: 3,
    decision: "allow",
    title: "Known safe: programs whose every option is in their option spec row",
    reason: "`{detail}`: known safe.",
    hint: "",
    examples: [
      "ls -la", "cat README.md | grep -n TODO", "git status && git diff | head -50", "grep -rn 'a # b' src", "find . -name '*.ts' | wc -l",
      "git log --oneline -5", "sed -n 1,10p x", "awk '{print $1}' x", "echo '{\"a\":1}' | jq .a", "mkdir -p src/lib", "touch x", "uname -a", "env",
      "printenv", "date", "X=1", "cd src && ls", "sed 's/hello/world/' f", "sed -n '/error/p' f", "cat > src/a.ts <<'EOF'\nx\nEOF",
    ],
    nearMisses: [
      "sed -i s/a/b/ /etc/x", "find . -delete", "git push", "env FOO=1 bash x.sh", "git branch -D old", "awk '{system(\"id\")}'", "sort --compress-program=sh x", "ls --frobnicate",
      "xargs sort < list", "xargs env < list", "xargs xargs < list", "find $(cat o)", "git log $(cat o)", "uniq $(cat args)",
    ],
    match(cmd, eff) {
      return knownSafe(cmd, eff) ? { detail: text(cmd, eff) } : null;
    },
  },
  {
    id: "not-allowlisted",
    layer: 3,
    decision: "ask",
    title: "Anything else, including options a program's spec does not list (ask in balanced, refused in strict, runs in permissive)",
    reason: "Not a form the guard knows to be safe: {detail}.",
    hint: "A person approves it, or add an allow rule (e.g. `make:*`) for the session.",
    examples: ["sh -c 'ls'", "sort --compress-program=sh x", "sed '1e id' f", "git -c core.pager=id log", "ls --frobnicate", "xdg-open x"],
    nearMisses: ["ls", "npm test"],
    match(cmd, eff) {
      if (knownSafe(cmd, eff)) return null;
      const why = notKnownSafe(eff);
      return { detail: `\`${text(cmd, eff)}\`` + (why ? ` (${why})` : "") };
    },
  },
];
