// Shell options and variable attributes that change how bash reads or runs the commands after them. The
// guard follows bash's default rules (comments, word splitting, where `cd` goes, what is exported); an
// option that changes those rules makes every later verdict a guess, so only options positively known to
// leave them alone are set unasked. Everything else is shell state (layer 3 `shell-state`: ask under
// balanced, refused under strict).
//
//   set -k / -o keyword        `cmd A=1` puts A=1 in cmd's environment: `git status GIT_CONFIG_…=…` runs code
//   set -a / -o allexport      every later `x=…` is exported: a plain shell variable reaches programs
//   set -P / -o physical       `cd dir/..` follows symlinks: the directory is not where the text says
//   set -o posix               changes parsing and expansion rules
//   +o interactive-comments    `#` stops starting a comment: `ls # ; rm -rf /` runs rm
//   shopt -s cdable_vars       `cd x` goes to $x when there is no directory x
//   shopt -s lastpipe          the last stage of a pipeline runs in this shell: its `cd` and assignments stay
//   shopt -s xpg_echo          echo decodes backslashes: `echo 'r\x6d -rf /' | sh`
//   shopt -s autocd            a directory name alone is a `cd`
//   shopt -u globskipdots      `.*` matches `..`
//   shopt -s nullglob          a glob that matches nothing vanishes: the next word becomes an option's value
//   set -H / -o histexpand     `!#:1`, `!$` make bash run another line than the one checked
//   set -t / -o onecmd         the session's shell exits after the next command
//   set -b, set +m             job reports interleave with output; job control the session uses stops
//   shopt -u promptvars        the session's prompt strings stop expanding their end markers
//   shopt -s cdspell/dirspell  `cd /ect` goes to /etc: not the directory the text names
//   declare -i x               every later `x=…` is arithmetic: `x='a[$(cmd)]'` runs cmd
//   declare -n r=PATH          every later `r=…` sets PATH
//   declare -l / -u x          every later value of x is case-converted

import type { Word } from "../facts.ts";

/** `set` option letters that change nothing the guard relies on, whether turned on (`-e`) or off (`+e`). */
const SAFE_SET_LETTERS = new Set([..."BCeEfhnpTuvx"]);
/** Letters that are harmless to turn off (`set +a`) but change the rules when turned on. */
const OFF_ONLY_LETTERS = new Set([..."abHkPt"]);
/** Letters that are harmless to turn on but not off: `set +m` stops job control the session relies on. */
const ON_ONLY_LETTERS = new Set([..."m"]);

/** `set -o NAME` options that change nothing the guard relies on, on or off. */
const SAFE_SET_NAMES = new Set([
  "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "ignoreeof", "noclobber",
  "noexec", "noglob", "nolog", "nounset", "pipefail", "privileged", "verbose", "xtrace",
]);
/** Names harmless in one direction only: on (`-o`) for these, off (`+o`) for the others. */
const SAFE_SET_ON = new Set(["interactive-comments", "monitor", "history"]);
const SAFE_SET_OFF = new Set(["allexport", "keyword", "physical", "posix", "vi", "histexpand", "onecmd", "notify"]);

function setName(name: string, on: boolean): string | null {
  if (SAFE_SET_NAMES.has(name) || (on ? SAFE_SET_ON : SAFE_SET_OFF).has(name)) return null;
  return `${on ? "set -o" : "set +o"} ${name}`;
}

/** What a `set` command changes that the guard's reading of later commands relies on, or null. */
export function setChanges(args: readonly Word[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic) return `set ${w.raw} (an option computed at run time)`;
    if (v === "--" || v === "-") return null; // the rest are positional parameters
    if (!/^[-+]/.test(v) || v.length < 2) return null; // `set a b`: positional parameters
    const on = v[0] === "-";
    for (const c of v.slice(1)) {
      if (c === "o") {
        const name = args[i + 1];
        // As bash 5 reads it: `o` takes the next word as its option name unless there is none or it is empty or
        // starts with - or +; then it lists the options and goes on with the rest of the bundle (`set -oH` turns
        // history expansion on) and the next word stays an option word (`set -o -H`) or positional parameter.
        if (name?.dynamic) return `set ${v[0]}o ${name.raw} (an option computed at run time)`;
        if (!name || name.value === "" || /^[-+]/.test(name.value)) continue;
        const changed = setName(name.value, on);
        if (changed) return changed;
        i++;
        continue;
      }
      if (SAFE_SET_LETTERS.has(c) || (on ? ON_ONLY_LETTERS : OFF_ONLY_LETTERS).has(c)) continue;
      return `set ${v[0]}${c}`;
    }
  }
  return null;
}

