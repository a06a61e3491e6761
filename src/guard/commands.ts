// Knowledge about programs: how wrappers hand on a command, which programs run code or fetch from the
// network, and which operands a program writes, reads or deletes. Pure functions over facts.

import type { Embedded } from "./embedded.ts";
import { DYN, type Word } from "./facts.ts";
import { judgeEffective, type Judged } from "./options/index.ts";
import { resolvePath } from "./paths.ts";
import { wrapperEffects } from "./wrapper-effects.ts";
import { LONG_OPTIONS, spellOut } from "./rules/abbrev.ts";

/** A word built by the guard itself (for `{}` of find -exec, or a static string). */
export function literalWord(value: string): Word {
  return { raw: value, value, dynamic: value.includes(DYN), glob: false };
}

/** A glob in the last part of a program name (`r[m]`, `/bin/r?`): bash expands it, so the name is unknown. */
const GLOB_NAME = /[*?]|\[[^\]]*\]/;

/**
 * `\rm`, `"rm"`, `/bin/rm` and `/usr/bin/rm` are all `rm`; null when the name is computed: a variable or
 * substitution, a glob bash expands (`r[m]`, `/bin/r?`), or an expansion that word splitting cuts up.
 */
export function programName(word: Word | undefined): string | null {
  if (!word || word.dynamic) return null;
  const v = word.value;
  const slash = v.lastIndexOf("/");
  const name = slash >= 0 && slash < v.length - 1 ? v.slice(slash + 1) : v;
  if (word.glob && GLOB_NAME.test(name)) return null;
  // `X="rm -rf"; $X /`: an unquoted expansion with blanks in it is split into several words.
  if (word.raw.includes("$") && /[ \t\n]/.test(v) && !/^(["']).*\1$/s.test(word.raw)) return null;
  return name;
}

export interface ParsedArgs {
  /** Short flags one letter each (`-rf` → r, f) and long flags without `--` and value (`--force`). */
  flags: Set<string>;
  /** Values of options that take one, by option (`-n` → "5", `--output` → "x"). Last one wins. */
  values: Map<string, Word>;
  operands: Word[];
}

/**
 * GNU-style option parsing. `shortWithArg` lists short letters that take a value (`"nt"`), `longWithArg`
 * long names that do. Stops at `--`, and at the first operand when `stopAtOperand` (wrappers).
 */
export function parseArgs(
  args: readonly Word[],
  shortWithArg = "",
  longWithArg: readonly string[] = [],
  stopAtOperand = false,
): ParsedArgs & { rest: Word[] } {
  const flags = new Set<string>();
  const values = new Map<string, Word>();
  const operands: Word[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      i++;
      break;
    }
    if (v.startsWith("--") && v.length > 2) {
      const eq = v.indexOf("=");
      const name = canonicalLong(eq > 0 ? v.slice(2, eq) : v.slice(2), longWithArg);
      flags.add(name);
      if (eq > 0) values.set(name, { ...w, value: v.slice(eq + 1), raw: w.raw });
      else if (longWithArg.includes(name) && i + 1 < args.length) values.set(name, args[++i]!);
      continue;
    }
    if (v.startsWith("-") && v.length > 1 && !w.dynamic) {
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        flags.add(c);
        if (shortWithArg.includes(c)) {
          const attached = v.slice(j + 1);
          if (attached) values.set(c, { ...w, value: attached });
          else if (i + 1 < args.length) values.set(c, args[++i]!);
          break;
        }
      }
      continue;
    }
    if (stopAtOperand) break;
    operands.push(w);
  }
  const rest = args.slice(i);
  if (!stopAtOperand) operands.push(...rest);
  return { flags, values, operands, rest: stopAtOperand ? rest : [] };
}

/** getopt_long takes a unique prefix: `--target=/etc` is `--target-directory=/etc`. */
function canonicalLong(name: string, known: readonly string[]): string {
  if (known.length === 0 || known.includes(name)) return name;
  let found: string | null = null;
  for (const k of known) {
    if (!k.startsWith(name)) continue;
    if (found !== null) return name;
    found = k;
  }
  return found ?? name;
}

export interface Effective {
  /** Program and arguments once wrappers are peeled off. */
  argv: Word[];
  /** null when the program name is computed ($CMD, $(…)). */
  name: string | null;
  /** Wrappers peeled off, outermost first: ["sudo", "env"]. */
  wrappers: string[];
  /** Arguments also come from stdin (xargs): operands are not all known. */
  stdinArgs: boolean;
  /** xargs -I R / -i / --replace: R in any argument is replaced by each input line. */
  replace?: string;
  /** Files the wrappers themselves write (`time -o F`, `strace -o F`, `flock F`, `script F`) and read (`xargs -a F`). */
  wrapperWrites?: Word[];
  wrapperReads?: Word[];
  /** The directory a wrapper runs the command in (`env -C DIR`): the command's own relative files are there. */
  chdir?: Word;
  /** Command lines a wrapper runs itself (`strace -o '|CMD'`). */
  wrapperCode?: Word[];
  /** Why it runs what it reads on stdin as code (input-code.ts), once worked out. */
  runsInput?: string | null;
  /** Its arguments judged by the program's option spec row (null: no row), once worked out. */
  judged?: Judged | null;
  /** Command strings found in its arguments (embedded.ts), once worked out. */
  embedded?: Embedded[];
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function dropAssignments(words: Word[]): Word[] {
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++;
  return words.slice(i);
}

/** Words joined by spaces into one, as watch, parallel, sg and tmux hand them to `sh -c`. */
export function joinWords(words: readonly Word[]): Word {
  const value = words.map((w) => w.value).join(" ");
  return { raw: words.map((w) => w.raw).join(" "), value, dynamic: value.includes(DYN), glob: false };
}

/** `sh -c CODE`: how the guard sees a wrapper that hands its command to a shell as one string. */
function viaShell(code: Word): Word[] {
  return [literalWord("sh"), literalWord("-c"), code];
}

/** A wrapper that runs a string through a shell when given one word, or joins its words (watch, parallel). */
function shellOrArgv(rest: Word[]): Word[] {
  return rest.length === 1 ? viaShell(rest[0]!) : rest.length ? viaShell(joinWords(rest)) : [];
}

/** `su -c CMD`, `runuser -c CMD`, `sg GROUP -c CMD`: the value of -c / --command (attached or not). */
function commandOption(args: readonly Word[]): Word | null {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") return null;
    if (v === "-c" || v === "--command" || v === "--session-command") return args[i + 1] ?? null;
    if (/^--(?:command|session-command)=/.test(v)) return { ...args[i]!, value: v.slice(v.indexOf("=") + 1) };
    if (/^-[a-zA-Z]*c./.test(v) && !v.startsWith("--")) return { ...args[i]!, value: v.slice(v.indexOf("c") + 1) };
    if (/^-[a-zA-Z]*c$/.test(v)) return args[i + 1] ?? null;
  }
  return null;
}

const TMUX_SHELL_COMMANDS = new Set(["new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run", "pipe-pane", "pipep", "display-popup", "popup"]);
const TMUX_KEYS = /^(?:Enter|C-m|C-j|KPEnter|Space|Tab|BSpace|Escape|C-[a-z])$/;

/** What tmux runs: the shell command of new-session & co., or the keys send-keys types (Enter ends a line). */
function tmuxCommand(args: readonly Word[]): Word[] | null {
  const top = parseArgs(args, "LSfcT", [], true);
  const sub = top.rest[0]?.value;
  if (sub === undefined) return null;
  if (sub === "if-shell" || sub === "if") {
    // `if-shell SHELL-COMMAND TMUX-COMMAND [TMUX-COMMAND]`: the first runs in a shell, the others are tmux's
    // own commands, which may hand a shell command on in turn (`run "…"`): the code of each `sh -c CODE`.
    const p = parseArgs(top.rest.slice(1), "t", [], true);
    const [shell, ...tmux] = p.rest;
    if (!shell) return null;
    const codes = tmux.flatMap((w) => {
      const c = tmuxCommand(tmuxWords(w));
      return c ? [c[c.length - 1]!] : [];
    });
    return viaShell(joinWords([shell, ...codes].flatMap((c, i) => (i === 0 ? [c] : [literalWord(";"), c]))));
  }
  if (TMUX_SHELL_COMMANDS.has(sub)) {
    const p = parseArgs(top.rest.slice(1), "cefFnstxyl", [], true);
    return p.rest.length ? shellOrArgv(p.rest) : null;
  }
  if (sub === "send-keys" || sub === "send") {
    const p = parseArgs(top.rest.slice(1), "tNc", [], true);
    const keys = p.rest.filter((w) => !TMUX_KEYS.test(w.value));
    return keys.length ? viaShell(joinWords(keys)) : null;
  }
  return null;
}

/** A tmux command given as one string (`run "rm x"`), split into words as tmux splits it (quotes removed). */
function tmuxWords(w: Word): Word[] {
  const out: Word[] = [];
  for (const m of w.value.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    const value = m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!);
    out.push({ raw: value, value, dynamic: w.dynamic, glob: false });
  }
  return out;
}

