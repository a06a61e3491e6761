// Layer 2 (seed 002): the agent writes only in its workspace and /tmp. Every write target is resolved
// against the working directory, `..` and `~` first, so that `cd .. && rm x` and `../../etc` are seen
// for what they are.

import type { Command, Word } from "../facts.ts";
import { parseArgs } from "../commands.ts";
import { isInside } from "../paths.ts";
import { redirectReads, redirectWrites, resolveWord, writable, type RuleEnv, type RuleRow } from "./row.ts";

const READABLE_DEVICES = /^\/dev\/(?:null|zero|stdin|tty|random|urandom|fd\/\d+)$|^\/proc\/self\//;

function writes(cmd: Command, env: RuleEnv): readonly Word[] {
  return env.writes(cmd);
}

export const LAYER2: RuleRow[] = [
  {
    id: "write-outside-workspace",
    layer: 2,
    decision: "deny",
    title: "Writes outside the workspace and /tmp",
    reason: "Writes to {detail}, outside the workspace and /tmp.",
    hint: "Write inside the workspace (or /tmp for scratch files).",
    examples: [
      "echo x > /etc/hosts", "cp a /usr/local/bin/", "mv /etc/passwd ./p", "rm -rf /usr/lib", "touch ~/../x", "cd .. && rm -rf project2",
      "tee /etc/motd < x", "sed -i s/a/b/ /etc/hosts", "ln -s x /usr/bin/y", "mkdir /opt/app", "tar -xf a.tar -C /", "dd if=x of=/boot/x",
      "echo x >> ../../etc/profile", "chmod 600 /etc/shadow", "truncate -s 0 /var/log/syslog", "install x /usr/bin/x", "curl -o /etc/x https://x",
      "cat x &> /var/x", "sort -o /etc/x y",
    ],
    nearMisses: ["echo x > out.txt", "echo x > /tmp/log", "ls > /dev/null 2>&1", "cp /etc/hosts ./hosts", "cd /tmp && rm x", "mkdir -p src/lib", "tee /tmp/x < y", "echo hi >&2", "echo x > /dev/stderr", "tar -xf a.tar"],
    match(cmd, eff, env) {
      for (const t of writes(cmd, env)) {
        const r = resolveWord(t, cmd.cwd);
        if (r.kind === "path") {
          if (!writable(r.path, env)) return { detail: r.path };
        } else if (r.prefix !== null && r.prefix !== "/" && !writable(r.prefix, env) && !isInside(env.workspace, r.prefix) && !isInside("/tmp", r.prefix)) {
          return { detail: `${r.prefix}/…` };
        }
      }
      return null;
    },
  },
  {
    id: "unknown-write-target",
    layer: 2,
    decision: "ask",
    title: "Writes to a path the guard cannot resolve",
    reason: "Writes to `{detail}`, whose place depends on a variable or substitution the guard cannot know.",
    hint: "Write to a literal path inside the workspace or /tmp.",
    examples: ['echo x > "$OUT"', "cp a $DEST", "touch $(date +%s).txt"],
    nearMisses: ['echo x > "$HOME/out"', "echo x > /tmp/$NAME", 'echo "$X" > out'],
    match(cmd, eff, env) {
      for (const t of writes(cmd, env)) {
        const r = resolveWord(t, cmd.cwd);
        if (r.kind === "unknown" && !(r.prefix !== null && r.prefix !== "/" && writable(r.prefix, env))) return { detail: t.raw };
      }
      return null;
    },
  },
  {
    id: "cd-outside-workspace",
    layer: 2,
    decision: "ask",
    title: "cd out of the workspace",
    reason: "Changes directory to {detail}, outside the workspace.",
    hint: "Stay in the workspace; read files elsewhere by their absolute path.",
    examples: ["cd /etc", "cd ..", "cd ~/../..", "pushd /usr"],
    nearMisses: ["cd src", "cd /tmp", "cd", "cd /home/project/app"],
    match(cmd, eff, env) {
      if (eff.name !== "cd" && eff.name !== "pushd") return null;
      const target = parseArgs(eff.argv.slice(1)).operands[0];
      if (!target) return null;
      const r = resolveWord(target, cmd.cwd);
      if (r.kind === "path" && !writable(r.path, env)) return { detail: r.path };
      if (r.kind === "unknown" && target.value !== "-") return { detail: `\`${target.raw}\` (computed)` };
      return null;
    },
  },
  {
    id: "read-outside-workspace",
    layer: 2,
    decision: "ask",
    policy: "strict",
    title: "Reads outside the workspace (strict only)",
    reason: "Reads {detail}, outside the workspace and /tmp.",
    hint: "Under the strict policy reads stay in the workspace; ask a person to allow this one.",
    examples: ["cat /etc/passwd", "grep root /etc/group", "head -n 3 < /etc/hosts", "ls /usr/bin"],
    nearMisses: ["cat README.md", "grep -r x src", "cat /tmp/log", "ls"],
    match(cmd, eff, env) {
      if (env.policy !== "strict") return null;
      for (const t of [...redirectReads(cmd), ...env.files(cmd).reads]) {
        const r = resolveWord(t, cmd.cwd);
        const path = r.kind === "path" ? r.path : r.prefix;
        if (path === null || READABLE_DEVICES.test(path)) continue;
        if (!isInside(path, env.workspace) && !isInside(path, "/tmp")) return { detail: path };
      }
      return null;
    },
  },
];
