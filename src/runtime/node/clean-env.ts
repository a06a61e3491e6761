// The clean environment of the agent's shell and jobs: a positive list of the host's variables (no API keys pass),
// the runtime's own settings, then what the caller passes, less the variables that change how bash starts.

import { userInfo } from "node:os";

/** Host variables the agent's shell keeps (the positive list); HOME, TMPDIR, SHELL and the runtime's own are set. */
const PASSED_ENV = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TERM|USER|LOGNAME|TZ)$/;
/** Variables that change how the shell starts or behaves: never passed, not even from the caller. */
const DROPPED_ENV = new Set(["PROMPT_COMMAND", "PS0", "PS1", "PS2", "BASH_ENV", "ENV", "HISTFILE", "SHELLOPTS", "BASHOPTS", "CDPATH"]);
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The clean environment: the positive list from the host, the runtime's settings, then what the caller passes. */
export function cleanEnv(
  host: NodeJS.ProcessEnv,
  p: { workspace: string; tempDir: string; bash: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(host)) if (value !== undefined && PASSED_ENV.test(key)) env[key] = value;
  if (env.USER === undefined) {
    try {
      env.USER = userInfo().username;
    } catch {
      // no passwd entry: no USER
    }
  }
  Object.assign(env, {
    HOME: p.workspace,
    TMPDIR: p.tempDir,
    SHELL: p.bash,
    TERM: "xterm-256color",
    PAGER: "cat",
    GIT_PAGER: "cat",
    NO_COLOR: "1",
    GIT_TERMINAL_PROMPT: "0",
    // git status would refresh .git/index (a write nobody asked for; under strict, nothing may write): git 2.15+
    // skips that optional lock and write when this is 0. The guard asks before a command sets or unsets it.
    GIT_OPTIONAL_LOCKS: "0",
    npm_config_yes: "true",
  });
  if (env.LANG === undefined && env.LC_ALL === undefined) env.LANG = "C.UTF-8";
  for (const [key, value] of Object.entries(extra)) {
    if (VARIABLE_NAME.test(key) && !DROPPED_ENV.has(key) && typeof value === "string") env[key] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}
