// Option specs of shell builtins and lookups that only touch the shell itself. Builtins that change what
// later commands do (alias, trap, hash -p, enable, shopt -s expand_aliases, history -w FILE) are not
// here: layer 3's shell-state row asks for them.

import type { Word } from "../facts.ts";
import { harmlessShellVariable } from "./environment.ts";
import { declareChanges, setChanges, shoptChanges } from "./shell-options.ts";
import type { ProgramSpec } from "./spec.ts";

/** `export "$a=x"`, `declare $n`: a variable whose name is computed at run time may be PATH or PAGER. */
function computedName(operands: readonly Word[]): string | null {
  const w = operands.find((o) => o.dynamic && !/^[A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?\+?=/.test(o.value));
  return w ? `the variable name in ${w.raw} is computed at run time` : null;
}

/** `read PATH`, `printf -v IFS`: the variables a builtin sets must be ones the shell keeps to itself. */
function riskyTarget(names: readonly Word[]): string | null {
  const w = names.find((o) => o.dynamic || !harmlessShellVariable(o.value));
  return w ? `it sets ${w.raw}, which may change what later commands run` : null;
}


export const SHELL_BUILTINS: ProgramSpec[] = [
  {
    names: ["echo"],
    short: "",
    long: [],
    // bash's echo prints an option it does not know (`echo --help` prints --help).
    anyArguments: true,
    operands: ["text"],
    reason: "echo only prints",
    examples: ["echo hi", "echo -n x", "echo --output=/etc/x"],
    nearMisses: [],
  },
  {
    names: ["true", "false", ":", "test", "[", "expr", "let", "return", "exit", "shift"],
    short: "",
    long: [],
    anyArguments: true,
    operands: ["text"],
    reason: "shell-local: tests and arithmetic",
    examples: ["true", "test -f x", "[ -d src ]", "expr 1 + 2", "exit 0"],
    nearMisses: [],
  },
  {
    names: ["set"],
    short: "",
    long: [],
    // `set` takes `+x` as well as `-x`, and `-o NAME`: src/guard/options/shell-options.ts reads them.
    parse: (args) => ({ ok: true, opts: [], operands: [...args] }),
    operands: ["text"],
    check: (p) => setChanges(p.operands),
    reason: "sets shell options that leave the rules the guard follows alone, or the positional parameters",
    examples: ["set -euo pipefail", "set -x", "set +e", "set -- a b", "set -o noclobber", "set +a", "set -o", "set"],
    nearMisses: ["set -k", "set -o keyword", "set -a", "set -o allexport", "set -P", "set -o posix", "set +o interactive-comments", "set -euk"],
  },
  {
    names: ["printf"],
    short: "v:",
    long: [],
    stopAtOperand: true,
    // A word the guard cannot see before the first operand may be an option: `printf $X` with X=`-v PATH /tmp/x` sets PATH.
    riskyOptions: true,
    operands: ["text"],
    check: (p) => riskyTarget(p.opts.filter((o) => o.name === "v").map((o) => o.value!)),
    reason: "printf only prints (or sets a variable with -v)",
    examples: ["printf '%s\\n' a b", "printf -v x %d 3", "printf '%s\\n' --verbose", "printf '%s\\n' -x", "printf '%s\\n' \"$x\" $y"],
    nearMisses: ["printf -Z x", "printf -v PATH /tmp", "printf -v \"$n\" x", "read -r X < f; printf $X", "printf \"$X\" /tmp/evil"],
  },
  {
    names: ["pwd"],
    short: "LP",
    long: [],
    stopAtOperand: true,
    operands: [],
    reason: "pwd only prints",
    examples: ["pwd", "pwd -P"],
    nearMisses: ["pwd -x"],
  },
  {
    names: ["cd", "pushd", "popd", "dirs"],
    short: "LPe@cplvn",
    long: [],
    stopAtOperand: true,
    numeric: true,
    operands: ["text"],
    reason: "cd changes only the shell's directory (layer 2 judges where)",
    examples: ["cd src", "cd -P src", "cd"],
    nearMisses: ["cd -Z x"],
  },
  {
    names: ["which"],
    short: "as",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    reason: "a lookup",
    examples: ["which node", "which -a python3"],
    nearMisses: ["which -x node"],
  },
  {
    names: ["whereis"],
    short: "bmsulBMSf",
    long: [],
    operands: ["text"],
    reason: "a lookup",
    examples: ["whereis ls"],
    nearMisses: ["whereis -x ls"],
  },
  {
    names: ["type"],
    short: "afptP",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    reason: "a lookup",
    examples: ["type ls", "type -a node"],
    nearMisses: ["type -x ls"],
  },
  {
    names: ["help"],
    short: "dms",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    reason: "prints help",
    examples: ["help cd"],
    nearMisses: ["help -x"],
  },
  {
    names: ["export"],
    short: "fnp",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    check: (p) => computedName(p.operands),
    reason: "export marks variables (the environment row judges which)",
    examples: ["export LANG=C", "export -p"],
    nearMisses: ["export -x A", "export \"$a=x\""],
  },
  {
    names: ["declare", "typeset", "local", "readonly"],
    short: "aAfFgiIlnprtux",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    check: (p, args) => computedName(p.operands) ?? declareChanges("declare", args),
    reason: "declares shell variables (the environment row judges exported ones)",
    examples: ["declare -a arr", "local x=1", "readonly N=3", "declare -p", "declare -A map", "declare +i x"],
    nearMisses: ["declare -Z x", "declare \"$n=x\"", "local $n", "declare -i x", "typeset -i n=3", "declare -n r=PATH", "local -n r", "declare -u x", "declare -ai x"],
  },
  {
    names: ["unset"],
    short: "fvn",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    reason: "removes shell variables",
    examples: ["unset x", "unset -f f"],
    nearMisses: ["unset -x y"],
  },
  {
    names: ["read"],
    short: "ersa:d:i:n:N:p:t:u:",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    check: (p) => riskyTarget([...p.operands, ...p.opts.filter((o) => o.name === "a").map((o) => o.value!)]),
    reason: "reads a line into variables",
    examples: ["read x", "read -r -p 'ok? ' a", "read -a arr"],
    nearMisses: ["read -Z x", "read PATH", "read -r IFS", "read -a PS4"],
  },
  {
    names: ["wait"],
    short: "fnp:",
    long: [],
    stopAtOperand: true,
    // A word the guard cannot see before the first operand may be an option: `wait $X` with X=`-n -p PATH` sets PATH.
    riskyOptions: true,
    operands: ["text"],
    check: (p) => riskyTarget(p.opts.filter((o) => o.name === "p").map((o) => o.value!)),
    reason: "waits for jobs (and with -p sets a variable to the job's id)",
    examples: ["wait", "wait -n", "wait -n -p pid"],
    nearMisses: ["wait -x", "wait -p PATH", "wait -p \"$1\"", "wait -p 'PS4[0]'", "read -r X < f; wait $X"],
  },
  {
    names: ["jobs"],
    short: "lnprsx",
    long: [],
    stopAtOperand: true,
    // A word the guard cannot see before the first operand may be an option: `jobs $X` with X=`-x touch F` runs touch.
    riskyOptions: true,
    operands: ["text"],
    check: (p) => (p.opts.some((o) => o.name === "x") ? "jobs -x runs a command" : null),
    reason: "lists jobs",
    examples: ["jobs", "jobs -l"],
    nearMisses: ["jobs -x rm x", "read -r X < f; jobs $X"],
  },
  {
    names: ["clear", "reset"],
    short: "T:xV",
    long: [],
    operands: [],
    reason: "clears the screen",
    examples: ["clear"],
    nearMisses: ["clear -Z"],
  },
  {
    names: ["unalias"],
    short: "a",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    reason: "removes aliases",
    examples: ["unalias ll"],
    nearMisses: ["unalias -x"],
  },
  {
    names: ["hash"],
    short: "dlrt",
    long: [],
    stopAtOperand: true,
    // A word the guard cannot see before the first operand may be an option: `hash $X` with X=`-p ./x ls` makes `ls` run ./x.
    riskyOptions: true,
    operands: ["text"],
    reason: "lists or forgets remembered program paths (hash -p, which plants one, is not listed)",
    examples: ["hash", "hash -r"],
    nearMisses: ["hash -p /tmp/x ls", "read -r X < f; hash $X"],
  },
  {
    names: ["history"],
    short: "cd:anrwps",
    long: [],
    stopAtOperand: true,
    // A word the guard cannot see before the first operand may be an option: `history $X` with X=`-w /var/tmp/x` writes a file.
    riskyOptions: true,
    numeric: true,
    operands: ["text"],
    check: (p) => (p.opts.some((o) => "anrwps".includes(o.name)) ? "history -a/-n/-r/-w/-p/-s reads, writes or rewrites the history" : null),
    reason: "shows or clears the history",
    examples: ["history", "history 20", "history | grep git", "history -c"],
    nearMisses: ["history -w /tmp/x", "history -s 'rm -rf x'", "read -r X < f; history $X"],
  },
  {
    names: ["shopt"],
    short: "opqsu",
    long: [],
    stopAtOperand: true,
    operands: ["text"],
    check: (_p, args) => shoptChanges(args),
    reason: "sets globbing and matching options",
    examples: ["shopt -s globstar", "shopt -s dotglob", "shopt", "shopt -u nullglob", "shopt -p extglob", "shopt -o -s pipefail", "shopt -s extglob"],
    nearMisses: [
      "shopt -s nullglob", "shopt -s nullglob dotglob", "shopt -s expand_aliases", "shopt -s extdebug", "shopt -s cdable_vars", "shopt -s lastpipe", "shopt -s xpg_echo", "shopt -s autocd",
      "shopt -u interactive_comments", "shopt -u globskipdots", "shopt -so keyword", "shopt -s -o allexport", "shopt -s compat31",
    ],
  },
];