/** `parallel CMD ::: a b`: each input is put in place of `{}` (or appended), and the line runs in a shell. */
function parallelCommand(args: readonly Word[]): { rest: Word[]; stdinArgs: boolean } | null {
  const p = parseArgs(args, "jSdEIXNLlnPaC", ["jobs", "sshlogin", "delimiter", "eof", "max-args", "max-lines", "arg-file", "colsep", "workdir", "tmpdir", "results", "joblog", "basefile", "tag-string", "env"], true);
  const sep = p.rest.findIndex((w) => /^:::+$/.test(w.value));
  const template = sep >= 0 ? p.rest.slice(0, sep) : p.rest;
  if (!template.length) return null;
  const inputs = sep >= 0 ? p.rest.slice(sep + 1).filter((w) => !/^:::+$/.test(w.value)) : [];
  const line = joinWords(template);
  let code = line;
  if (inputs.length && line.value.includes("{}")) {
    const value = inputs.map((i) => line.value.split("{}").join(i.value)).join("; ");
    code = { raw: line.raw, value, dynamic: value.includes(DYN), glob: false };
  } else if (inputs.length) code = joinWords([line, ...inputs]);
  return { rest: viaShell(code), stdinArgs: sep < 0 || p.values.has("a") || p.values.has("arg-file") };
}

