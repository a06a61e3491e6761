// Command lines hidden inside other programs' arguments: `trap 'CMD' EXIT`, `tar --to-command=CMD`,
// `git -c core.pager=CMD`, `ssh -o ProxyCommand=CMD`, `LESSOPEN='|CMD' less`, and the shell commands
// that inline Python, Node, Perl, Ruby, PHP or awk code hands to os.system / child_process / system().
// The parser judges each string as if it were written in the script. Extraction is literal and simple:
// code too complex to read this way keeps the verdict its program gets anyway.

import { DYN, type Word } from "./facts.ts";
import { gitSubcommand, literalWord, parseArgs } from "./argv.ts";
import { tarArgs } from "./file-operands.ts";
import { programSource } from "./interpreters.ts";
import type { Effective } from "./wrappers.ts";
import { shellQuote } from "../lib/text.ts";

export interface Embedded {
  /** The command line, as a word (dynamic when it holds a variable). */
  code: Word;
  /** Where it was found, for the verdict: "trap", "tar --to-command", "python3 -c (os.system)". */
  via: string;
  /** Text that may not be a command at all (an alias value, any git setting): a syntax error in it refuses nothing. */
  lenient?: boolean;
}

const NONE: Embedded[] = [];

function word(value: string, from?: Word): Word {
  return { raw: from?.raw ?? value, value, dynamic: value.includes(DYN) || (from?.dynamic ?? false), glob: false };
}

/** `--name=VALUE` or `--name VALUE` / `-x VALUE` / `-xVALUE`: every value of the given options. */
function optionValues(args: readonly Word[], long: readonly string[], short: readonly string[] = []): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    for (const l of long) {
      if (v === "--" + l && args[i + 1]) out.push(args[++i]!);
      else if (v.startsWith("--" + l + "=")) out.push(word(v.slice(l.length + 3), args[i]));
    }
    for (const s of short) {
      if (v === "-" + s && args[i + 1]) out.push(args[++i]!);
      else if (v.startsWith("-" + s) && v.length > s.length + 1 && s.length === 1 && !v.startsWith("--")) out.push(word(v.slice(2), args[i]));
    }
  }
  return out;
}

/** Git settings whose value is a command line (`!cmd` for aliases and helpers). */
const GIT_CODE_KEY = /^(?:core\.(?:pager|sshcommand|fsmonitor|editor|askpass)|sequence\.editor|diff\.external|gpg\.(?:\w+\.)?program|pager\..+|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|uploadpack\.packobjectshook|credential\.helper|alias\..+)$/i;

/** Like optionValues, but a long option may be any prefix (two letters or more) of the names: git takes unique prefixes. */
function prefixValues(args: readonly Word[], long: readonly string[], short: readonly string[] = []): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    const m = /^--([a-z][a-z-]+)(?:=(.*))?$/s.exec(v);
    if (m && long.some((l) => l.startsWith(m[1]!))) {
      if (m[2] !== undefined) out.push(word(m[2], args[i]));
      else if (args[i + 1]) out.push(args[++i]!);
      continue;
    }
    for (const sh of short) {
      if (v === "-" + sh && args[i + 1]) out.push(args[++i]!);
      else if (v.startsWith("-" + sh) && v.length > 2 && !v.startsWith("--")) out.push(word(v.slice(2), args[i]));
    }
  }
  return out;
}

/** Words given as a command and its arguments (`git bisect run CMD ARGS`), as one command line. */
function commandLine(words: readonly Word[]): Word | null {
  if (!words.length) return null;
  const value = words.map((w) => shellQuote(w.value)).join(" ");
  return { raw: words.map((w) => w.raw).join(" "), value, dynamic: words.some((w) => w.dynamic), glob: false };
}