/** shopt options that only change globbing, matching, completion or history: known safe to turn on. */
export const SAFE_SHOPT_ON = new Set([
  "checkhash", "checkjobs", "checkwinsize", "cmdhist", "direxpand", "dotglob", "extquote",
  "force_fignore", "globasciiranges", "globskipdots", "globstar", "gnu_errfmt", "histappend", "histreedit", "histverify",
  "hostcomplete", "inherit_errexit", "interactive_comments", "lithist", "mailwarn",
  "no_empty_cmd_completion", "nocaseglob", "nocasematch", "noexpand_translation", "patsub_replacement", "progcomp",
  "progcomp_alias", "promptvars", "shift_verbose", "sourcepath", "varredir_close", "complete_fullquote",
  // `?(x)`, `*(x)`, `+(x)`, `@(x)`, `!(x)`: without extglob bash refuses such a line as a syntax error, with it they are
  // patterns, as tree-sitter (and so the guard) always reads them. Turning it on makes bash agree with the guard.
  "extglob",
]);

/**
 * shopt options known safe to turn off: all of the above but those whose default protects a rule the guard relies
 * on (promptvars: the session's prompt strings expand their markers).
 */
const UNSAFE_OFF = new Set(["interactive_comments", "globskipdots", "extquote", "patsub_replacement", "promptvars"]);

/**
 * Options that change the rules when on (or are on only in special shells): turning them off is safe. cdspell and
 * dirspell send `cd` to a directory the text does not name; failglob,
 * execfail, huponexit and localvar_* change which commands run or what a variable holds.
 */
const SAFE_OFF = new Set([
  "autocd", "assoc_expand_once", "cdable_vars", "compat31", "compat32", "compat40", "compat41", "compat42", "compat43", "compat44",
  "expand_aliases", "extdebug", "lastpipe", "xpg_echo", "login_shell", "restricted_shell",
  "cdspell", "dirspell", "extglob", "failglob", "execfail", "huponexit", "localvar_inherit", "localvar_unset",
  // A glob that matches nothing is no word at all: the word after it takes its place (`sort -o x[y] .git/config`
  // writes .git/config, `sed -n -e s/a*/b/ '1e …' f` runs the `e`), where the guard reads the glob as the word.
  "nullglob",
]);

/** What a `shopt` command changes that the guard's reading of later commands relies on, or null. */
export function shoptChanges(args: readonly Word[]): string | null {
  let on: boolean | null = null;
  let setNames = false;
  const names: Word[] = [];
  for (const w of args) {
    const v = w.value;
    if (w.dynamic) return `shopt ${w.raw} (an option computed at run time)`;
    if (/^-[a-z]+$/.test(v)) {
      for (const c of v.slice(1)) {
        if (c === "s") on = true;
        else if (c === "u") on = false;
        else if (c === "o") setNames = true;
      }
    } else names.push(w);
  }
  if (on === null) return null; // `shopt`, `shopt -p x`, `shopt -q x`: only prints or tests
  for (const w of names) {
    if (setNames) {
      const changed = setName(w.value, on);
      if (changed) return changed;
    } else if (on ? !SAFE_SHOPT_ON.has(w.value) : UNSAFE_OFF.has(w.value) || !(SAFE_SHOPT_ON.has(w.value) || SAFE_OFF.has(w.value))) {
      return `shopt ${on ? "-s" : "-u"} ${w.value}`;
    }
  }
  return null;
}

/** declare/typeset/local attributes that change what every later assignment to the variable does. */
const ATTRIBUTES: Record<string, string> = {
  i: "makes every later assignment to it arithmetic, which runs the code in a subscript",
  n: "makes it a reference: every later assignment sets the variable it names",
  l: "lower-cases every later value",
  u: "upper-cases every later value",
};

/** What a declare/typeset/local command does to later assignments, or null. Only `-X` turns one on; `+X` turns it off. */
export function declareChanges(name: string, args: readonly Word[]): string | null {
  for (const w of args) {
    const v = w.value;
    if (v === "--") break;
    if (!/^-[a-zA-Z]+$/.test(v)) continue;
    for (const c of v.slice(1)) if (ATTRIBUTES[c]) return `${name} -${c} ${ATTRIBUTES[c]}`;
  }
  return null;
}
