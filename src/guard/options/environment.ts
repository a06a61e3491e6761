// Environment variables and tool configuration files: what a command may set without asking. A variable
// handed to a program (`VAR=x cmd`, `export`, `env VAR=x`, `declare -x`) can turn a read-only program into
// code execution (PAGER, GIT_*, NODE_OPTIONS, LD_PRELOAD, BASH_ENV, …), so only a positive list of
// harmless ones passes. A shell variable that is not exported matters only through the names bash reads
// and the names an environment exports to tools: those ask, the rest (`dir=src`, `N=3`) pass.

import { DYN, variableOf, type Command, type Word } from "../facts.ts";
import type { Effective } from "../wrappers.ts";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_PATHS } from "../../lib/protected.ts";
import { braceWords } from "../braces.ts";

/** Exported variables known to change nothing but formatting, locale, colour and test mode. */
export const HARMLESS_ENV = new Set([
  "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "TZ", "COLUMNS", "LINES",
  "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "CI", "NODE_ENV", "DEBUG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
  "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8", "RUST_BACKTRACE", "RUST_LOG", "CARGO_TERM_COLOR", "SOURCE_DATE_EPOCH", "GREP_COLOR",
  "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "QUOTING_STYLE",
]);

/** Lower-case names that programs read from the environment all the same. */
const LOWER_ENV = /^(?:npm_config_|npm_package_|yarn_|pnpm_)|^(?:http|https|ftp|all|no|socks)_proxy$/i;

const DECLARE = new Set(["declare", "typeset", "local", "readonly"]);

/** Words of `cmd.argv` before the effective program: `env A=1 B=2` assignments among them. */
function wrapperAssignments(cmd: Command, eff: Effective): Word[] {
  const start = cmd.argv.length - eff.argv.length;
  return cmd.argv.slice(0, Math.max(0, start)).filter((w) => /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(w.value));
}

/** The first variable the command sets that is not known harmless, or null. */
export function riskyVariable(cmd: Command, eff: Effective): string | null {
  // `builtin declare x=1`, `command local x`: the declaration builtin behind the wrapper.
  const program = eff.name !== null && DECLARE.has(eff.name) ? eff.name : cmd.argv[0]?.value;
  const exported =
    (cmd.argv.length > 0 && program !== undefined && !DECLARE.has(program)) || // `VAR=x cmd`, `export VAR=x`
    (program !== undefined && DECLARE.has(program) && cmd.argv.some((w) => /^-[a-zA-Z]*x/.test(w.value))); // `declare -x`
  for (const a of cmd.assignments) {
    if (exported ? !HARMLESS_ENV.has(variableOf(a.name) ?? "") : !harmlessShellVariable(a.name)) return a.name;
  }
  for (const name of cmd.shellAssigns ?? []) if (!harmlessShellVariable(name)) return name;
  for (const name of cmd.exports ?? []) if (!HARMLESS_ENV.has(variableOf(name) ?? "")) return name;
  // No words before the program (no `env`, no wrapper): nothing below to look at (most commands; it ran on every one).
  if (cmd.argv.length <= eff.argv.length) return null;
  for (const w of wrapperAssignments(cmd, eff)) {
    const name = w.value.slice(0, w.value.indexOf("=")).replace(/\+$/, "");
    if (!HARMLESS_ENV.has(name)) return name;
  }
  return envUnsets(cmd.argv.slice(0, Math.max(0, cmd.argv.length - eff.argv.length)));
}

/**
 * `env -u NAME` unsets a variable as `unset NAME` does, and `env -i` (`-`, `--ignore-environment`) all of them, the
 * runtime's own settings too (GIT_OPTIONAL_LOCKS=0, PAGER=cat, GIT_TERMINAL_PROMPT=0): judged like `unset NAME`.
 */