/** Where a git subcommand carries a command line in its options or operands (rows: subcommand, long options, short options). */
const GIT_SUBCOMMAND_CODE: Record<string, [string[], string[]]> = {
  rebase: [["exec"], ["x"]],
  "filter-branch": [["tree-filter", "index-filter", "msg-filter", "env-filter", "commit-filter", "parent-filter", "tag-name-filter"], []],
  difftool: [["extcmd"], ["x"]],
  grep: [["open-files-in-pager"], ["O"]],
  clone: [["upload-pack", "template"], ["u"]],
  fetch: [["upload-pack"], []],
  pull: [["upload-pack"], []],
  "ls-remote": [["upload-pack"], []],
  push: [["receive-pack", "exec"], []],
  archive: [["exec"], []],
  "send-email": [["sendmail-cmd", "to-cmd", "cc-cmd", "header-cmd"], []],
};

function gitCode(argv: readonly Word[]): Embedded[] {
  const out: Embedded[] = [];
  const end = gitSubcommand(argv);
  const globals = argv.slice(1, end < 0 ? argv.length : end);
  const setting = (text: Word, key: string, how: string) => {
    let value = text.value;
    if (/^(?:alias|credential)\./i.test(key)) {
      if (!value.startsWith("!")) return;
      value = value.slice(1);
    }
    if (/^core\.fsmonitor$/i.test(key) && /^(?:true|false|yes|no|on|off|0|1|)$/i.test(value)) return;
    // Settings git runs are judged strictly; any other setting may still spell a command (`-c x.y='rm -rf /'`), loosely.
    out.push({ code: word(value, text), via: `${how} ${key}`, ...(GIT_CODE_KEY.test(key) ? {} : { lenient: true }) });
  };
  for (let i = 0; i < globals.length; i++) {
    const v = globals[i]!.value;
    let given: Word | undefined;
    if (v === "-c") given = globals[++i];
    else if (v.startsWith("-c")) given = word(v.slice(2), globals[i]);
    if (!given) continue;
    const eq = given.value.indexOf("=");
    if (eq < 0) continue;
    setting({ ...given, value: given.value.slice(eq + 1) }, given.value.slice(0, eq), "git -c");
  }
  if (end < 0) return out;
  const sub = argv[end]!.value;
  const rest = argv.slice(end + 1);
  const row = GIT_SUBCOMMAND_CODE[sub];
  if (row) for (const code of prefixValues(rest, row[0], row[1])) out.push({ code, via: `git ${sub}` });
  // The ext:: transport runs a command (`ext::sh -c touch% x`: `% ` is a blank).
  if (["clone", "fetch", "pull", "push", "ls-remote", "remote", "submodule"].includes(sub)) {
    for (const w of rest) {
      if (!w.value.startsWith("ext::")) continue;
      // Words split at blanks; `% ` is a blank inside a word, `%%` a percent sign (`%s`, `%S` name the service).
      const args = w.value.slice(5).split(/(?<!%) +/).map((a) => a.replace(/%(.)/g, (_m, c: string) => (c === " " || c === "%" ? c : "")));
      out.push({ code: word(args.map((a) => shellQuote(a)).join(" "), w), via: "git ext::" });
    }
  }
  if (sub === "bisect" && rest[0]?.value === "run") {
    const line = commandLine(rest.slice(1));
    if (line) out.push({ code: line, via: "git bisect run" });
  }
  if (sub === "submodule") {
    const at = rest.findIndex((w) => w.value === "foreach");
    const words = at < 0 ? [] : rest.slice(at + 1).filter((w, i, all) => !(w.value.startsWith("-") && all.slice(0, i).every((x) => x.value.startsWith("-"))));
    const line = words.length === 1 ? words[0]! : commandLine(words);
    if (line) out.push({ code: line, via: "git submodule foreach" });
  }
  if (sub === "config") {
    // `git config [options] KEY VALUE`: a setting written for later.
    const value = (i: number) => /^--(?:file|blob|type|default|comment)$/.test(rest[i - 1]?.value ?? "") || rest[i - 1]?.value === "-f";
    const operands = rest.filter((w, i) => !w.value.startsWith("-") && !value(i));
    // `git config --get KEY VALUE-PATTERN` reads (git config reads options only before its first operand).
    const ends = rest.findIndex((w) => w.value === "--" || w.value === "--end-of-options");
    const first = Math.min(operands[0] ? rest.indexOf(operands[0]) : rest.length, ends < 0 ? rest.length : ends);
    const reads = rest.slice(0, first).some((w, i) => /^(?:--get(?:-all|-regexp|-urlmatch|-color|-colorbool)?|--list|-l)$/.test(w.value) && !value(i));
    if (operands.length >= 2 && !reads) setting(operands[1]!, operands[0]!.value, "git config");
  }
  return out;
}

