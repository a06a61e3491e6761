// What a wrapper does besides running its command: files it writes or reads itself (`nohup` → ./nohup.out, `time -o FILE`,
// `strace -o FILE`, `flock FILE`, `script FILE`, `parallel --joblog FILE`), the directory it runs the
// command in (`env -C DIR`, `sudo -D DIR`, `unshare --wd DIR`), and command lines in its options
// (`strace -o '|CMD'`). Layer 2 judges those files like the command's own; layer 3 lets a command run
// unasked through a wrapper only when the wrapper is one that leaves the command as it is.

import type { Word } from "./facts.ts";
import { parseArgs } from "./argv.ts";

export interface WrapperEffects {
  writes: Word[];
  reads: Word[];
  /** The directory the command runs in, when the wrapper moves it there. */
  chdir: Word | null;
  /** Command lines the wrapper itself runs. */
  code: Word[];
}

/**
 * Wrappers that leave the command they run as it is (their file options still go to layer 2): through
 * these, a known-safe command stays known safe. Tracers, namespaces, new roots, locks, terminals, other
 * users and `exec` (which replaces the shell) are not among them: through those a command asks.
 */
export const TRANSPARENT_WRAPPERS = new Set(["nohup", "nice", "timeout", "stdbuf", "ionice", "chrt", "taskset", "setsid", "command", "builtin", "time", "xargs", "env", "busybox"]);

const NONE: WrapperEffects = { writes: [], reads: [], chdir: null, code: [] };

function value(p: { values: Map<string, Word> }, ...keys: string[]): Word | undefined {
  for (const k of keys) {
    const v = p.values.get(k);
    if (v) return v;
  }
  return undefined;
}

function files(writes: (Word | undefined)[], reads: (Word | undefined)[] = []): WrapperEffects {
  return { ...NONE, writes: writes.filter((w): w is Word => w !== undefined), reads: reads.filter((w): w is Word => w !== undefined) };
}

/** The effects of wrapper `name` given its own arguments (up to and including its command). */
export function wrapperEffects(name: string, args: readonly Word[]): WrapperEffects {
  switch (name) {
    case "nohup":
      // When its output is a terminal (the session's is), nohup appends it to ./nohup.out (or ~/nohup.out).
      return files([{ raw: "nohup.out", value: "nohup.out", dynamic: false, glob: false }]);
    case "time": {
      const p = parseArgs(args, "fo", ["format", "output"], true);
      return files([value(p, "o", "output")]);
    }
    case "strace":
    case "ltrace": {
      const p = parseArgs(args, "eopsuaEIOSPXAbDFlnLx", ["output", "trace", "signal", "user", "env", "string-limit"], true);
      const out = value(p, "o", "output");
      // `-o '|CMD'` or `-o '!CMD'` pipes the trace to a command.
      if (out && /^[|!]/.test(out.value)) return { ...NONE, code: [{ ...out, value: out.value.slice(1) }] };
      return files([out]);
    }
    case "flock": {
      const p = parseArgs(args, "wE", ["timeout", "conflict-exit-code"], true);
      const lock = p.rest[0];
      return files([lock && !/^\d+$/.test(lock.value) ? lock : undefined]);
    }
    case "script": {
      const p = parseArgs(args, "cEIOBTm", ["command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"], false);
      return files([p.operands[0], value(p, "O", "log-out"), value(p, "B", "log-io"), value(p, "T", "log-timing"), value(p, "I", "log-in")]);
    }
    case "parallel": {
      const p = parseArgs(args, "jSdEIXNLlnPaC", ["jobs", "sshlogin", "delimiter", "eof", "max-args", "max-lines", "arg-file", "colsep", "workdir", "tmpdir", "results", "joblog", "basefile", "tag-string", "env"], true);
      return files([value(p, "joblog"), value(p, "results"), value(p, "tmpdir")], [value(p, "a", "arg-file")]);
    }
    case "fakeroot": {
      const p = parseArgs(args, "lsib", ["lib", "faked"], true);
      return files([value(p, "s")], [value(p, "i")]);
    }
    case "xargs": {
      const p = parseArgs(args, "ILnPsdEa", ["max-args", "max-procs", "max-chars", "delimiter", "arg-file", "process-slot-var"], true);
      return files([], [value(p, "a", "arg-file")]);
    }
    case "env": {
      const p = parseArgs(args, "uCSa", ["unset", "chdir", "split-string", "argv0"], true);
      return { ...NONE, chdir: value(p, "C", "chdir") ?? null };
    }
    case "sudo": {
      const p = parseArgs(args, "ugCDhprtTU", ["user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user"], true);
      return { ...NONE, chdir: value(p, "D", "chdir") ?? null };
    }
    case "unshare":
    case "nsenter": {
      const p = parseArgs(args, name === "unshare" ? "SGRwt" : "tSGwr", ["setuid", "setgid", "root", "wd", "propagation", "map-user", "map-group", "map-users", "map-groups", "kill-child", "target"], true);
      return { ...NONE, chdir: value(p, "w", "wd") ?? null };
    }
  }
  return NONE;
}