/** How each wrapper's options look, and where its command starts. */
function peel(name: string, args: Word[]): { rest: Word[]; stdinArgs?: boolean; replace?: string } | null {
  switch (name) {
    case "watch": {
      const p = parseArgs(args, "nq", ["interval", "equexit"], true);
      // `watch -x CMD ARGS` runs CMD itself; otherwise the words are joined and run by `sh -c`.
      return { rest: p.flags.has("x") || p.flags.has("exec") ? p.rest : shellOrArgv(p.rest) };
    }
    case "flock": {
      const p = parseArgs(args, "wE", ["timeout", "conflict-exit-code"], true);
      const code = commandOption(p.rest.slice(1));
      if (code) return { rest: viaShell(code) };
      return { rest: p.rest.slice(1) }; // `flock FILE CMD ARGS`; `flock FD` alone runs nothing
    }
    case "script": {
      const code = commandOption(args);
      return code ? { rest: viaShell(code) } : null;
    }
    case "su":
    case "runuser": {
      const code = commandOption(args);
      if (code) return { rest: viaShell(code) };
      if (name === "runuser") {
        const p = parseArgs(args, "ugGsw", ["user", "group", "supp-group", "shell", "whitelist-environment"], true);
        if (p.values.has("u") || p.values.has("user")) return { rest: p.rest };
      }
      return null;
    }
    case "sg": {
      const rest = args.filter((w) => w.value !== "-").slice(1); // the group
      const code = commandOption(rest);
      return code ? { rest: viaShell(code) } : rest.length ? { rest: shellOrArgv(rest) } : null;
    }
    case "unshare":
      return { rest: parseArgs(args, "SGRwt", ["setuid", "setgid", "root", "wd", "propagation", "map-user", "map-group", "map-users", "map-groups", "kill-child"], true).rest };
    case "nsenter":
      return { rest: parseArgs(args, "tSG", ["target", "setuid", "setgid"], true).rest };
    case "chroot": {
      const p = parseArgs(args, "", ["userspec", "groups"], true);
      return { rest: p.rest.slice(1) }; // the new root
    }
    case "strace":
    case "ltrace": {
      const p = parseArgs(args, "eopsuaEIOSPXAbDFlnLx", ["output", "trace", "signal", "user", "env", "string-limit"], true);
      return { rest: p.rest };
    }
    case "taskset": {
      const p = parseArgs(args, "", [], true);
      return p.flags.has("p") || p.flags.has("pid") ? null : { rest: p.rest.slice(1) }; // the mask or cpu list
    }
    case "fakeroot":
      return { rest: parseArgs(args, "lsib", ["lib", "faked"], true).rest };
    case "tmux": {
      const rest = tmuxCommand(args);
      return rest ? { rest } : null;
    }
    case "parallel":
      return parallelCommand(args);
    case "at":
    case "batch": {
      // at reads the commands it schedules from stdin (or -f FILE): like `sh` reading stdin.
      const p = parseArgs(args, "qft", [], false);
      if (["l", "r", "d", "c", "V"].some((f) => p.flags.has(f))) return null; // list, remove, show: nothing scheduled
      const file = p.values.get("f");
      return { rest: file ? [literalWord("sh"), file] : [literalWord("sh")] };
    }
    case "sudoedit":
      return null;
    case "sudo": {
      const p = parseArgs(args, "ugCDhprtTU", ["user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user"], true);
      return { rest: dropAssignments(p.rest) };
    }
    case "doas":
      return { rest: parseArgs(args, "uC", [], true).rest };
    case "pkexec":
    case "run0":
      return { rest: parseArgs(args, "u", ["user"], true).rest };
    case "env": {
      const p = parseArgs(args, "uCSa", ["unset", "chdir", "split-string", "argv0"], true);
      // `env -S "rm -rf /"` splits its string into words: judged as the command line it spells.
      const split = p.values.get("S") ?? p.values.get("split-string");
      if (split) return { rest: viaShell(joinWords([split, ...p.rest])) };
      return { rest: dropAssignments(p.rest) };
    }
    case "command": {
      const p = parseArgs(args, "", [], true);
      if (p.flags.has("v") || p.flags.has("V")) return null; // a lookup, not a run
      return { rest: p.rest };
    }
    case "builtin":
    case "nohup":
    case "setsid":
    case "busybox":
      return { rest: parseArgs(args, "", [], true).rest };
    case "exec":
      return { rest: parseArgs(args, "a", [], true).rest };
    case "nice":
      return { rest: parseArgs(args, "n", ["adjustment"], true).rest };
    case "time":
      return { rest: parseArgs(args, "o", ["output", "format"], true).rest };
    case "timeout": {
      const p = parseArgs(args, "sk", ["signal", "kill-after"], true);
      return { rest: p.rest.slice(1) }; // the duration
    }
    case "stdbuf":
      return { rest: parseArgs(args, "ioe", ["input", "output", "error"], true).rest };
    case "ionice": {
      const p = parseArgs(args, "cnp", ["class", "classdata", "pid"], true);
      return p.flags.has("p") ? null : { rest: p.rest };
    }
    case "chrt": {
      const p = parseArgs(args, "T", ["sched-runtime", "sched-period", "sched-deadline"], true);
      return p.flags.has("p") || p.flags.has("pid") ? null : { rest: p.rest.slice(1) }; // the priority
    }
    case "xargs": {
      // -i[R], -l[N], -e[E] and --replace[=R], --max-lines[=N], --eof[=E] take a value only when attached.
      const p = parseArgs(args, "ILnPsdEa", ["max-args", "max-procs", "max-chars", "delimiter", "arg-file", "process-slot-var"], true);
      const i = args.find((w) => /^-i./.test(w.value) && !w.value.startsWith("--"))?.value.slice(2);
      const replace = p.values.get("I")?.value ?? p.values.get("replace")?.value ?? i ?? (p.flags.has("i") || p.flags.has("replace") ? "{}" : undefined);
      return { rest: p.rest, stdinArgs: true, ...(replace !== undefined ? { replace } : {}) };
    }
    default:
      return null;
  }
}

export const WRAPPERS = new Set([
  "sudo", "doas", "pkexec", "run0", "env", "command", "builtin", "exec", "nice", "nohup", "timeout",
  "time", "stdbuf", "ionice", "setsid", "chrt", "busybox", "xargs",
  "watch", "flock", "script", "su", "runuser", "sg", "unshare", "nsenter", "chroot", "strace", "ltrace",
  "taskset", "fakeroot", "tmux", "parallel", "at", "batch",
]);

export function unwrap(argv: readonly Word[]): Effective {
  let rest = [...argv];
  const wrappers: string[] = [];
  let stdinArgs = false;
  let replace: string | undefined;
  const writes: Word[] = [];
  const reads: Word[] = [];
  const code: Word[] = [];
  let chdir: Word | undefined;
  for (let depth = 0; depth < 16; depth++) {
    const name = programName(rest[0]);
    if (name === null || !WRAPPERS.has(name)) break;
    // A wrapper's own long options may be abbreviated too (`script --com CMD`).
    const args = spelledOut(name, rest).slice(1);
    const peeled = peel(name, args);
    if (!peeled) {
      // The wrapper is the program itself (`script` alone opens a shell): its own files still count.
      const fx = wrapperEffects(name, args);
      writes.push(...fx.writes);
      reads.push(...fx.reads);
      code.push(...fx.code);
      break;
    }
    if (peeled.rest.length === 0) {
      // `xargs` alone runs echo; `env`, `time`, `sudo -l` alone are the program itself.
      if (name !== "xargs") break;
      peeled.rest = [literalWord("echo")];
    }
    const fx = wrapperEffects(name, args);
    writes.push(...fx.writes);
    reads.push(...fx.reads);
    code.push(...fx.code);
    // A later wrapper's directory is relative to an earlier one's.
    if (fx.chdir) chdir = chdir && !fx.chdir.value.startsWith("/") ? { ...fx.chdir, value: `${chdir.value}/${fx.chdir.value}`, dynamic: chdir.dynamic || fx.chdir.dynamic } : fx.chdir;
    wrappers.push(name);
    stdinArgs ||= peeled.stdinArgs ?? false;
    replace ??= peeled.replace;
    rest = peeled.rest;
  }
  const name = rest.length ? programName(rest[0]) : null;
  const eff: Effective = { argv: spelledOut(name, rest), name, wrappers, stdinArgs };
  if (!wrappers.length && !writes.length && !reads.length && !code.length) return eff;
  if (replace !== undefined) eff.replace = replace;
  if (writes.length) eff.wrapperWrites = writes;
  if (reads.length) eff.wrapperReads = reads;
  if (chdir) eff.chdir = chdir;
  if (code.length) eff.wrapperCode = code;
  return eff;
}

/** Git subcommands that write (or delete in) the work tree. */
const GIT_WORKTREE_WRITERS = new Set(["clean", "checkout", "switch", "restore", "reset", "stash", "merge", "pull", "rebase", "cherry-pick", "revert", "am", "apply", "rm", "mv", "init"]);

