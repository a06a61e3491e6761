// Programs that run code handed to them (shells, language interpreters, eval, source), fetch it from the
// network, or decode it back into something runnable; where an interpreter takes its program from (an option,
// a file, stdin, a descriptor, a socket), as a table of each family's options; the code of `bash -c` and `eval`.

import { DYN, type Word } from "./facts.ts";
import { resolvePath } from "./paths.ts";
import type { Effective } from "./wrappers.ts";

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
  const name = eff.name;
  // Most commands run no interpreter: answered before `out` is made (a closure per call, named by tsx's keepNames).
  if (name === null || !isInterpreter(name)) return { source: "none", interactive: null };
  let interactive: string | null = null;
  const out = (source: ProgramSource) => ({ source, interactive });
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
