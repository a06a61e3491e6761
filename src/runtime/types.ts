// The contract every runtime (webcontainer, embedded, node) fulfils. The shell layer programs against
// this and nothing else; a runtime knows nothing of tools, guards or sessions.

import type { Unsubscribe } from "../lib/listeners.ts";

export type { Unsubscribe };

export type RuntimeKind = "webcontainer" | "embedded" | "node";

/** An interactive process behind a terminal: the agent's shell, or a background job. */
export interface TerminalProcess {
  /** Raw terminal output, already decoded to text without splitting UTF-8 characters. */
  onData(listener: (chunk: string) => void): Unsubscribe;
  /** Keystrokes or text to the process, as a terminal would send them. */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Ends the process at once. `exited` resolves afterwards. */
  kill(): void;
  /** Resolves with the exit code when the process has ended (for any reason). */
  readonly exited: Promise<number>;
  /**
   * What the agent's shell does now, where the operating system can tell (Linux: /proc), for verifying a command's end
   * and typing only into the shell's own prompt; null where this cannot be told. See ShellProbe.
   */
  probe?(): ShellProbe | null;
  /**
   * The shell's state as its prompt hook last wrote it (node: `export -p`, and `declare -p`, `declare -f`, `alias -p`),
   * read now. The session takes it at a verified prompt and hands it to the next shell (ShellSpawnOptions.restoreState),
   * so a respawn never sources a file the shell could have written since.
   */
  snapshotState?(): { exported: string; state: string } | null;
  /** Kills the process group that took the shell's terminal (ShellProbe.holder), if it is one of the shell's. */
  stopHolder?(pgrp: number): boolean;
  /**
   * The shell's working directory as the kernel knows it, or undefined where it cannot be read; `claimed` (the path a
   * marker reported) when that is the same directory, so a logical path through a symlink is kept.
   */
  shellCwd?(claimed: string | undefined): string | undefined;
  /**
   * The name of the program of the shell's in the terminal's foreground (node-pty: `process`), where the runtime
   * knows it; undefined while the shell itself reads (at its prompt, or in its builtin `read`).
   */
  foreground?(): string | undefined;
  /**
   * An interactive shell that may read what is typed now, where the runtime can look for one beyond the foreground
   * program's name (node: among the foreground group's processes and their descendants, e.g. a bash under python's
   * pty.spawn or `script -qc bash`): its name; "" when there is none; null where this cannot be told.
   */
  readerShell?(): string | null;
  /** Drops typed-ahead input the foreground program has not read (the terminal's input queue), where possible. */
  discardTypeahead?(): void;
}

/** What the agent's shell does, seen from outside (TerminalProcess.probe). */
export interface ShellProbe {
  /**
   * `prompt`: the shell owns the terminal and waits in its line editor's read (as at its prompt); `held`: it waits
   * there, but another process group has taken the terminal (what is typed now goes to that group, not the shell);
   * `foreground`: a program of the shell's owns the terminal; `busy`: anything else (a builtin, its prompt hook,
   * `read`).
   */
  state: "prompt" | "held" | "foreground" | "busy";
  /**
   * The token of the shell's last end, which its prompt hook publishes only after printing that end (node: the
   * shell's own process name, which no other process can set); undefined before the first.
   */
  token: string | undefined;
  /** `held`: the process group holding the terminal, and its leader's name. */
  holder?: { pgrp: number; name: string };
  /** `prompt`: nothing typed is on its way to the shell (a relay between the terminal and the shell waits too). */
  settled?: boolean;
}

export interface ShellSpawnOptions {
  cols: number;
  rows: number;
  /** Working directory to start in (used when a shell is respawned after a kill). */
  cwd?: string;
  /** Extra environment (used to restore exported variables after a respawn). */
  env?: Record<string, string>;
  /**
   * The state text a previous shell's snapshotState gave (node: `declare -p`, `declare -f`, `alias -p`), sourced by
   * the new shell from a place no command can write: its variables, functions and aliases are restored too.
   */
  restoreState?: string;
}

export interface JobSpawnOptions {
  cwd: string;
  env?: Record<string, string>;
}

export interface DirEntry {
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  /** Bytes, for files; 0 where the runtime cannot tell. */
  size: number;
}

export interface FileStat {
  type: DirEntry["type"];
  size: number;
}

/** Paths are absolute. Every method rejects with an Error whose `code` is an errno name (ENOENT, …). */
/** How much a caller takes of a file or a folder at most; a file system may ignore it (then the caller cuts). */
export interface ReadLimit {
  /**
   * readFile: a file larger than this is refused with EFBIG (its size on the error's `size`), judged by the opened
   * file itself, and never more than this many bytes plus one are read (a file that grows meanwhile is refused too).
   */
  maxBytes?: number;
  /** readdir: entries read at most, plus one that says there are more; a folder is not read past them. */
  maxEntries?: number;
}