/**
 * `git -C DIR` / `git --work-tree=DIR` with a subcommand that writes the work tree: DIR is written
 * (`git --work-tree=/ clean -fdx` deletes under /). Without either, git works in the workspace: nothing to add.
 */
/**
 * Files a git subcommand writes by name (relative to where git runs): `--output FILE` (diff, log, show,
 * format-patch), `archive -o`, `format-patch -o DIR`, `bundle create FILE`, `worktree add DIR`,
 * `init DIR`, `clone REPO DIR`, `--separate-git-dir DIR`.
 */
function gitFiles(args: readonly Word[]): Word[] {
  const sub = args[0]?.value;
  const out: Word[] = [];
  const operands: Word[] = [];
  for (let i = 1; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    const long = /^--(out[a-z-]*|separate-git-dir)(?:=(.*))?$/s.exec(v);
    if (long && ("output-directory".startsWith(long[1]!) || long[1] === "separate-git-dir")) {
      const value = long[2] !== undefined ? { ...w, value: long[2] } : args[++i];
      if (value) out.push(value);
    } else if ((sub === "archive" || sub === "format-patch") && /^-o/.test(v)) {
      const value = v.length > 2 ? { ...w, value: v.slice(2) } : args[++i];
      if (value) out.push(value);
    } else if (!v.startsWith("-")) operands.push(w);
  }
  if (sub === "bundle" && operands[0]?.value === "create" && operands[1]) out.push(operands[1]);
  if (sub === "worktree" && operands[0]?.value === "add" && operands[1]) out.push(operands[1]);
  if (sub === "init" && operands[0]) out.push(operands[0]);
  if (sub === "clone" && operands[1]) out.push(operands[1]);
  return out;
}

function gitWrites(eff: Effective): FileOperands {
  const argv = eff.argv;
  const sub = gitSubcommand(argv);
  if (sub < 0) return NONE;
  const files = gitFiles(argv.slice(sub));
  if (!GIT_WORKTREE_WRITERS.has(argv[sub]!.value) && !files.length) return NONE;
  let dir: string | null = null;
  let tree: Word | null = null;
  let dynamic = false;
  for (let i = 1; i < sub; i++) {
    const v = argv[i]!.value;
    const next = argv[i + 1];
    if (v === "-C" && next) {
      dir = dir === null || next.value.startsWith("/") ? next.value : `${dir}/${next.value}`;
      dynamic ||= next.dynamic;
      i++;
    } else if (v === "--work-tree" && next) {
      tree = next;
      i++;
    } else if (v.startsWith("--work-tree=")) tree = { ...argv[i]!, value: v.slice(12) };
  }
  // Files named relative to where git runs: after -C, relative to that directory.
  const named = files.map((w) => (dir !== null && !w.value.startsWith("/") ? { ...w, value: `${dir}/${w.value}`, dynamic: w.dynamic || dynamic } : w));
  if ((dir === null && tree === null) || !GIT_WORKTREE_WRITERS.has(argv[sub]!.value)) return named.length ? { writes: named, reads: [], deletes: false, recursive: false } : NONE;
  // --work-tree is relative to the directory -C moved to.
  let target: Word;
  if (tree && (tree.value.startsWith("/") || dir === null)) target = tree;
  else if (tree) target = { ...tree, value: `${dir}/${tree.value}`, dynamic: tree.dynamic || dynamic };
  else target = { raw: dir!, value: dir!, dynamic, glob: false };
  const clean = argv[sub]!.value === "clean";
  const rest = parseArgs(argv.slice(sub + 1));
  return { writes: [target, ...named], reads: [], deletes: clean, recursive: clean && rest.flags.has("d") };
}

/** Index of git's subcommand in `git [global options] SUB …`, or -1. */
export function gitSubcommand(argv: readonly Word[]): number {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === "-C" || v === "-c" || /^--(?:git-dir|work-tree|namespace|exec-path|config-env|super-prefix|attr-source)$/.test(v)) i++;
    else if (!v.startsWith("-")) return i;
  }
  return -1;
}

/** Long options written out in full (`--no-pres` → `--no-preserve-root`), for the programs whose options the rules read. */
function spelledOut(name: string | null, argv: Word[]): Word[] {
  if (name === null || argv.length < 2) return argv;
  if (name === "git") {
    // Global options before the subcommand, then the subcommand's own (only clean's matter here).
    const sub = gitSubcommand(argv);
    if (sub < 0) return spellOut(argv, LONG_OPTIONS.git!);
    const head = spellOut(argv.slice(0, sub), LONG_OPTIONS.git!);
    const tail = argv[sub]!.value === "clean" ? spellOut(argv.slice(sub + 1), LONG_OPTIONS["git clean"]!) : argv.slice(sub + 1);
    return head === argv.slice(0, sub) && tail === argv.slice(sub + 1) ? argv : [...head, argv[sub]!, ...tail];
  }
  // Own keys only: a program called `constructor` is not in the table.
  return Object.hasOwn(LONG_OPTIONS, name) ? spellOut(argv, LONG_OPTIONS[name]!) : argv;
}

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash"]);

const INTERPRETER = /^(?:python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|pwsh|powershell|Rscript|tclsh|osascript)$/;

/** Programs that run code handed to them (a shell or a language interpreter). */
export function isInterpreter(name: string | null): boolean {
  return name !== null && (SHELLS.has(name) || INTERPRETER.test(name) || name === "source" || name === "." || name === "eval");
}

export const FETCHERS = new Set(["curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request", "GET", "lynx", "links", "nc", "ncat", "netcat", "socat", "ftp", "tftp"]);

/** Programs that turn encoded text back into something runnable. */
export function isDecoder(eff: Effective): boolean {
  const { name } = eff;
  const args = eff.argv.slice(1).map((w) => w.value);
  if (name === "base64" || name === "base32" || name === "basenc") return args.some((a) => a === "-d" || a === "--decode" || /^-[a-zA-Z]*d/.test(a));
  if (name === "xxd") return args.some((a) => a === "-r" || /^-[a-zA-Z]*r/.test(a));
  if (name === "openssl") return args.includes("base64") && args.includes("-d") || args.includes("enc") && args.includes("-d");
  if (name === "uudecode" || name === "gunzip" || name === "zcat") return true;
  return false;
}

/**
 * Where an interpreter takes its program from. "stdin" includes the paths that are stdin under another
 * name (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`); "descriptor" is another open descriptor
 * (`/dev/fd/3`, a `<(…)` process substitution); "network" a `/dev/tcp` or `/dev/udp` socket; "unknown"
 * an option the guard does not know comes first, so it cannot tell which word is the program.
 */
