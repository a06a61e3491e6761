// A program the guard knows nothing about may run its arguments as a command: `screen -dm rm -rf /`,
// `systemd-run rm -rf /`, `faketime now rm -rf /`, `firejail rm -rf /`, `gdb -ex 'shell rm -rf /'`. No
// list of wrappers is ever complete, so for such a program the guard judges, as commands of their own, the
// part of its arguments that starts with a program it knows (`rm -rf /`), and each argument that is
// itself a command line. Layers 1 and 2 then refuse what is dangerous in them under every preset; for a
// harmless inner command nothing changes (the unknown program asks under balanced anyway).

import { programName } from "./argv.ts";
import { isInterpreter, SHELLS } from "./interpreters.ts";
import { WRAPPERS, type Effective } from "./wrappers.ts";
import type { Word } from "./facts.ts";
import { specFor } from "./options/index.ts";

/** Programs whose arguments are data to them (names, files, script names, messages), never a command line to run. */
const DATA_ARGUMENTS = new Set([
  "git", "npm", "pnpm", "yarn", "make", "gmake", "cargo", "go", "pip", "pip3", "man", "whatis", "apropos", "info", "help", "whereis",
  "alias", "unalias", "trap", "complete", "compgen", "bind", "mapfile", "readarray", "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz",
  "cp", "mv", "ln", "install", "rm", "rmdir", "unlink", "shred", "touch", "mkdir", "chmod", "chown", "chgrp", "truncate", "dd", "kill", "pkill",
  "killall", "pgrep", "curl", "wget", "rsync", "scp", "sftp",
  // Commands that run on another machine or in a container: not judged as if they ran here.
  "ssh", "docker", "podman", "nerdctl", "kubectl", "lxc",
]);

/** Programs the guard has rules for: an argument that names one starts a command line. */
const KNOWN_PROGRAM = /^(?:rm|rmdir|unlink|shred|dd|mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|blkdiscard|nvme|cryptsetup|mdadm|badblocks|[sg]?fdisk|cfdisk|sfdisk|parted|sgdisk|hdparm|chmod|chown|chgrp|kill|pkill|killall5?|shutdown|reboot|halt|poweroff|init|telinit|systemctl|loginctl|iptables\S*|ip6tables\S*|nft|ufw|sudo|su|doas|pkexec|curl|wget|cp|mv|ln|install|truncate|tee|touch|mkdir|tar|unzip|sed|find|git|xargs|eval|source|\.)$/;

function knows(name: string | null): boolean {
  return name !== null && (KNOWN_PROGRAM.test(name) || SHELLS.has(name) || isInterpreter(name) || WRAPPERS.has(name));
}

function literal(value: string): Word {
  return { raw: value, value, dynamic: false, glob: /[*?[]/.test(value) };
}

/**
 * The commands an unknown program's arguments may run: the arguments from the first one that names a
 * program the guard knows (`screen -dm rm -rf /`), and, inside any argument that is a line of text, the
 * words from such a name to the next separator (`gdb -ex 'shell rm -rf /'`, `vim -c '!rm -rf /'`,
 * `emacs --eval '(shell-command "rm -rf /")'`). Words, not parsed shell: a message that does not parse
 * refuses nothing. Empty for programs the guard knows.
 */
const NO_COMMANDS: Word[][] = [];

export function argumentCommands(eff: Effective, stdin?: string): Word[][] {
  const n = eff.name;
  if (n === null || (eff.argv.length < 2 && stdin === undefined) || specFor(n)) return NO_COMMANDS;
  // `npm exec -- CMD`, `pnpm exec CMD`, `yarn dlx CMD`: a package manager running a command.
  if ((n === "npm" || n === "pnpm" || n === "yarn") && eff.argv.length > 2) {
    const args = eff.argv.slice(1);
    const sub = args.findIndex((w) => !w.value.startsWith("-"));
    if (sub >= 0 && /^(?:exec|x|dlx)$/.test(args[sub]!.value)) {
      const rest = args.slice(sub + 1);
      const from = rest.findIndex((w) => w.value === "--" || !w.value.startsWith("-"));
      const argv = from < 0 ? [] : rest.slice(rest[from]!.value === "--" ? from + 1 : from);
      return argv.length ? [argv] : NO_COMMANDS;
    }
  }
  // (A wrapper is here only when the guard could not peel it: `tmux bind x run '…'`, `sudo -l`.)
  if (n === null || (eff.argv.length < 2 && stdin === undefined) || specFor(n) || DATA_ARGUMENTS.has(n) || SHELLS.has(n) || isInterpreter(n)) return NO_COMMANDS;
  // Text fed to it from a heredoc or herestring may be its commands too (`ed -s f <<< '!rm -rf /'`).
  const args = stdin === undefined ? eff.argv.slice(1) : [...eff.argv.slice(1), literal(stdin)];
  const out: Word[][] = [];
  const start = args.findIndex((w) => knows(programName(w)));
  if (start >= 0) out.push(args.slice(start));
  for (const [i, w] of args.entries()) {
    if (i === start || w.dynamic || !/\s/.test(w.value.trim())) continue;
    for (const segment of w.value.split(/[;&|()"'`\n{}]+/)) {
      // `!rm`, `:!rm`, `+!rm` (vim, less): a shell escape before the name.
      const words = segment.trim().split(/\s+/).map((t) => t.replace(/^[+:!]+/, "")).filter((t) => t !== "");
      const at = words.findIndex((t) => knows(programName(literal(t))));
      if (at >= 0) out.push(words.slice(at).map(literal));
    }
  }
  return out;
}