/** `ssh -o ProxyCommand=CMD`, `-oProxyCommand CMD`, and the other options whose value ssh runs. */
function sshCode(args: readonly Word[], program: string): Embedded[] {
  const out: Embedded[] = [];
  for (const o of optionValues(args, [], ["o"])) {
    const m = /^\s*(ProxyCommand|LocalCommand|KnownHostsCommand)\s*(?:=\s*|\s+)(.*)$/is.exec(o.value);
    if (m && !/^none$/i.test(m[2]!.trim())) out.push({ code: word(m[2]!, o), via: `${program} -o ${m[1]}` });
  }
  if (program === "scp" || program === "sftp") for (const s of optionValues(args, [], ["S"])) out.push({ code: s, via: `${program} -S` });
  // `sftp -D PROGRAM` runs a local sftp server program instead of ssh.
  if (program === "sftp") for (const s of optionValues(args, [], ["D"])) out.push({ code: s, via: "sftp -D" });
  return out;
}

/** Environment variables whose value a program runs as a command line. */
const ENV_CODE: Record<string, string[]> = {
  less: ["LESSOPEN", "LESSCLOSE"],
  man: ["MANPAGER", "PAGER", "BROWSER"],
  git: ["GIT_PAGER", "PAGER", "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS"],
};

function envCode(name: string, env: ReadonlyArray<{ name: string; value: Word }>): Embedded[] {
  const keys = ENV_CODE[name];
  if (!keys) return NONE;
  const out: Embedded[] = [];
  for (const a of env) {
    if (!keys.includes(a.name)) continue;
    // LESSOPEN='|cmd %s' pipes; `%s` is the file being read.
    const value = a.value.value.replace(/^\|+-?/, "").replace(/%s/g, "FILE");
    if (value.trim()) out.push({ code: word(value, a.value), via: `${a.name} of ${name}` });
  }
  return out;
}

/** `env A=1 less f` and `A=1 less f`: the assignments a command runs with. */
function assignmentsOf(argv: readonly Word[], assignments: ReadonlyArray<{ name: string; value: Word }>): { name: string; value: Word }[] {
  const out = [...assignments];
  for (const w of argv) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w.value);
    if (m) out.push({ name: m[1]!, value: word(m[2]!, w) });
  }
  return out;
}

/** Every command line `eff` hands to a shell besides the `sh -c` / eval strings the parser already unpacks. */
/** Programs (besides interpreters) that may carry a command line in their arguments or environment. */
const HOSTS = new Set(["trap", "tar", "zip", "git", "rsync", "ssh", "scp", "sftp", "man", "less", "alias", "complete", "compgen", "mapfile", "readarray", "bind"]);

// The parser and the rules both ask, once per command: the answer is kept on the effective command
// (a field, not a WeakMap: a weak table keyed by objects that live one check is work for every GC).

export function embeddedCode(eff: Effective, argv: readonly Word[], assignments: ReadonlyArray<{ name: string; value: Word }>, stdin?: string): Embedded[] {
  if (eff.name === null || !(HOSTS.has(eff.name) || languageOf(eff.name) !== null)) return NONE;
  if (eff.argv.length < 2 && stdin === undefined) return NONE;
  return (eff.embedded ??= findEmbedded(eff, argv, assignments, stdin));
}