export type ProgramSource = "stdin" | "descriptor" | "network" | "inline" | "file" | "none" | "unknown";

const STDIN_PATH = /^\/(?:dev\/stdin|dev\/fd\/0+|proc\/(?:self|thread-self|\d+)\/fd\/0+|proc\/self\/task\/\d+\/fd\/0+)$/;
const FD_PATH = /^\/(?:dev\/fd|proc\/(?:self|thread-self|[^/]+)(?:\/task\/[^/]+)?\/fd)\/|^\/dev\/std(?:in|out|err)$/;
const NET_PATH = /^\/dev\/(?:tcp|udp)\//;

/** What reading the file `word` as a program means: its content comes from stdin, a descriptor, the network, or a file. */
export function programFileSource(word: Word): "stdin" | "descriptor" | "network" | "file" {
  if (word.value === "-") return "stdin";
  // `/dev/./stdin`, `/proc/self/../self/fd/0`, `/proc/self/root/dev/stdin`: the same files by other names.
  let v = word.value.startsWith("/") ? (resolvePath(word.value, "/") ?? word.value) : word.value;
  v = v.replace(/^\/proc\/[^/]+\/root(?=\/)/, "");
  if (STDIN_PATH.test(v)) return "stdin";
  if (NET_PATH.test(v)) return "network";
  if (FD_PATH.test(v) || /^<\(|^>\(/.test(word.raw)) return "descriptor";
  // `/proc/$$/fd/0`, `/dev/fd/$N`: a descriptor whatever the number.
  if (word.dynamic && /^\/(?:dev\/fd|proc)\//.test(v)) return "descriptor";
  return "file";
}

/**
 * How an interpreter's command line names its program, as data: the options that give inline code, the
 * options that take a value (attached or as the next word), the ones that take none, and the long options.
 * An option not in the table means "unknown": the guard cannot tell whether the next word is the program.
 */
interface InterpreterOptions {
  /** Short options whose value is the program text (`-c`, `-e`). */
  inline: string;
  /** Short options that take a value: attached, or the next word (`-X dev`, `-O extglob`, `-I lib`). */
  value: string;
  /** Short options that take a value only when attached (`-i.bak`, `-Mstrict`): the rest of the word. */
  attached: string;
  /** Short options that take only digits attached (perl's `-l40`, `-0777`): the letters after them are options again. */
  digits?: string;
  /** Short options whose value is the program file (`php -f FILE`). */
  file?: string;
  /** Short options without a value. */
  flags: string;
  /** Short options that read code typed at the terminal after (or instead of) the program: a REPL (`python3 -i`). */
  interactive?: string;
  /** Long options that do the same (`node --interactive`). */
  longInteractive?: readonly string[];
  /** The program is stdin (`bash -s`). */
  stdin: string;
  /** Long options with a value as the next word when not given with `=` (`--rcfile FILE`). */
  longValue: readonly string[];
  /** Long options whose value is the program text (`--eval`). */
  longInline: readonly string[];
  /** Long options without a value (a pattern: node has hundreds). */
  longFlag: RegExp;
  /** `+o name`, `+O name`, `+x`: options that start with `+` (shells). */
  plus: boolean;
}

const INTERPRETER_OPTIONS: Record<string, InterpreterOptions> = {
  shell: {
    inline: "c", value: "oO", attached: "", flags: "abefhkmnptuvxBCEHPTilrD", stdin: "s",
    longValue: ["rcfile", "init-file"], longInline: [],
    longFlag: /^(?:norc|noprofile|login|posix|restricted|verbose|debugger|dump-strings|dump-po-strings|noediting|pretty-print|help|version|wordexp)$/, plus: true,
  },
  python: {
    inline: "cm", value: "WX", attached: "", flags: "bBdEhiIOPqsSuvVx?", interactive: "i", stdin: "",
    longValue: ["check-hash-based-pycs"], longInline: [], longFlag: /^(?:help|version|help-env|help-xoptions|help-all)$/, plus: false,
  },
  node: {
    inline: "ep", value: "rC", attached: "", flags: "ichv", interactive: "i", longInteractive: ["interactive"], stdin: "",
    longValue: ["require", "import", "conditions", "loader", "experimental-loader", "input-type", "inspect-port", "title", "env-file", "disable-warning", "watch-path", "test-name-pattern", "redirect-warnings", "stack-trace-limit"],
    longInline: ["eval", "print"],
    longFlag: /^(?:no-[\w-]+|experimental-[\w-]+|trace-[\w-]+|harmony[\w-]*|inspect(?:-brk|-wait)?|enable-source-maps|expose-gc|preserve-symlinks(?:-main)?|abort-on-uncaught-exception|throw-deprecation|pending-deprecation|interactive|test|watch|check|jitless|frozen-intrinsics|prof|cpu-prof|heap-prof|zero-fill-buffers|use-openssl-ca|use-bundled-ca|openssl-legacy-provider|insecure-http-parser|force-[\w-]+|report-[\w-]+|permission|v8-options|help|version|completion-bash|enable-fips|verify-base-objects|es-module-specifier-resolution|addons|deprecation|warnings|global-search-paths)$/,
    plus: false,
  },
  perl: {
    inline: "eE", value: "I", attached: "iCdDFMmx", digits: "l0", flags: "acnpsStTuUvVwWX", stdin: "",
    longValue: [], longInline: [], longFlag: /^(?:help|version)$/, plus: false,
  },
  ruby: {
    inline: "e", value: "ICErKFT", attached: "0Wx", flags: "acdlnpsSvwyh", stdin: "",
    longValue: [], longInline: [], longFlag: /^(?:help|version|verbose|copyright|jit|yjit|mjit|disable-[\w-]+|enable-[\w-]+)$/, plus: false,
  },
  php: {
    inline: "rBRE", value: "dcztSF", attached: "", file: "f", flags: "ahHilmnsvwe", interactive: "a", longInteractive: ["interactive"], stdin: "",
    longValue: [], longInline: [], longFlag: /^(?:help|version|info|ini|syntax-highlight|no-php-ini|no-header|interactive|modules)$/, plus: false,
  },
  other: {
    inline: "ec", value: "l", attached: "", flags: "ivEW", stdin: "",
    longValue: [], longInline: [], longFlag: /^(?:help|version)$/, plus: false,
  },
};

function family(name: string): keyof typeof INTERPRETER_OPTIONS {
  if (SHELLS.has(name)) return "shell";
  if (/^(?:python|pypy)/.test(name)) return "python";
  if (/^(?:node|nodejs|deno|bun)$/.test(name)) return "node";
  if (/^perl/.test(name)) return "perl";
  if (/^ruby/.test(name)) return "ruby";
  if (/^php/.test(name)) return "php";
  return "other";
}

/** `deno run x.ts`, `bun run x.ts`, `deno eval CODE`: the subcommand before the program. */
const RUNTIME_SUBCOMMANDS: Record<string, Record<string, ProgramSource | "next">> = {
  deno: { run: "next", test: "next", bench: "next", eval: "inline", repl: "stdin" },
  bun: { run: "next", test: "next", x: "unknown", exec: "inline" },
};

export function programSource(eff: Effective): ProgramSource {
  return scanProgram(eff).source;
}

/**
 * Where the program comes from (programSource), and the option that makes the interpreter read code typed at the
 * terminal after or instead of it (`python3 -i`, `node --interactive`, `php -a`, `perl -d`), or null.
 */
export function scanProgram(eff: Effective): { source: ProgramSource; interactive: string | null } {
  let interactive: string | null = null;
  const out = (source: ProgramSource) => ({ source, interactive });
  const name = eff.name;
  if (name === null || !isInterpreter(name)) return out("none");
  if (name === "source" || name === ".") {
    const file = eff.argv.slice(1).find((w) => w.value !== "--");
    return out(file ? programFileSource(file) : "none");
  }
  if (name === "eval") return out("inline");
  const t = INTERPRETER_OPTIONS[family(name)]!;
  const args = eff.argv.slice(1);
  let i = 0;
  const sub = RUNTIME_SUBCOMMANDS[name];
  if (sub && args[0] && !args[0].value.startsWith("-")) {
    const kind = sub[args[0].value];
    if (kind === undefined) return out(args[0].dynamic ? "unknown" : programFileSource(args[0])); // `bun x.ts`
    if (kind !== "next") return out(kind);
    i = 1;
  }
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic && /^[-+]/.test(v)) return out("unknown");
    if (v === "--" || (v === "-" && t.plus)) {
      // `bash -- FILE`, `bash - FILE`: the next word is the program; nothing after it is an option.
      const next = args[i + 1];
      return out(next ? programFileSource(next) : "stdin");
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const long = eq > 0 ? v.slice(2, eq) : v.slice(2);
      if (t.longInteractive?.includes(long)) interactive ??= `--${long}`;
      if (t.longInline.includes(long)) return out("inline");
      if (t.longValue.includes(long)) {
        if (eq < 0) i++;
        continue;
      }
      if (t.longFlag.test(long) || (eq > 0 && family(name) === "node")) continue;
      return out("unknown");
    }
    if ((v.startsWith("-") || (t.plus && v.startsWith("+"))) && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        if (t.interactive?.includes(c)) interactive ??= `-${c}`;
        // perl's debugger: `-d`, `-dt` (not `-d:Module`, which loads a profiler or tracer)
        if (c === "d" && family(name) === "perl" && v[j + 1] !== ":") interactive ??= "-d";
        if (t.inline.includes(c)) return out("inline");
        if (t.stdin.includes(c)) return out("stdin");
        if (t.file?.includes(c)) {
          const file = j < v.length - 1 ? { ...w, value: v.slice(j + 1) } : args[i + 1];
          return out(file ? programFileSource(file) : "unknown");
        }
        if (t.value.includes(c)) {
          if (j === v.length - 1) i++; // the value is the next word
          break;
        }
        if (t.attached.includes(c)) break; // the rest of the word is its value
        if (t.digits?.includes(c)) {
          // Octal digits; `-0x1ff` hexadecimal.
          if (c === "0" && v[j + 1] === "x") for (j++; j + 1 < v.length && /[0-9a-fA-F]/.test(v[j + 1]!); ) j++;
          else while (j + 1 < v.length && /[0-7]/.test(v[j + 1]!)) j++;
          continue;
        }
        if (!t.flags.includes(c)) return out("unknown");
      }
      continue;
    }
    return out(programFileSource(w));
  }
  return out("stdin");
}

