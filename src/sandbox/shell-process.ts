// What a command does to the shared shell's own process: replace it, end or stop it, move it to another directory,
// take its jobs, or act on it (or any process) from outside by pid, name or job. Each outlasts the call and reaches
// every other caller of the shell, so under approver "host" it is the owner's to approve, never the client's
// (lasting.ts). Rules as data: classes, each with examples that must count and near misses that must not
// (test/sandbox/lasting.test.ts runs them).

import type { Command } from "../guard/facts.ts";
import type { Effective } from "../guard/wrappers.ts";
import type { RuleEnv } from "../guard/rules/row.ts";

export interface ShellProcessRow {
  id: string;
  /** Why it outlasts the call, for the person (`{name}` is the command's name). */
  why: string;
  examples: string[];
  nearMisses: string[];
  match(cmd: Command, eff: Effective, env: RuleEnv): boolean;
}

/** Programs whose work is to signal running processes (by pid, process group, name or job). */
const SIGNALLERS = new Set(["kill", "pkill", "killall", "skill", "snice", "renice", "tkill", "xkill"]);
/** Programs that act on a running process when given one by pid (`-p PID`, `--pid PID`): attach, limit, pin, trace it. */
const BY_PID = new Set(["prlimit", "taskset", "ionice", "chrt", "strace", "ltrace", "gdb", "gcore", "reptyr", "perf", "criu"]);

const words = (eff: Effective): string[] => eff.argv.slice(1).map((w) => w.value);

export const SHELL_PROCESS_ROWS: readonly ShellProcessRow[] = [
  {
    id: "replaces-shell",
    why: "`exec` replaces the shared shell with another program (every caller's next command runs in it)",
    examples: ["exec bash --rcfile poison.sh -i", "exec bash", "command exec bash", "builtin exec -a x sh", "exec $SHELL", "cd /tmp && exec sh -i"],
    nearMisses: ["bash -c 'echo hi'", "echo exec bash", "execstack -q a.out"],
    match: (_cmd, eff) => eff.wrappers.includes("exec") && eff.argv.length > 0,
  },
  {
    id: "ends-shell",
    why: "`{name}` ends or stops the shared shell, for every caller",
    examples: ["logout", "exit 1", "rm -f x; exit", "suspend -f", "suspend"],
    nearMisses: ["echo exit", "git commit -m logout", "tmux detach"],
    match: (_cmd, eff) => eff.name === "exit" || eff.name === "logout" || eff.name === "suspend",
  },
  {
    id: "moves-shell",
    why: "`{name}` moves the shared shell to another directory: every caller's next command runs there",
    examples: ["cd /etc", "pushd /etc", "popd", "builtin cd /", "cd", "dirs -c"],
    nearMisses: ["ls /etc", "git -C /etc status", "env -C /etc ls", "dirs"],
    match: (_cmd, eff) =>
      eff.name === "cd" || eff.name === "pushd" || eff.name === "popd" || (eff.name === "dirs" && eff.argv.length > 1),
  },
  {
    id: "shell-jobs",
    why: "`{name}` acts on the shared shell's jobs, other callers' too",
    examples: ["disown -a", "disown %1", "fg %1", "bg", "wait %2", "%1", "%+ &"],
    nearMisses: ["jobs", "echo %1", "printf '%s\\n' x"],
    match: (_cmd, eff) => ["fg", "bg", "disown", "wait"].includes(eff.name ?? "") || (eff.name?.startsWith("%") ?? false),
  },
  {
    id: "signals-processes",
    why: "`{name}` acts on running processes from outside (the shared shell and other callers' jobs among them)",
    examples: [
      "kill -STOP $$",
      "kill -9 $$",
      "kill %1",
      "kill 0",
      "kill -- -1",
      "/bin/kill -TERM 1",
      "pkill -f bash",
      "killall bash",
      "renice 19 -p $$",
      "prlimit --pid $$ --nofile=4",
      "strace -p 1",
      "gdb -p 1 -batch -ex 'call exit(0)'",
      "echo 1000 > /proc/$$/oom_score_adj",
    ],
    nearMisses: ["kill -l", "pgrep bash", "ps aux", "timeout 5 sleep 1", "prlimit --nofile=4 ls", "taskset -c 0 ls", "cat /proc/cpuinfo"],
    match: (cmd, eff, env) => {
      const args = words(eff);
      if (eff.name === "kill" && args.length > 0 && args.every((a) => a === "-l" || a === "-L" || a === "--list" || a === "--table")) return false;
      if (eff.name !== null && SIGNALLERS.has(eff.name)) return true;
      if (eff.name !== null && BY_PID.has(eff.name) && args.some((a) => /^(-p|--pid|--attach|attach)(=|$|\d)/.test(a))) return true;
      const cwd = cmd.cwd ?? "/";
      return env.writes(cmd).some((w) => (w.value.startsWith("/") ? w.value : `${cwd}/${w.value}`).startsWith("/proc/"));
    },
  },
];