function envUnsets(prefix: readonly Word[]): string | null {
  for (let i = prefix.findIndex((w) => /(?:^|\/)env$/.test(w.value)) + 1; i > 0 && i < prefix.length; i++) {
    const v = prefix[i]!.value;
    if (v === "--" || !v.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(v)) break;
    let name: string | undefined;
    if (v.startsWith("--")) {
      const [opt, value] = [v.slice(2).split("=")[0]!, v.includes("=") ? v.slice(v.indexOf("=") + 1) : undefined];
      if (opt.length > 0 && "ignore-environment".startsWith(opt)) return "env --ignore-environment";
      if (opt.length > 0 && "unset".startsWith(opt)) name = value ?? prefix[++i]?.value;
      else if (value === undefined && /^(?:chdir|split-string|argv0)$/.test(opt)) i++;
    } else {
      // a short bundle: -i and -0 take nothing; -u, -C, -S and -a take the rest of the word or the next one
      const m = /^-([i0v]*)(?:([uCSa])(.*))?$/.exec(v);
      if (v === "-" || m?.[1]!.includes("i")) return `env ${v}`;
      if (m?.[2]) {
        const value = m[3] || prefix[++i]?.value;
        if (m[2] === "u") name = value;
      }
    }
    if (name !== undefined && !harmlessShellVariable(name)) return name;
  }
  return null;
}

/**
 * Names bash itself reads (PATH, IFS, PS4, PROMPT_COMMAND, HOME, CDPATH, HIST*, BASH_*, TEXTDOMAIN*: the catalog
 * whose translations of $"…" strings bash expands again…) and names an
 * environment usually exports to tools (GIT_*, LD_*, NODE_*, PAGER, EDITOR, *_OPTIONS, proxies…): setting
 * one changes what later commands do even without `export`.
 */
const SHELL_OR_TOOL =
  /^(?:BASH\w*|SHELLOPTS|ENV|IFS|PATH|HOME|CDPATH|PWD|OLDPWD|PS[0-4]|PROMPT_\w+|HIST\w*|GLOBIGNORE|EXECIGNORE|FIGNORE|FUNCNEST|HOSTFILE|INPUTRC|MAIL\w*|TMPDIR|TMOUT|SHELL|TERM\w*|OPTIND|OPTERR|POSIXLY_CORRECT|COMP\w*|READLINE\w*|TEXTDOMAIN\w*|TIMEFORMAT|USER|LOGNAME|EDITOR|VISUAL|\w*PAGER|GIT_\w+|LD_\w+|NODE_\w+|NPM_\w+|PYTHON\w*|PERL\w*|RUBY\w*|JAVA_\w*|_JAVA_OPTIONS|CLASSPATH|GEM_\w+|BUNDLE_\w+|CARGO_\w+|RUSTC\w*|RUSTFLAGS|GO\w+|CC|CXX|CFLAGS|LDFLAGS|MAKE\w*|DOCKER_\w+|SSH_\w+|GPG_\w+|GNUPGHOME|XDG_\w+|DISPLAY|LESS\w*|MORE|RIPGREP_\w+|GREP_OPTIONS|\w*_PROXY|\w*_OPTIONS|\w*_OPTS|\w*_CONFIG\w*)$/;

/**
 * A variable the shell keeps to itself (a bare `x=1`, `local`, `declare` without -x): one no program sees
 * unless the environment already exports it, and bash does not read.
 */
export function harmlessShellVariable(name: string): boolean {
  if (name.includes(DYN)) return false;
  // `read PAT{H,}` fills PATH: brace expansion makes several names of one word, each judged.
  if (name.includes("{")) {
    const names = braceWords(name);
    if (names === null) return false;
    if (names.length > 1 || names[0] !== name) return names.every(harmlessShellVariable);
  }
  // A name bash refuses (`read 'REPLY?x'`: not a valid identifier) sets nothing; judged by its leading name all the same.
  const base = variableOf(name) ?? /^[A-Za-z_][A-Za-z0-9_]*/.exec(name)?.[0] ?? null;
  if (base === null) return false;
  return HARMLESS_ENV.has(base) || (!SHELL_OR_TOOL.test(base) && !LOWER_ENV.test(base));
}