export interface RuntimeFs {
  readFile(path: string, options?: ReadLimit): Promise<Uint8Array>;
  /** `mode` (e.g. 0o600) applies where the file system has modes, when the file is created. */
  writeFile(path: string, data: Uint8Array | string, options?: { mode?: number }): Promise<void>;
  /** Appends, creating the file (not its folders) when missing. Used to spill long output. */
  appendFile(path: string, data: string): Promise<void>;
  readdir(path: string, options?: ReadLimit): Promise<DirEntry[]>;
  /** null when nothing is there. Does not follow a final symlink. */
  stat(path: string): Promise<FileStat | null>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** The path with every symlink and `..` resolved; rejects with ENOENT when it does not exist. */
  realpath(path: string): Promise<string>;
}

/** What this runtime's shell can do, probed or known. The tools layer turns gaps into hints. */
export interface Capabilities {
  heredocs: boolean;
  pipes: boolean;
  redirects: boolean;
  /** `;`, `||`, `$?` */
  lists: boolean;
  background: boolean;
  exportVars: boolean;
  /** Programs found on PATH, by name (grep, sed, awk, python3, node, …). */
  programs: Record<string, boolean>;
}

/** What isolates a runtime's processes (node: src/runtime/node/sandbox.ts). */
export interface Isolation {
  /** "sandboxed": inside the OS sandbox; "unsandboxed": it could not run here (see reason); "off": turned off by the caller. */
  state: "sandboxed" | "unsandboxed" | "off";
  /** What isolates, or why nothing does. */
  reason: string;
  /** Domains the shell may reach; [] means no network (when sandboxed; otherwise the host's network applies). */
  network: string[];
  /** The private temp directory (TMPDIR, setup and spill files); removed on close. */
  tempDir: string;
  /**
   * What `/tmp` is for the shell: "private" (the temp directory, presented at /tmp by the OS sandbox: Linux),
   * "read-only" (the host's, read-only: macOS, whose scratch folder is $TMPDIR), "host" (the host's shared /tmp:
   * unsandboxed or off).
   */
  tmp: "private" | "read-only" | "host";
  /**
   * How the file tools verify a folder before they touch a name in it (no check-then-open race either way):
   * "proc-fd" (Linux: descriptor-relative through /proc/self/fd), "cwd-helper" (no /proc, macOS: a helper process's
   * working directory, checked with getcwd). See docs/sandbox.md.
   */
  files: "proc-fd" | "cwd-helper";
}

export type RuntimeEvent =
  | { type: "server-ready"; port: number; url: string }
  | { type: "status"; message: string }
  | { type: "error"; message: string };

export interface Runtime {
  readonly kind: RuntimeKind;
  /** Absolute path of the agent's workspace. */
  readonly workspace: string;
  readonly capabilities: Capabilities;
  /**
   * Shells of this runtime print OSC 654 markers (`ESC ] 654 ; payload BEL`): `interactive`, `prompt`,
   * `exit=A:B` (B is the exit code) and, where supported, `cwd=A:PATH`. When set, A must equal this
   * nonce for an `exit`/`cwd` marker to count, so a command's own output cannot fake an end. A tag may carry the
   * command's sequence number after a dot (`NONCE.SEQ`, node); then `start=SEQ` names the command that starts.
   */
  readonly markerNonce: string | null;
  /** A private directory for spill files (long output, long commands); SHELL.spillDir when not given. */
  readonly spillDir?: string;
  /** Why this runtime serves (e.g. "WebContainer could not be reached: …; the embedded shell serves instead"). */
  readonly note?: string;
  /** node: what isolates the shell (its OS sandbox, or "unsandboxed" and why). */
  readonly isolation?: Isolation;
  /** node: the private temp directory (TMPDIR, spill files) that the file tools read instead of /tmp. */
  readonly tempDir?: string;
  /**
   * node: a folder the shell can read but not write, where long commands are saved before the shell sources them
   * (nothing inside the sandbox can swap one between the check and the run). Without it: spillDir.
   */
  readonly commandDir?: string;
  /**
   * node in the OS sandbox: why the sandbox keeps the shell from writing `path` (a real path), or null. The file
   * tools, which write from outside the sandbox, refuse the same writes.
   */
  protectedWrite?(path: string): string | null;
  /**
   * node in the OS sandbox: called by the session at every command's end; removes what the sandbox cannot keep
   * read-only and the shell may not leave behind (a planted `.git/commondir`: node/protect-sweep.ts). Synchronous, cheap.
   */
  afterCommand?(): void;
  spawnShell(options: ShellSpawnOptions): Promise<TerminalProcess>;
  /** A separate process for a background job: `command` runs in its own shell, not the agent's. */
  spawnJob(command: string, options: JobSpawnOptions): Promise<TerminalProcess>;
  readonly fs: RuntimeFs;
  on(listener: (event: RuntimeEvent) => void): Unsubscribe;
  dispose(): Promise<void>;
}