function findEmbedded(eff: Effective, argv: readonly Word[], assignments: ReadonlyArray<{ name: string; value: Word }>, stdin: string | undefined): Embedded[] {
  const name = eff.name!;
  const args = eff.argv.slice(1);
  switch (name) {
    case "trap": {
      const ops = args.filter((w) => w.value !== "--" && !/^-[lp]+$/.test(w.value));
      const action = ops[0];
      if (ops.length < 2 || !action || action.value === "-" || action.value === "" || /^\d+$/.test(action.value)) return NONE;
      return [{ code: action, via: "trap" }];
    }
    case "alias":
      // `alias ls='rm -rf /'`: the value is the command line `ls` will run.
      return args.flatMap((w) => {
        const m = /^[^=\s]+=(.*)$/s.exec(w.value);
        return m && m[1]!.trim() ? [{ code: word(m[1]!, w), via: "alias", lenient: true }] : [];
      });
    case "complete":
    case "compgen":
      return optionValues(args, [], ["C"]).map((code) => ({ code, via: `${name} -C` }));
    case "mapfile":
    case "readarray":
      return optionValues(args, [], ["C"]).map((code) => ({ code, via: `${name} -C` }));
    case "bind":
      // `bind -x '"\C-t": CMD'`: CMD runs when the keys are pressed.
      return optionValues(args, [], ["x"]).flatMap((o) => {
        const m = /^\s*"(?:[^"\\]|\\.)*"\s*:\s*(.*)$/s.exec(o.value);
        return m ? [{ code: word(m[1]!.replace(/^(["'])(.*)\1$/s, "$2"), o), via: "bind -x" }] : [];
      });
    case "tar": {
      const norm = tarArgs(args); // old style: `tar xIf PROG a.tgz`
      const out: Embedded[] = [];
      for (const v of optionValues(norm, ["to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command"], ["I", "F"])) out.push({ code: v, via: "tar" });
      // Short -I / -F inside a bundle (`-cIf`): the value is the next word.
      const p = parseArgs(norm, "fCbHKLNTVXIF", ["file", "directory", "exclude", "transform"]);
      for (const k of ["I", "F"]) {
        const v = p.values.get(k);
        if (v && !out.some((o) => o.code === v || o.code.value === v.value)) out.push({ code: v, via: `tar -${k}` });
      }
      for (const v of optionValues(norm, ["checkpoint-action"])) {
        const m = /^(?:exec|execute)=(.*)$/s.exec(v.value);
        if (m) out.push({ code: word(m[1]!, v), via: "tar --checkpoint-action" });
      }
      return out;
    }
    case "zip": {
      const out: Embedded[] = [];
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        // zip takes unique prefixes of its long options: `--unz` and longer are --unzip-command (`--un` could be --unicode).
        const long = /^--(unz[a-z-]*)(=.*)?$/s.exec(v);
        const unzip = long !== null && "unzip-command".startsWith(long[1]!);
        if ((v === "-TT" || (unzip && long![2] === undefined)) && args[i + 1]) out.push({ code: args[++i]!, via: "zip -TT" });
        else if (unzip && long![2] !== undefined) out.push({ code: word(long![2].slice(1), args[i]), via: "zip -TT" });
        else if (v.startsWith("-TT") && v.length > 3) out.push({ code: word(v.slice(3).replace(/^=/, ""), args[i]), via: "zip -TT" });
      }
      return out;
    }
    case "git":
      return [...gitCode(eff.argv), ...envCode("git", assignmentsOf(argv, assignments))];
    case "rsync":
      return optionValues(args, ["rsh"], ["e"]).map((code) => ({ code, via: "rsync -e" })); // --rsync-path runs on the remote host
    case "ssh":
    case "scp":
    case "sftp":
      return sshCode(args, name);
    case "man":
      return [...optionValues(args, ["pager", "html"], ["P", "H"]).map((code) => ({ code, via: "man -P" })), ...envCode("man", assignmentsOf(argv, assignments))];
    case "less":
      return envCode("less", assignmentsOf(argv, assignments));
  }
  return interpreterCommands(eff, stdin);
}

// ---- Inline code of interpreters -------------------------------------------------------------------

/** Where an interpreter's inline program is: `python3 -c CODE`, `node -e CODE`, `perl -e CODE`, `awk 'PROGRAM'`. */
type Lang = "python" | "node" | "perl" | "ruby" | "php" | "awk";

// Every command asks; most are not interpreters. One cheap test first, then the family by name.
const MAYBE_INTERPRETER = /^(?:py|no|bu|de|pe|ru|ph|aw|ga|ma|na)/;

function languageOf(name: string): Lang | null {
  if (!MAYBE_INTERPRETER.test(name)) return null;
  return /^(?:python[0-9.]*|pypy[0-9.]*)$/.test(name) ? "python"
    : /^(?:node|nodejs|bun|deno)$/.test(name) ? "node"
    : /^perl[0-9.]*$/.test(name) ? "perl"
    : /^ruby[0-9.]*$/.test(name) ? "ruby"
    : /^php[0-9.]*$/.test(name) ? "php"
    : /^(?:awk|gawk|mawk|nawk)$/.test(name) ? "awk"
    : null;
}

/**
 * The interpreter's inline program: `python3 -c CODE`, `node -e CODE`, `awk 'PROGRAM'`, or the static text of
 * a heredoc or herestring it reads its program from (`python3 <<'EOF'`, `node - <<< '…'`), given as `stdin`.
 */
export function interpreterCode(eff: Effective, stdin?: string): { lang: Lang; code: string } | null {
  const name = eff.name;
  if (name === null) return null;
  const lang = languageOf(name);
  if (lang === null) return null;
  const inline = eff.argv.length < 2 ? null : inlineOf(eff, lang);
  if (inline !== null || stdin === undefined || lang === "awk") return inline;
  return programSource(eff) === "stdin" ? { lang, code: stdin } : null;
}

function inlineOf(eff: Effective, lang: Lang): { lang: Lang; code: string } | null {
  const args = eff.argv.slice(1);
  if (lang === "awk") {
    const p = parseArgs(args, "fvF", ["file", "assign", "field-separator"]);
    if (p.values.has("f") || p.values.has("file")) return null;
    const program = p.operands[0];
    return program ? { lang, code: program.value } : null;
  }
  const flag = { python: "c", node: "ep", perl: "eE", ruby: "e", php: "r" }[lang];
  const long = lang === "node" ? /^--(?:eval|print)(?:=(.*))?$/s : null;
  const parts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    const lm = long?.exec(v);
    if (lm) {
      const code = lm[1] ?? args[++i]?.value;
      if (code !== undefined) parts.push(code);
      continue;
    }
    if (!v.startsWith("-") || v.startsWith("--")) {
      if (parts.length || lang !== "perl") break;
      continue;
    }
    const at = [...v.slice(1)].findIndex((c) => flag.includes(c));
    if (at < 0) continue;
    const attached = v.slice(at + 2);
    const code = attached || args[++i]?.value;
    if (code !== undefined) parts.push(code);
    if (lang !== "perl" && lang !== "ruby") break; // perl and ruby join several -e
  }
  return parts.length ? { lang, code: parts.join("\n") } : null;
}

const STR = String.raw`(?:[rRbBuUfF]{0,2}'(?:[^'\\\n]|\\.)*'|[rRbBuUfF]{0,2}"(?:[^"\\\n]|\\.)*"|` + "`(?:[^`\\\\$]|\\\\.)*`" + ")";
/** Home directory spelled in code: `os.path.expanduser('~')`, `process.env.HOME`, `Dir.home`, … */
const HOME_EXPR = String.raw`(?:os\.path\.expanduser\(\s*['"]~['"]\s*\)|(?:pathlib\.)?Path\.home\(\)|os\.environ\[\s*['"]HOME['"]\s*\]|os\.getenv\(\s*['"]HOME['"]\s*\)|process\.env\.HOME|process\.env\[\s*['"]HOME['"]\s*\]|(?:require\(\s*['"](?:node:)?os['"]\s*\)|os)\.homedir\(\)|ENV\[\s*['"]HOME['"]\s*\]|Dir\.home|\$ENV\{\s*['"]?HOME['"]?\s*\}|getenv\(\s*['"]HOME['"]\s*\))`;
const ARG = `(?:${STR}|${HOME_EXPR})`;
const LIST = String.raw`\[\s*${STR}(?:\s*,\s*${STR})*\s*,?\s*\]`;

/** Calls that hand a shell command line (or an argv) to the system, by language. */
const RUNNERS: Record<string, string> = {
  python: String.raw`(?:\bos\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?)|\bsubprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|\bcommands\.getoutput|\bpty\.spawn|(?<![\w.])(?:system|popen|check_output|check_call|Popen|getoutput))`,
  node: String.raw`(?:(?<![\w.$])|\b(?:child_process|cp|require\(\s*['"](?:node:)?child_process['"]\s*\))\.)(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|execa|execaSync)\b`,
  perl: String.raw`(?:\bsystem|\bexec)`,
  ruby: String.raw`(?:(?<![\w.])(?:system|exec|spawn)|\bKernel\.(?:system|exec|spawn)|\bProcess\.spawn|\bIO\.popen|\bOpen3\.\w+)`,
  php: String.raw`\b(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)`,
  awk: String.raw`\bsystem`,
};

/** Calls that delete a path, by language: `[pattern, recursive]`. */
const DELETERS: Record<string, Array<[string, boolean]>> = {
  python: [[String.raw`\bshutil\.rmtree`, true], [String.raw`\bos\.(?:remove|unlink|rmdir|removedirs)`, false]],
  node: [[String.raw`\b(?:fs|fsp|promises|fs\.promises|require\(\s*['"](?:node:)?fs(?:/promises)?['"]\s*\)(?:\.promises)?)\.(?:rmSync|rm|rmdirSync|rmdir)`, true], [String.raw`\b(?:rimraf(?:\.sync)?|rmSync|rimrafSync)`, true], [String.raw`\b(?:fs|require\(\s*['"](?:node:)?fs['"]\s*\))\.unlinkSync`, false]],
  perl: [[String.raw`\b(?:rmtree|remove_tree|File::Path::rmtree)`, true], [String.raw`\b(?:unlink|rmdir)`, false]],
  ruby: [[String.raw`\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|rmtree)`, true], [String.raw`\b(?:File\.(?:delete|unlink)|Dir\.(?:rmdir|delete|unlink)|FileUtils\.(?:rm|rm_f|remove))`, false]],
  php: [[String.raw`\b(?:rmdir|unlink)`, false]],
  awk: [],
};

const compiled = new Map<string, RegExp>();
function re(source: string): RegExp {
  let r = compiled.get(source);
  if (!r) compiled.set(source, (r = new RegExp(source, "g")));
  r.lastIndex = 0;
  return r;
}

/** A string literal's text: quotes and the common escapes removed. null for a template with `${…}`. */
function unquote(literal: string): string | null {
  const m = /^[rRbBuUfF]{0,2}(['"`])([\s\S]*)\1$/.exec(literal);
  if (!m) return null;
  if (m[1] === "`" && m[2]!.includes("${")) return null;
  const raw = /^[rR]/.test(literal);
  return raw ? m[2]! : m[2]!.replace(/\\(.)/g, (_s, c: string) => ({ n: "\n", t: "\t" })[c] ?? c);
}

/** The path argument of a delete call: a literal, or the home directory spelled in code. */
function pathArg(arg: string): string | null {
  if (new RegExp(`^${HOME_EXPR}$`).test(arg)) return '"$HOME"';
  const s = unquote(arg);
  return s === null ? null : shellQuote(s);
}

/** Shell command lines (and deletions, as `rm` lines) inside an interpreter's inline code. */
export function interpreterCommands(eff: Effective, stdin?: string): Embedded[] {
  const inline = interpreterCode(eff, stdin);
  if (!inline) return NONE;
  const { lang, code } = inline;
  const label = `${eff.name} ${lang === "awk" ? "program" : "inline code"}`;
  const out: Embedded[] = [];
  const push = (line: string, how: string) => {
    if (line.trim()) out.push({ code: literalWord(line), via: `${label} (${how})` });
  };
  // Runner(STRING) / Runner STRING, LIST / Runner(STRING, STRING, …) / Runner(PROG, [ARGS])
  // Only calls whose arguments are all literals (`system("rm " $1)` builds its line at run time: left alone).
  const call = re(String.raw`(${RUNNERS[lang]})\s*[({]?\s*(${LIST}|${STR}(?:\s*,\s*(?:${LIST}|${STR}))*)(?=\s*(?:[),;}\]]|$|\n|\bif\b|\bor\b|\band\b))`);
  for (let m = call.exec(code); m; m = call.exec(code)) {
    const items = [...m[2]!.matchAll(new RegExp(STR, "g"))].map((x) => unquote(x[0]));
    if (items.some((i) => i === null)) continue;
    const words = items as string[];
    // One string: a command line for the shell. Several: an argv (the program twice for exec*p / spawn list forms).
    const line = words.length === 1 ? words[0]! : words.map(shellQuote).join(" ");
    push(line, m[1]!.trim());
  }
  // Backticks and %x{} run a shell line in Perl, Ruby and PHP; qx too.
  if (lang === "perl" || lang === "ruby" || lang === "php") {
    for (const m of code.matchAll(/`([^`]*)`|%x\{([^}]*)\}|%x\(([^)]*)\)|\bqx\s*\{([^}]*)\}|\bqx\s*\(([^)]*)\)/g)) push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "", "backticks");
  }
  if (lang === "perl") {
    // Two-argument open with a pipe: `open(F, "cmd |")`, `open(F, "| cmd")`; three-argument `open(F, "-|", "cmd")`.
    for (const m of code.matchAll(new RegExp(String.raw`\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:['"][-|]{1,2}['"]\s*,\s*)?(${STR})`, "g"))) {
      const s = unquote(m[1]!);
      if (s !== null && (/^\s*\||\|\s*$/.test(s) || /['"][-|]{1,2}['"]\s*,/.test(m[0]))) push(s.replace(/^\s*\|\s*|\s*\|\s*$/g, ""), "open");
    }
  }
  if (lang === "awk") {
    // `print … | "cmd"` and `"cmd" | getline` run cmd through the shell.
    for (const m of code.matchAll(/\|\s*("(?:[^"\\]|\\.)*")(?=\s*(?:[;}\n]|$))|(?<=(?:^|[;{(\n])\s*)("(?:[^"\\]|\\.)*")\s*\|\s*getline/g)) {
      const s = unquote(m[1] ?? m[2]!);
      if (s !== null) push(s, "pipe");
    }
  }
  for (const [pattern, recursive] of DELETERS[lang] ?? []) {
    const del = re(String.raw`(${pattern})\s*\(?\s*(${ARG})(?=\s*[),;]|\s*$)`);
    for (let m = del.exec(code); m; m = del.exec(code)) {
      const path = pathArg(m[2]!);
      const rec = recursive && (lang !== "node" || /rimraf|rmtree/i.test(m[1]!) || /recursive\s*:\s*true/.test(code));
      if (path !== null) push(`rm ${rec ? "-rf" : "-f"} -- ${path}`, m[1]!.replace(/\s+/g, ""));
    }
  }
  return out;
}

/** A fork loop in inline code: a loop without end around fork()/spawn (`perl -e 'fork while 1'`). */
export function forkLoop(eff: Effective): string | null {
  const inline = interpreterCode(eff);
  if (!inline || inline.lang === "awk") return null;
  const c = inline.code;
  const loop = /\bwhile\s*\(?\s*(?:1|true|True|!0|fork\s*(?:\(\s*\))?)\s*\)?|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*(?:\{|do\b)|\buntil\s*\(?\s*(?:false|0)|\bfork\s+while\b|\bwhile\s+fork\b|\bsetInterval\s*\(/;
  const fork = /\bfork\b|\bspawn\b|\bPopen\b|\bexec\s*\(|\bpcntl_fork\b|\bProcess\.spawn\b|\bcluster\.fork\b|\bchild_process\b/;
  return loop.test(c) && fork.test(c) ? c.replace(/\s+/g, " ").slice(0, 60) : null;
}