/** For `bash -c STRING`, `eval a b`: the code string, as a word. null when none is given. */
export function inlineCode(eff: Effective): Word | null {
  const name = eff.name;
  if (name === "eval") {
    const args = eff.argv.slice(1);
    if (!args.length) return null;
    const value = args.map((w) => w.value).join(" ");
    return { raw: args.map((w) => w.raw).join(" "), value, dynamic: value.includes(DYN), glob: false };
  }
  if (name === null || !SHELLS.has(name)) return null;
  const args = eff.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") return null;
    if (v.startsWith("-") && !v.startsWith("--") && v.slice(1).includes("c")) {
      // `bash -c CMD` or `bash -lc CMD`: the code is the first operand after the options.
      for (let j = i + 1; j < args.length; j++) {
        if (!args[j]!.value.startsWith("-") || args[j]!.dynamic) return args[j]!;
      }
      return null;
    }
    if (!v.startsWith("-")) return null;
  }
  return null;
}

/** Commands that find -exec / -execdir / -ok / -okdir run, with `{}` standing for each found path. */
/** Tests that narrow what find matches: with one, `{}` is never simply the starting point. */
export const FIND_FILTER = /^-(?:i?name|i?path|i?wholename|i?regex|type|newer\w*|[acm]min|[acm]time|size|user|group|empty|perm|links|inum|samefile|mindepth)$/;

/** Where find's starting points begin: after its global options `-H -L -P -D opts -O3`. */
function findStart(args: readonly Word[]): number {
  let i = 0;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === "-H" || v === "-L" || v === "-P" || /^-O\d*$/.test(v)) i++;
    else if (v === "-D") i += 2;
    else break;
  }
  return i;
}

export function findExecs(eff: Effective): { argv: Word[]; roots: Word[]; filtered: boolean }[] {
  const args = eff.argv.slice(1);
  const roots: Word[] = [];
  let i = findStart(args);
  while (i < args.length && !/^[-(!)]/.test(args[i]!.value)) roots.push(args[i++]!);
  const out: { argv: Word[]; roots: Word[]; filtered: boolean }[] = [];
  const filtered = args.some((w) => FIND_FILTER.test(w.value));
  for (; i < args.length; i++) {
    if (/^-(?:exec|execdir|ok|okdir)$/.test(args[i]!.value)) {
      const start = i + 1;
      let end = start;
      while (end < args.length && args[end]!.value !== ";" && args[end]!.value !== "+") end++;
      out.push({ argv: args.slice(start, end), roots: roots.length ? roots : [literalWord(".")], filtered });
      i = end;
    }
  }
  return out;
}

