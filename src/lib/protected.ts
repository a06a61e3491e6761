// Files that configure a program the person runs outside the sandbox (their git, shell, editor, agent): the ones
// @anthropic-ai/sandbox-runtime names (its DANGEROUS_FILES and getDangerousDirectories(); a test in
// test/runtime/node-sandbox-hardening.test.ts compares), and the ones the person's tools on the host run commands from
// that the library does not name. One list for both readers: the node runtime keeps them read-only in the OS sandbox
// (src/runtime/node/protect.ts), and the guard asks before a command writes one (src/guard/options/environment.ts,
// with the tool configuration it knows besides).

/** The library's DANGEROUS_FILES. */
export const LIBRARY_FILES = [
  ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json",
] as const;

/** The library's getDangerousDirectories(). */
export const LIBRARY_DIRS = [".vscode", ".idea", ".claude/commands", ".claude/agents"] as const;

/**
 * Files that configure a program the person runs, by name at any depth: the library's, pre-commit's hook list (its
 * hooks run at the person's `git commit`), direnv's `.envrc` (sourced by the person's shell on `cd`) and npm's
 * `.npmrc` (`script-shell`, `node-options`, `git` name programs every `npm test` or `npm install` runs).
 */
export const PROTECTED_FILES = [...LIBRARY_FILES, ".pre-commit-config.yaml", ".envrc", ".npmrc"] as const;

/**
 * Files at a path (a folder and a name in it): Claude Code's project settings, whose `hooks` run commands on the
 * person's host (the library protects .claude/commands and .claude/agents only).
 */
export const PROTECTED_PATHS = [".claude/settings.json", ".claude/settings.local.json"] as const;

/** Folders whose every file configures one: the library's, and a dev container's (`postCreateCommand`, …). */
export const PROTECTED_DIRS = [...LIBRARY_DIRS, ".devcontainer"] as const;
