// Wrappers: programs that run another command (sudo, env, xargs, timeout, watch, su -c, tmux, parallel, …).
// How each hands its command on, peeled off down to the program that really runs (`unwrap`), with long
// options spelled out in full for the programs whose options the rules read.

import type { Embedded } from "./embedded.ts";
import { DYN, type Word } from "./facts.ts";
import type { Judged } from "./options/index.ts";
import { LONG_OPTIONS, spellOut } from "./rules/abbrev.ts";
import { gitSubcommand, joinWords, literalWord, parseArgs, programName } from "./argv.ts";
import { wrapperEffects } from "./wrapper-effects.ts";

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
      // xargs's own words only: `xargs sort -if` is sort's -i and -f, not xargs's -i with `f` to replace
      const own = args.slice(0, args.length - p.rest.length);
      const i = own.find((w) => /^-i./.test(w.value) && !w.value.startsWith("--"))?.value.slice(2);
      const replace = p.values.get("I")?.value ?? p.values.get("replace")?.value ?? i ?? (p.flags.has("i") || p.flags.has("replace") ? "{}" : undefined);
      return { rest: p.rest, stdinArgs: true, ...(replace !== undefined ? { replace } : {}) };
    }
    default:
      return null;
  }
}

/** The wrappers `unwrap` peels off. */
export const WRAPPERS = new Set([
  "sudo", "doas", "pkexec", "run0", "env", "command", "builtin", "exec", "nice", "nohup", "timeout",
  "time", "stdbuf", "ionice", "setsid", "chrt", "busybox", "xargs",
  "watch", "flock", "script", "su", "runuser", "sg", "unshare", "nsenter", "chroot", "strace", "ltrace",
  "taskset", "fakeroot", "tmux", "parallel", "at", "batch",
]);

/** The command that really runs, wrappers peeled off (outermost first, at most 16), with what the wrappers add. */
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