export function findRoots(eff: Effective): Word[] {
  const roots: Word[] = [];
  const args = eff.argv.slice(1);
  for (const w of args.slice(findStart(args))) {
    if (/^[-(!)]/.test(w.value)) break;
    roots.push(w);
  }
  return roots.length ? roots : [literalWord(".")];
}

/** Short options of GNU tar that take a value. */
const TAR_VALUED = "bCfFgHIKLNTVX";

/**
 * tar's arguments with an old-style first word spelled as options: in `tar xfC a.tar /` each letter that
 * takes a value takes the next word, in order (`-x -f a.tar -C /`), unlike `-xfC`, where C is f's value.
 */
export function tarArgs(args: readonly Word[]): Word[] {
  const first = args[0];
  if (!first || first.value.startsWith("-") || first.dynamic) return [...args];
  const out: Word[] = [];
  let next = 1;
  for (const c of first.value) {
    out.push({ ...first, value: "-" + c });
    if (TAR_VALUED.includes(c) && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

export interface FileOperands {
  writes: Word[];
  reads: Word[];
  /** The command deletes what it writes (rm, find -delete, …). */
  deletes: boolean;
  /** It recurses into directories (rm -r, chmod -R, …). */
  recursive: boolean;
}

const NONE: FileOperands = { writes: [], reads: [], deletes: false, recursive: false };

/** Tools that only read the operands they are given (after a pattern or script, where they take one). */
const READERS: Record<string, "all" | "after-first"> = {
  cat: "all", head: "all", tail: "all", less: "all", more: "all", wc: "all", nl: "all", tac: "all", rev: "all",
  diff: "all", cmp: "all", comm: "all", file: "all", stat: "all", du: "all", ls: "all", tree: "all", od: "all",
  xxd: "all", hexdump: "all", strings: "all", md5sum: "all", sha1sum: "all", sha256sum: "all", sha512sum: "all",
  cksum: "all", base64: "all", cut: "all", paste: "all", column: "all", fold: "all", readlink: "all", realpath: "all",
  sort: "all", uniq: "all", source: "all", ".": "all", cp: "all",
  grep: "after-first", egrep: "after-first", fgrep: "after-first", rg: "after-first", sed: "after-first",
  awk: "after-first", jq: "after-first",
};

export function fileOperands(eff: Effective): FileOperands {
  const name = eff.name;
  if (name === null) return NONE;
  // git's work tree elsewhere (-C, --work-tree) is written by the subcommands that write it, whatever the spec says.
  if (name === "git") {
    const tree = gitWrites(eff);
    if (tree !== NONE) return tree;
  }
  // A program with an option spec: its row says which options and operands are files it writes.
  const judged = judgeEffective(eff);
  if (judged?.parsed) return { writes: judged.writes, reads: judged.reads, deletes: false, recursive: false };
  const args = eff.argv.slice(1);
  switch (name) {
    case "rm": {
      const p = parseArgs(args);
      return { writes: p.operands, reads: [], deletes: true, recursive: p.flags.has("r") || p.flags.has("R") || p.flags.has("recursive") };
    }
    case "rmdir":
    case "unlink":
      return { writes: parseArgs(args).operands, reads: [], deletes: true, recursive: false };
    case "shred": {
      const p = parseArgs(args, "ns", ["iterations", "size", "random-source"]);
      return { writes: p.operands, reads: [], deletes: p.flags.has("u") || p.flags.has("remove"), recursive: false };
    }
    case "mkdir":
      return { writes: parseArgs(args, "m", ["mode", "context"]).operands, reads: [], deletes: false, recursive: false };
    case "touch":
      return { writes: parseArgs(args, "drt", ["date", "reference"]).operands, reads: [], deletes: false, recursive: false };
    case "truncate":
      return { writes: parseArgs(args, "sr", ["size", "reference"]).operands, reads: [], deletes: false, recursive: false };
    case "chmod":
    case "chown":
    case "chgrp": {
      const p = parseArgs(args);
      const hasRef = [...p.flags].some((f) => f === "reference");
      return { writes: hasRef ? p.operands : p.operands.slice(1), reads: [], deletes: false, recursive: p.flags.has("R") || p.flags.has("recursive") };
    }
    case "cp":
    case "install": {
      const p = parseArgs(args, "tSmogZ", ["target-directory", "suffix", "mode", "owner", "group", "context"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      if (name === "install" && p.flags.has("d")) return { writes: p.operands, reads: [], deletes: false, recursive: false };
      if (dir) return { writes: [dir], reads: p.operands, deletes: false, recursive: false };
      return { writes: p.operands.slice(-1), reads: p.operands.slice(0, -1), deletes: false, recursive: p.flags.has("r") || p.flags.has("R") || p.flags.has("a") };
    }
    case "mv": {
      // A move removes its sources: they count as written too.
      const p = parseArgs(args, "tS", ["target-directory", "suffix"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      return { writes: dir ? [dir, ...p.operands] : p.operands, reads: [], deletes: false, recursive: false };
    }
    case "ln": {
      const p = parseArgs(args, "tS", ["target-directory", "suffix"]);
      const dir = p.values.get("t") ?? p.values.get("target-directory");
      if (dir) return { writes: [dir], reads: [], deletes: false, recursive: false };
      return { writes: p.operands.length >= 2 ? p.operands.slice(-1) : [literalWord(".")], reads: [], deletes: false, recursive: false };
    }
    case "tee":
      return { writes: parseArgs(args, "", ["output-error"]).operands, reads: [], deletes: false, recursive: false };
    case "sed": {
      const p = parseArgs(args, "efl", ["expression", "file", "line-length"]);
      if (!p.flags.has("i") && !p.flags.has("in-place")) return { ...NONE, reads: p.values.has("e") || p.values.has("f") || p.values.has("expression") || p.values.has("file") ? p.operands : p.operands.slice(1) };
      const files = p.values.has("e") || p.values.has("f") || p.values.has("expression") || p.values.has("file") ? p.operands : p.operands.slice(1);
      return { writes: files, reads: [], deletes: false, recursive: false };
    }
    case "dd": {
      const writes: Word[] = [];
      const reads: Word[] = [];
      for (const w of args) {
        if (w.value.startsWith("of=")) writes.push({ ...w, value: w.value.slice(3) });
        if (w.value.startsWith("if=")) reads.push({ ...w, value: w.value.slice(3) });
      }
      return { writes, reads, deletes: false, recursive: false };
    }
    case "tar": {
      const p = parseArgs(tarArgs(args), "fCbHKLNTVX", ["file", "directory", "exclude", "transform", "owner", "group", "mode"]);
      const extract = p.flags.has("x") || p.flags.has("extract") || p.flags.has("get");
      const create = p.flags.has("c") || p.flags.has("create") || p.flags.has("r") || p.flags.has("u") || p.flags.has("append") || p.flags.has("update");
      const archive = p.values.get("f") ?? p.values.get("file");
      const dir = p.values.get("C") ?? p.values.get("directory");
      if (extract) return { writes: [dir ?? literalWord(".")], reads: archive ? [archive] : [], deletes: false, recursive: true };
      if (create) return { writes: archive && archive.value !== "-" ? [archive] : [], reads: p.operands, deletes: false, recursive: false };
      return { ...NONE, reads: archive ? [archive] : [] };
    }
    case "unzip": {
      const p = parseArgs(args, "dxP", []);
      return { writes: [p.values.get("d") ?? literalWord(".")], reads: p.operands.slice(0, 1), deletes: false, recursive: true };
    }
    case "curl": {
      const p = parseArgs(args, "oHdXuAeEFKrTwxzbcDmyYC", ["output", "output-dir", "header", "data", "data-raw", "data-binary", "request", "user", "user-agent", "referer", "form", "config", "upload-file", "write-out", "proxy", "cookie", "cookie-jar", "dump-header", "max-time", "retry"]);
      const writes: Word[] = [];
      const out = p.values.get("o") ?? p.values.get("output");
      if (out && out.value !== "-") writes.push(out);
      for (const k of ["c", "cookie-jar", "D", "dump-header"]) {
        const v = p.values.get(k);
        if (v && v.value !== "-") writes.push(v);
      }
      if (p.flags.has("O") || p.flags.has("remote-name")) writes.push(p.values.get("output-dir") ?? literalWord("."));
      return { writes, reads: [], deletes: false, recursive: false };
    }
    case "less": {
      // `less -o FILE` / `--log-file` copies what it shows into FILE (-O, --LOG-FILE: overwriting).
      const p = parseArgs(args, "oObhjkpPtTxyz#", ["log-file", "LOG-FILE", "tag", "tag-file", "pattern", "prompt", "tabs", "shift", "window"]);
      const writes = ["o", "O", "log-file", "LOG-FILE"].map((k) => p.values.get(k)).filter((w): w is Word => w !== undefined);
      return { writes, reads: p.operands, deletes: false, recursive: false };
    }
    case "rsync": {
      // The last operand is the destination (unless it is on another host, `host:path`); --delete removes in it.
      const p = parseArgs(args, "eBfTM", ["rsh", "rsync-path", "backup-dir", "temp-dir", "partial-dir", "compare-dest", "copy-dest", "link-dest", "filter", "exclude", "include", "exclude-from", "include-from", "files-from", "log-file", "write-batch", "only-write-batch", "read-batch", "password-file", "chmod", "chown", "usermap", "groupmap", "suffix", "max-size", "min-size", "timeout", "port", "address", "sockopts", "out-format", "info", "debug"]);
      const dest = p.operands.length >= 2 ? p.operands[p.operands.length - 1]! : null;
      const local = (w: Word) => !/^[^/]*:/.test(w.value);
      const writes = [dest, p.values.get("backup-dir"), p.values.get("log-file"), p.values.get("write-batch"), p.values.get("only-write-batch")].filter((w): w is Word => w !== undefined && w !== null && local(w));
      const sources = p.operands.slice(0, -1).filter(local);
      // `-n`/`--dry-run` and `--list-only` only show what would be copied.
      if (p.flags.has("n") || p.flags.has("dry-run") || p.flags.has("list-only")) return { ...NONE, reads: sources };
      const removes = p.flags.has("remove-source-files");
      return { writes: removes ? [...writes, ...sources] : writes, reads: sources, deletes: [...p.flags].some((f) => f.startsWith("delete")), recursive: true };
    }
    case "wget": {
      const p = parseArgs(args, "OPoaeUtTwiB", ["output-document", "directory-prefix", "output-file", "append-output", "execute", "user-agent", "tries", "timeout", "wait", "input-file", "base"]);
      const doc = p.values.get("O") ?? p.values.get("output-document");
      if (doc) return { writes: doc.value === "-" ? [] : [doc], reads: [], deletes: false, recursive: false };
      return { writes: [p.values.get("P") ?? p.values.get("directory-prefix") ?? literalWord(".")], reads: [], deletes: false, recursive: false };
    }
  }
  if (name === "git") return gitWrites(eff);
  if (name === "sudoedit") return { writes: parseArgs(args, "ugCDhprtTU", ["user", "group", "close-from", "chdir", "host", "prompt"]).operands, reads: [], deletes: false, recursive: false };
  if (name === "sort") {
    const p = parseArgs(args, "oktSTz", ["output", "key", "field-separator", "buffer-size", "temporary-directory"]);
    const out = p.values.get("o") ?? p.values.get("output");
    return { writes: out ? [out] : [], reads: p.operands, deletes: false, recursive: false };
  }
  if (name === "uniq") {
    const p = parseArgs(args, "fsw", ["skip-fields", "skip-chars", "check-chars"]);
    return { writes: p.operands.slice(1, 2), reads: p.operands.slice(0, 1), deletes: false, recursive: false };
  }
  if (name === "find") {
    const deletes = eff.argv.some((w) => w.value === "-delete");
    const writes = eff.argv.flatMap((w, i) => (/^-fprint0?$|^-fprintf$|^-fls$/.test(w.value) && eff.argv[i + 1] ? [eff.argv[i + 1]!] : []));
    return { writes: deletes ? [...findRoots(eff), ...writes] : writes, reads: findRoots(eff), deletes, recursive: deletes };
  }
  const kind = READERS[name];
  if (kind) {
    const short = name === "grep" || name === "egrep" || name === "fgrep" || name === "rg" ? "efmABCd" : name === "head" || name === "tail" ? "nc" : name === "cut" ? "bcdf" : name === "awk" ? "fvF" : "";
    const p = parseArgs(args, short, ["regexp", "file", "max-count", "lines", "bytes", "delimiter", "fields", "context", "after-context", "before-context"]);
    const explicitScript = p.values.has("e") || p.values.has("regexp") || (p.values.has("f") && name !== "cut");
    return { ...NONE, reads: kind === "after-first" && !explicitScript ? p.operands.slice(1) : p.operands };
  }
  return NONE;
}
