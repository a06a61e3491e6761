// Layer 2: the agent writes only in its workspace and /tmp. Every write target is resolved
// against the working directory, `..` and `~` first, so that `cd .. && rm x` and `../../etc` are seen
// for what they are.

import { DYN, type Command, type Script, type Word } from "../facts.ts";
import { XARGS_INPUT } from "../options/index.ts";
import { numberExpansions } from "../options/getopt.ts";
import { parseArgs, programName } from "../argv.ts";
import { isInside, resolvePath } from "../paths.ts";
import { redirectWrites, resolveWord, writable, type RuleEnv, type RuleRow } from "./row.ts";
import { foundInside, fromInput, strictReads, substitutedFind } from "./strict-reads.ts";

/**
 * No expansion in `w` as written may hold a `/`: it has none, or only numbers (`$$`, `$?`, `$((…))`). A part the
 * guard cannot see in such a word is a number, or a name find or xargs puts there (`{}`), whose writes layer 3 asks
 * about.
 */
function hidesOnlyNumbers(w: Word): boolean {
  // A number is one folder's name at most: a `..` after it climbs back over it and out of the folder before it
  // (`/tmp/$$/../../etc/x`; `$!` is empty before a background job, so `/tmp/$!/../../etc/x` needs no mkdir).
  return numberExpansions(w.raw) !== null && !/(?:^|\/)\.\.(?:\/|$)/.test(w.value.slice(w.value.indexOf(DYN)));
}

function writes(cmd: Command, env: RuleEnv): readonly Word[] {
  return env.writes(cmd);
}

interface Link {
  /** Where the link is, absolute. */
  at: string;
  /** Where it points, absolute (outside the workspace and /tmp). */
  to: string;
  /** The command that made it. */
  id: number;
  raw: string;
}

/**
 * Links a command makes, as [link path as written, target]: `ln -s T L`, `ln T L` (a hard link: writing L
 * writes T), `ln -st DIR T`, `cp -s T L` and `cp -l T L` (with -r, a tree of links under L).
 */
function linksMade(eff: { name: string | null; argv: readonly Word[] }): Array<{ link: string; target: Word; symbolic: boolean }> {
  if (eff.name === "ln") {
    const p = parseArgs(eff.argv.slice(1), "tS", ["target-directory", "suffix"]);
    const symbolic = p.flags.has("s") || p.flags.has("symbolic");
    const dir = p.values.get("t") ?? p.values.get("target-directory");
    const targets = dir || p.operands.length < 2 ? p.operands : p.operands.slice(0, -1);
    return targets.map((target) => {
      const base = target.value.replace(/\/+$/, "").split("/").pop() || target.value;
      const link = dir ? `${dir.value}/${base}` : p.operands.length >= 2 ? p.operands[p.operands.length - 1]!.value : base;
      return { link, target, symbolic };
    });
  }
  if (eff.name === "cp") {
    const p = parseArgs(eff.argv.slice(1), "tSmogZ", ["target-directory", "suffix", "mode", "owner", "group", "context"]);
    if (!p.flags.has("s") && !p.flags.has("symbolic-link") && !p.flags.has("l") && !p.flags.has("link")) return [];
    const dir = p.values.get("t") ?? p.values.get("target-directory");
    const dest = dir ?? p.operands[p.operands.length - 1];
    const sources = dir ? p.operands : p.operands.slice(0, -1);
    if (!dest) return [];
    // The destination may be a directory that exists: then each link is DEST/NAME. Both are links.
    return sources.flatMap((target) => {
      const base = target.value.replace(/\/+$/, "").split("/").pop() || target.value;
      return [{ link: dest.value, target, symbolic: false }, { link: `${dest.value}/${base}`, target, symbolic: false }];
    });
  }
  return [];
}

// Links a script makes that point outside the workspace, once per script.
function outsideLinks(env: RuleEnv): Link[] {
  const known = env.once.outsideLinks as Link[] | undefined;
  if (known) return known;
  const links: Link[] = [];
  for (const c of env.script.commands) {
    const first = programName(c.argv[0]);
    if (first !== "ln" && first !== "cp" && c.effective?.wrappers.length === 0) continue;
    if (c.cwd === null) continue;
    for (const { link, target, symbolic } of linksMade(env.effective(c))) {
      if (target.dynamic || link.includes("\u0000")) continue;
      const at = resolvePath(link, c.cwd);
      // A relative symlink target is read from the link's own directory (a hard link's, or cp's, from where it runs).
      const to = at === null ? null : resolvePath(target.value, symbolic ? at.slice(0, at.lastIndexOf("/")) || "/" : c.cwd);
      if (at !== null && to !== null && !writable(to, env)) links.push({ at, to, id: c.id, raw: link });
    }
  }
  env.once.outsideLinks = links;
  return links;
}