/**
 * Files that configure what later commands do: writing one asks, like any change to what runs next. They are the
 * files the OS sandbox keeps read-only because a program the person runs reads them (src/lib/protected.ts: shell
 * startup files, git's, ripgrep's, .mcp.json, pre-commit's, direnv's), and the configuration of tools an agent runs
 * here: HOME is the workspace in the node runtime, so its dot files are the user-wide configuration of every program
 * the shell starts (gdb, bun, mercurial, tmux, less, python's `sitecustomize`). `config` and `HEAD` are there because
 * a directory holding them (with `objects/` and `refs/`) is a git repository to git, wherever it is: `cd r && git
 * branch` then runs r/config's core.pager. Compared in lower case, as the sandbox does.
 */
const CONFIG_FILES = new Set([
  ...PROTECTED_FILES,
  "config", "head", "commondir", "package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".rgrc", ".gitattributes",
  ".bash_login", ".bash_logout", ".zshenv", ".inputrc", ".curlrc", ".wgetrc",
  ".netrc", "pip.conf", ".pypirc", ".pdbrc", ".lesskey", ".vimrc", ".exrc", ".editrc", "bunfig.toml", ".bunfig.toml", ".mocharc.js",
  ".bazelrc", ".gdbinit", ".hgrc", ".tmux.conf", "sitecustomize.py", "usercustomize.py",
  // Read from HOME at a program's start and able to run commands or code: psql's `\!`, irb/pry/R code, PYTHONSTARTUP's
  // usual name, Debian's .bashrc sources .bash_aliases; gem's and terraform's name plugins and hooks. (sqlite3 finds
  // its .sqliterc through the password database, not HOME.)
  ".psqlrc", ".irbrc", ".pryrc", ".rprofile", ".pythonrc", ".pythonrc.py", ".bash_aliases", ".gemrc", ".terraformrc", ".condarc",
  // man-db's user configuration: its DEFINE lines name the programs man runs (`DEFINE tbl touch F`).
  ".manpath",
]);

/**
 * Folders whose every file configures something that runs later: the sandbox's (editor settings and tasks, a dev
 * container, an agent's commands and subagents), git's own, husky's hooks, Claude Code's settings and the hook
 * scripts they name, the XDG configuration folder as a whole (git, fish, less, npm, pip, …), ssh's, cargo's,
 * direnv's, and those whose config names a program to run (docker's credsStore, gpg-agent's pinentry-program,
 * kubectl's exec credential plugin, aws's credential_process, a terminal description's `iprog`, which ncurses'
 * `reset` runs: ~/.terminfo is read before the system's descriptions).
 */
const CONFIG_DIRS = [...PROTECTED_DIRS, ".git", ".husky", ".claude", ".config", ".ssh", ".cargo", ".direnv", ".docker", ".gnupg", ".kube", ".aws", ".terminfo"];

/** A `.pth` file in a folder python scans at start: a line of it that begins with `import` runs at every start. */
const PTH = /\/(?:site|dist)-packages\/[^/]*\.pth$/;

/** One element of a glob part: `*`, or a test of one character. */
type GlobToken = "*" | ((c: string) => boolean);

/**
 * One part of a glob (no `/`), for matching names in lower case as they are compared. `*` and `?` match a leading dot
 * too (`shopt -s dotglob` is allowed unasked); `[…]` is a class; a class the guard does not translate (negated,
 * `[[:alpha:]]`, a reversed range) matches any one character.
 */
