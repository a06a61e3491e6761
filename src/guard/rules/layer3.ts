// Layer 3 (seeds 002 and 004): what runs unasked. Known-safe commands run; deletions and network asks
// (balanced) or are refused (strict); the rest asks (balanced), is refused (strict) or runs (permissive).
// Writes inside the workspace are fine here: layer 2 has already refused the ones outside it.

import type { Command } from "../facts.ts";
import { FETCHERS, parseArgs, programSource, type Effective } from "../commands.ts";
import type { RuleRow } from "./row.ts";

/** Read-only tools and harmless builtins: run with any arguments (their writes, if any, are layer 2's). */
const READ_ONLY = new Set([
  "cat", "ls", "grep", "egrep", "fgrep", "wc", "head", "tail", "sort", "uniq", "diff", "cmp", "comm", "cut", "tr", "jq", "stat",
  "file", "du", "basename", "dirname", "realpath", "readlink", "echo", "printf", "pwd", "which", "true", "false", "test", "[",
  "nl", "tac", "rev", "paste", "column", "fold", "expand", "unexpand", "od", "hexdump", "strings", "md5sum", "sha1sum",
  "sha256sum", "sha512sum", "cksum", "seq", "sleep", "expr", "type", "whereis", "base64",
  // system information
  "uname", "whoami", "id", "df", "free", "uptime", "ps", "groups", "nproc", "arch", "tty", "locale", "hostname",
  // builtins that only touch the shell itself
  "cd", "export", "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "read", "shift", "wait", "jobs",
  "return", "history", "clear", ":", "set", "shopt", "hash", "help", "exit", "let",
  // writes that layer 2 has already confined to the workspace
  "mkdir", "touch", "tee",
]);

const RG_UNSAFE = /^--(?:pre|hostname-bin|search-zip)|^-[a-zA-Z]*z/;
const FIND_UNSAFE = /^-(?:exec|execdir|ok|okdir|delete|fls|fprint|fprint0|fprintf)$/;
const GIT_READ = new Set(["status", "diff", "log", "show", "branch", "ls-files", "rev-parse", "blame", "describe", "shortlog", "show-ref"]);
const GIT_UNSAFE = /^(?:-c|--config-env|--output|--ext-diff|--textconv|--exec|--exec-path|-o)(?:=|$)|^-c./;

function sedSafe(eff: Effective): boolean {
  const p = parseArgs(eff.argv.slice(1), "efl", ["expression", "file", "line-length"]);
  if (p.flags.has("i") || p.flags.has("in-place") || p.values.has("f") || p.values.has("file")) return false;
  const scripts = p.values.has("e") || p.values.has("expression") ? eff.argv.filter((_, i) => /^-e$|^--expression/.test(eff.argv[i - 1]?.value ?? "")) : p.operands.slice(0, 1);
  // GNU sed's `e` runs a command and `w`/`W` write files: only plain scripts are known safe.
  return scripts.every((w) => !w.dynamic && !/(?:^|[;\n{}]|\/[gIiMmpe0-9]*)\s*[ewW](?:\s|$)|\/[gIiMmp0-9]*[ew]/.test(w.value));
}

function awkSafe(eff: Effective): boolean {
  const p = parseArgs(eff.argv.slice(1), "fvF", ["file", "assign", "field-separator"]);
  if (p.values.has("f") || p.values.has("file")) return false;
  const program = p.operands[0];
  return !!program && !program.dynamic && !/\bsystem\s*\(|\bgetline\b|\b(?:print|printf)\b[^;}\n]*?(?:>|\|)|\|\s*&/.test(program.value);
}

function gitSafe(eff: Effective): boolean {
  const args = eff.argv.slice(1);
  let i = 0;
  while (i < args.length && args[i]!.value.startsWith("-")) {
    const v = args[i]!.value;
    if (GIT_UNSAFE.test(v)) return false;
    i += v === "-C" || v === "--git-dir" || v === "--work-tree" ? 2 : 1;
  }
  const sub = args[i]?.value;
  if (!sub || !GIT_READ.has(sub)) return false;
  const rest = args.slice(i + 1);
  if (rest.some((w) => GIT_UNSAFE.test(w.value))) return false;
  if (sub === "branch") {
    // Listing only: creating, renaming or deleting a branch is not read-only.
    const p = parseArgs(rest, "", ["format", "sort", "contains", "merged", "no-merged", "points-at"]);
    if (["d", "D", "m", "M", "c", "C", "delete", "move", "copy", "set-upstream-to", "u", "unset-upstream", "edit-description", "f", "force"].some((f) => p.flags.has(f))) return false;
    if (p.operands.length && !p.flags.has("list") && !p.flags.has("l")) return false;
  }
  return true;
}

const PKG_SAFE: Record<string, Set<string>> = {
  npm: new Set(["test", "t", "tst", "run", "run-script", "start", "ci", "install", "i", "add", "ls", "list", "outdated", "--version", "-v", "version"]),
  pnpm: new Set(["test", "t", "run", "start", "install", "i", "add", "ls", "list", "outdated", "--version", "-v"]),
  yarn: new Set(["test", "run", "start", "install", "add", "list", "outdated", "--version", "-v"]),
};

function packageSafe(eff: Effective): boolean {
  const safe = PKG_SAFE[eff.name ?? ""];
  if (!safe) return false;
  const args = eff.argv.slice(1);
  if (args.some((w) => /^(?:-g|--global|--location=global|--prefix)/.test(w.value) || w.dynamic)) return false;
  if (eff.name === "yarn" && args.length === 0) return true; // bare `yarn` installs
  const sub = args.find((w) => !w.value.startsWith("-") || w.value === "--version" || w.value === "-v")?.value;
  return sub !== undefined && safe.has(sub);
}