/**
 * Where `value` really leads from `cwd` when the links made earlier in the script are followed, part by
 * part, as the kernel does: `l/../x` with l → /etc/ssl is /etc/x, not ./x. `last`: follow a link that is the
 * final part (a write through it), or not (`rm l` removes the link itself). null when it passes no link.
 */
function physical(value: string, cwd: string, links: readonly Link[], last: boolean): { path: string; link: Link } | null {
  const parts = (value.startsWith("/") ? value : `${cwd}/${value}`).split("/");
  let path = "/";
  let via: Link | null = null;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "" || part === ".") continue;
    path = part === ".." ? path.slice(0, Math.max(1, path.lastIndexOf("/"))) : path === "/" ? `/${part}` : `${path}/${part}`;
    const final = parts.slice(i + 1).every((p) => p === "" || p === ".");
    if (final && !last) break;
    const link = links.find((l) => l.at === path);
    if (link && part !== "..") {
      path = link.to;
      via = link;
    }
  }
  return via ? { path, link: via } : null;
}

export const LAYER2: RuleRow[] = [
  {
    id: "write-through-symlink",
    layer: 2,
    decision: "deny",
    title: "Writes through a link (symbolic or hard) that leads outside the workspace",
    reason: "Writes to {detail}, outside the workspace and /tmp.",
    hint: "Write inside the workspace (or /tmp for scratch files), not through a link to somewhere else.",
    examples: [
      "ln -s /etc x; echo hi > x/passwd", "ln -s / r && rm -rf r/", "ln -s /etc/passwd p && echo x >> p", "ln -sf /usr/bin b; cp evil b/ls",
      "ln -s / root; cd root && rm -rf *", "ln -s ../../etc up && touch up/x", "ln --symbolic /etc e; tee e/motd < m",
      "ln -s /etc/ssl l; touch l/../x", "ln /etc/passwd p; echo x >> p", "cp -s /etc/passwd p; echo x >> p", "cp -rs /etc d; echo x > d/passwd",
      "cp -l /etc/passwd p && sed -i s/a/b/ p", "cp --symbolic-link /etc/hosts h; tee h < x",
    ],
    nearMisses: ["ln -s /etc x; cat x/passwd", "ln -s ./src s; echo hi > s/x", "ln -s /etc x; rm x", "ln -s /tmp t; echo x > t/y", "echo x > x/passwd"],
    match(cmd, _eff, env) {
      const all = outsideLinks(env);
      if (!all.length || cmd.cwd === null) return null;
      const links = all.filter((l) => l.id < cmd.id);
      const deletes = env.files(cmd).deletes;
      for (const t of env.writes(cmd)) {
        if (t.dynamic) continue;
        // `rm x` removes the link itself; `rm -r x/` and `echo > x` go through it.
        const last = !(deletes && !/\/\.?$/.test(t.value));
        const p = physical(t.value, cmd.cwd, links, last);
        if (p && !writable(p.path, env)) return { detail: `${p.path} (through the link ${p.link.raw} → ${p.link.to})` };
      }
      return null;
    },
  },
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
      // long-option abbreviations, find's global options, git's work tree, globs before `..`, sudoedit
      "cp --target=/etc x", "sort --out=/etc/x y", "mv --target-dir=/usr/bin x", "tar -xf a.tar --dir=/etc", "find -L /etc -name x -delete", "find -P /usr -name '*.o' -delete",
      "git --work-tree=/ clean -fdx", "git -C / clean -fdx", "git -C /etc checkout .", "git --work-tree=/usr reset --hard", "git -C /tmp -C /etc clean -f",
      "rm -rf */../../etc", "rm -f src/*/../../../etc/passwd", "touch ./*/../../x", "sudoedit /etc/sudoers",
    ],
    nearMisses: [
      "echo x > out.txt", "echo x > /tmp/log", "ls > /dev/null 2>&1", "cp /etc/hosts ./hosts", "cd /tmp && rm x", "mkdir -p src/lib", "tee /tmp/x < y", "echo hi >&2", "echo x > /dev/stderr", "tar -xf a.tar",
      "git clean -fdx", "git -C src checkout .", "git -C /etc log", "rm -rf src/*/../build", "find -L . -name '*.o' -delete", "cp --target=./out x",
    ],
    match(cmd, eff, env) {
      for (const t of writes(cmd, env)) {
        const r = resolveWord(t, cmd.cwd);
        if (r.kind === "path") {
          if (!writable(r.path, env)) return { detail: r.path };
        } else if (r.prefix !== null && r.prefix !== "/" && !writable(r.prefix, env) && !isInside(env.workspace, r.prefix) && !isInside(env.scratch, r.prefix)) {
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
    examples: [
      'echo x > "$OUT"', "cp a $DEST", "touch $(date +%s).txt", "cd src && touch ./*/../../x", "echo x > /tmp/$NAME", 'echo x > ./"$f"',
      'tee src/"$(cat n)".ts < x', 'sed -i s/a/b/ "$PWD/$f"', "echo x > /tmp/$!/../../etc/x", "touch ./$$/../../x",
    ],
    nearMisses: ['echo x > "$HOME/out"', "echo x > /tmp/out.$$", 'echo "$X" > out', "echo x > /tmp/log.$?", "echo x > /tmp/$$/out"],
    match(cmd, eff, env) {
      for (const t of writes(cmd, env)) {
        const r = resolveWord(t, cmd.cwd);
        // A part the guard cannot see may hold `/` and `..` (`> ./"$f"` with f=../../x, or f=.git/config), so a
        // known writable folder before it proves nothing; only numbers (`/tmp/out.$$`) stay in that folder.
        if (r.kind === "unknown" && !(r.prefix !== null && r.prefix !== "/" && writable(r.prefix, env) && hidesOnlyNumbers(t))) return { detail: t.raw };
        // lands in the workspace as written, but a symlink among the glob's matches could put it anywhere
        if (r.kind === "path" && r.climbs === true && writable(r.path, env)) return { detail: t.raw };
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
      for (const { path } of strictReads(cmd, eff, env)) {
        if (path !== null && !isInside(path, env.workspace) && !isInside(path, "/tmp")) return { detail: path };
      }
      return null;
    },
  },
  {
    id: "read-unknown-path",
    layer: 2,
    decision: "ask",
    policy: "strict",
    title: "Reads a file the guard cannot resolve (strict only)",
    reason: "Reads {detail}, whose place the guard cannot know: under the strict policy a read must be provably inside the workspace or /tmp.",
    hint: "Under the strict policy name the file literally (`cat src/a.txt`), or ask a person to allow this one.",
    examples: [
      'cat "$F"', "cat $(cat list)", "cat ~root/.bashrc", "cat ~-/x", "cat src/$X", 'cat ./"$F"', "cat /tmp/$X", 'cat < "$F"', 'grep -f "$P" x',
      "xargs cat < list", "cat list | xargs head", "find . | sed s,^,/etc, | xargs cat", "find . -printf '/etc/passwd\\n' | xargs cat",
      "wc --files0-from=list", "sort --files0-from=list", "du --files0-from=list", "find . -files0-from list",
      "git config -f cfg --includes -l", "for f in *.py; do wc -l \"$f\"; done", "tar -tf x.tar -T list", "find -D tree . 2>/dev/stdout | xargs cat",
      "find . |& xargs cat",
    ],
    nearMisses: [
      "cat README.md", "cat -- *.txt", 'cat "$HOME/x"', "cat ~/x", "diff <(sort a) <(sort b)", "find . -name '*.c' | xargs wc -l",
      "find src -type f -print0 | xargs -0 grep -n x", "find . -name '*.c' | xargs -I{} head -n 3 {}", "tar -tf x.tar --verbatim-files-from -T list", "git config -f cfg -l", "ps -p $$",
      "git ls-files | xargs wc -l", "cat $(find . -name '*.md')", "find . -name '*.ts' | grep -v test | sort | xargs wc -l",
    ],
    match(cmd, eff, env) {
      if (env.policy !== "strict") return null;
      for (const { word, path } of strictReads(cmd, eff, env)) {
        if (path !== null || substitutedFind(word, cmd, env)) continue;
        if (word === XARGS_INPUT || fromInput(word, eff)) {
          if (!foundInside(cmd, env)) return { detail: "the file names it is given on its input" };
        } else if (word.several) return { detail: word.raw };
        else return { detail: `\`${word.raw}\` (computed)` };
      }
      return null;
    },
  },
];