function globPart(part: string): GlobToken[] {
  const out: GlobToken[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === "*") {
      if (out[out.length - 1] !== "*") out.push("*");
    } else if (c === "?") out.push(() => true);
    else if (c === "[") {
      // bash: a `]` first in the class (after `!` or `^`) is one of its characters; no closing `]`: a plain `[`.
      let j = i + 1;
      if (part[j] === "!" || part[j] === "^") j++;
      if (part[j] === "]") j++;
      const close = part.indexOf("]", j);
      if (close < 0) {
        out.push((x) => x === "[");
        continue;
      }
      const body = part.slice(i + 1, close).toLowerCase();
      i = close;
      if (/^[!^]|\[[:=.]/.test(body)) {
        out.push(() => true);
        continue;
      }
      const ranges: Array<[string, string]> = [];
      for (let k = 0; k < body.length; k++) {
        if (body[k + 1] === "-" && k + 2 < body.length) {
          if (body[k]! > body[k + 2]!) ranges.push(["\u0000", "\uffff"]);
          else ranges.push([body[k]!, body[k + 2]!]);
          k += 2;
        } else ranges.push([body[k]!, body[k]!]);
      }
      out.push((x) => ranges.some(([lo, hi]) => x >= lo && x <= hi));
    } else {
      const lower = c.toLowerCase();
      out.push((x) => x === lower);
    }
  }
  return out;
}

/** `name` (lower case) matches the glob part `tokens`: linear in both lengths, whatever the stars. */
function globMatches(tokens: readonly GlobToken[], name: string): boolean {
  // Each token but `*` takes one character, and no two stars are adjacent: a longer part cannot match.
  if (tokens.length > 2 * name.length + 1) return false;
  // can[j]: the tokens so far can match name.slice(0, j).
  let can = new Array<boolean>(name.length + 1).fill(false);
  can[0] = true;
  for (const t of tokens) {
    const next = new Array<boolean>(name.length + 1).fill(false);
    for (let j = 0; j <= name.length; j++) {
      if (t === "*") next[j] = can[j]! || (j > 0 && next[j - 1]!);
      else next[j] = j > 0 && can[j - 1]! && t(name[j - 1]!);
    }
    can = next;
  }
  return can[name.length]!;
}

/** The glob `parts` can match the consecutive names `names` somewhere, ending at the last part when `atEnd`. */
function partsMatch(parts: readonly GlobToken[][], names: readonly string[], atEnd: boolean): boolean {
  const last = parts.length - names.length;
  for (let start = atEnd ? Math.max(last, 0) : 0; start <= last; start++) {
    if (names.every((n, k) => globMatches(parts[start + k]!, n))) return true;
  }
  return false;
}

/**
 * `pattern` (absolute, with unquoted glob characters) may name a tool's configuration: bash writes to the one
 * existing name a glob in a redirection or file operand matches, so `> .gi[t]/config` and `>> .bashr[c]` write the
 * config file the literal spelling names. Each part of the glob is matched against the known names and folders; a
 * globbed file in a folder that may be site-packages may be a `.pth`.
 */
export function globMayBeConfig(pattern: string): boolean {
  const parts = pattern.split("/").filter((p) => p !== "").map(globPart);
  if (parts.length === 0) return false;
  const last = parts[parts.length - 1]!;
  if ([...CONFIG_FILES].some((n) => globMatches(last, n))) return true;
  if (PROTECTED_PATHS.some((p) => partsMatch(parts, p.split("/"), true))) return true;
  if (CONFIG_DIRS.some((d) => partsMatch(parts.slice(0, -1), d.split("/"), false) || partsMatch(parts, d.split("/"), true))) return true;
  const name = pattern.slice(pattern.lastIndexOf("/") + 1);
  const pth = /[*?[]/.test(name) || /\.pth$/i.test(name);
  return pth && parts.slice(0, -1).some((p) => globMatches(p, "site-packages") || globMatches(p, "dist-packages"));
}

/** `path` (absolute) is a tool's configuration, a git repository's internals or a hook. */
export function isConfigPath(path: string): boolean {
  const lower = path.toLowerCase();
  const base = lower.slice(lower.lastIndexOf("/") + 1);
  if (CONFIG_FILES.has(base) || PTH.test(lower)) return true;
  if (PROTECTED_PATHS.some((p) => lower.endsWith(`/${p}`))) return true;
  return CONFIG_DIRS.some((d) => lower.endsWith(`/${d}`) || lower.includes(`/${d}/`));
}