/** Why a command is known safe, or null. */
export function knownSafe(cmd: Command, eff: Effective): string | null {
  if (cmd.argv.length === 0) return "an assignment or redirect";
  const n = eff.name;
  if (n === null) return null;
  const args = eff.argv.slice(1);
  if (n === "[[") return "a test";
  if (READ_ONLY.has(n)) return "a read-only or shell-local command";
  if (n === "env" || n === "printenv") return args.length === 0 ? "system information" : null;
  if (n === "date") return args.some((w) => /^-s|^--set/.test(w.value)) ? null : "a read-only command";
  if (n === "find") return args.some((w) => FIND_UNSAFE.test(w.value)) ? null : "find without -exec/-delete";
  if (n === "rg") return args.some((w) => RG_UNSAFE.test(w.value)) ? null : "a read-only search";
  if (n === "tree") return args.some((w) => w.value === "-o") ? null : "a read-only command";
  if (n === "xxd") return parseArgs(args, "cglos").operands.length > 1 ? null : "a read-only command";
  if (n === "sed") return sedSafe(eff) ? "sed without -i" : null;
  if (n === "awk" || n === "gawk" || n === "mawk") return awkSafe(eff) ? "awk without system() or output redirection" : null;
  if (n === "command") return args[0]?.value === "-v" || args[0]?.value === "-V" ? "a lookup" : null;
  if (n === "git") return gitSafe(eff) ? "read-only git" : null;
  if (n === "node" || n === "nodejs" || /^python(?:3(?:\.\d+)?)?$/.test(n)) {
    if (args.length === 1 && /^(?:--version|-v|-V)$/.test(args[0]!.value)) return "a version check";
    return programSource(eff) === "file" && !args[0]?.value.startsWith("-") && !args[0]?.dynamic ? "a project script" : null;
  }
  if (n in PKG_SAFE) return packageSafe(eff) ? "a project command" : null;
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
  const sub = eff.argv.slice(1).find((w) => !w.value.startsWith("-"))?.value;
  if (n === "git") return sub !== undefined && ["clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"].includes(sub) && !(sub === "remote" && eff.argv.length <= 3);
  if (/^pip[0-9.]*$/.test(n) || n === "uv") return sub === "install" || sub === "download";
  if (n === "npm" || n === "pnpm" || n === "yarn") return sub !== undefined && ["publish", "login", "adduser", "dlx", "exec", "x"].includes(sub);
  return false;
}

export const LAYER3: RuleRow[] = [
  {
    id: "strict-rm-flags",
    layer: 3,
    decision: "deny",
    policy: "strict",
    title: "rm -r / -f / --force / -i (strict only)",
    reason: "`rm {detail}` is refused under the strict policy.",
    hint: "Delete single files without -r, -f or -i, or ask a person to change the policy.",
    examples: ["rm -rf ./build", "rm -f x", "rm --force x", "rm -i x", "rm -r dir"],
    nearMisses: ["rm x", "ls -rf"],
    match(_cmd, eff, env) {
      if (env.policy !== "strict" || eff.name !== "rm") return null;
      const p = parseArgs(eff.argv.slice(1));
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
    examples: ["curl https://example.com", "wget https://x/y.tgz", "git push origin main", "git clone https://x/y", "ssh host", "pip install requests", "npx create-vite"],
    nearMisses: ["npm install lodash", "git log", "git remote -v", "echo curl"],
    match(_cmd, eff) {
      return network(eff) ? { detail: eff.name! } : null;
    },
  },
  {
    id: "allowlist",
    layer: 3,
    decision: "allow",
    title: "Known safe: read-only tools, project commands, read-only git",
    reason: "`{detail}`: known safe.",
    hint: "",
    examples: [
      "ls -la", "cat README.md | grep -n TODO", "npm test 2>&1", "npm test > /tmp/log 2>&1", "git status && git diff | head -50",
      "grep -rn 'a # b' src", "find . -name '*.ts' | wc -l", "node /tmp/run.js", "python3 /tmp/run.py", "npm run build",
      "npm ci", "npm install lodash", "pnpm add zod", "yarn test", "git log --oneline -5", "sed -n 1,10p x", "awk '{print $1}' x",
      "echo '{\"a\":1}' | jq .a", "mkdir -p src/lib", "touch x", "uname -a", "env", "printenv", "date", "X=1", "cd src && ls",
    ],
    nearMisses: ["sed -i s/a/b/ x", "find . -delete", "git push", "node -e 'x'", "env FOO=1 bash x.sh", "git branch -D old", "awk '{system(\"id\")}'", "npm install -g x"],
    match(cmd, eff) {
      const why = knownSafe(cmd, eff);
      return why ? { detail: eff.argv.map((w) => w.raw).join(" ") || cmd.text } : null;
    },
  },
  {
    id: "not-allowlisted",
    layer: 3,
    decision: "ask",
    title: "Anything else (ask in balanced, refused in strict, runs in permissive)",
    reason: "`{detail}` is not on the list of known safe commands.",
    hint: "A person approves it, or add an allow rule (e.g. `make:*`) for the session.",
    examples: ["make build", "python3 -m pytest", "bash build.sh", "node -e 'console.log(1)'", "sed -i s/a/b/ x"],
    nearMisses: ["ls", "npm test"],
    match(cmd, eff) {
      return knownSafe(cmd, eff) ? null : { detail: eff.argv.map((w) => w.raw).join(" ") || cmd.text };
    },
  },
];
