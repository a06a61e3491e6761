// Files that configure a program the person runs outside the sandbox (their git, shell, editor, agent), as
// @anthropic-ai/sandbox-runtime names them: its DANGEROUS_FILES and getDangerousDirectories() (a test in
// test/runtime/node-sandbox-hardening.test.ts compares). One list for both readers: the node runtime keeps them
// read-only in the OS sandbox (src/runtime/node-protect.ts), and the guard asks before a command writes one
// (src/guard/options/environment.ts, with the tool configuration it knows besides).

/** Files that configure a program the person runs (the library's DANGEROUS_FILES). */
export const PROTECTED_FILES = [
  ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json",
] as const;

/** Folders whose every file configures one (the library's getDangerousDirectories()). */
export const PROTECTED_DIRS = [".vscode", ".idea", ".claude/commands", ".claude/agents"] as const;
