// One process on a pseudo-terminal (node-pty): the agent's interactive bash or a job. Its output is passed on, up to a
// job's end marker (then the host's reply lets it exit); for the shell, what it does now is read from /proc (proc.ts):
// at its prompt or not, its end's token, the program in the foreground, a shell reading the terminal.

import { readlinkSync, realpathSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { Listeners } from "../../lib/listeners.ts";
import { formatMarker } from "../markers.ts";
import type { ShellProbe, TerminalProcess, Unsubscribe } from "../types.ts";
import { TOKEN_NAME } from "./bash-scripts.ts";
import { commOf, interactiveShell, killTree, procStat, relayResize, waitsAtPrompt } from "./proc.ts";
import { readerShell } from "./reader-shell.ts";
import { takeState } from "./respawn-state.ts";

type IPty = import("node-pty").IPty;

const INTERACTIVE = formatMarker({ kind: "interactive" });

export class PtyProcess implements TerminalProcess {
  readonly exited: Promise<number>;
  private readonly listeners = new Listeners<string>("terminal");
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private ended = false;
  private killed = false;
  /** Held-back tail that could be the start of `endMarker`. */
  private carry = "";
  private sawEnd = false;

  /** The shell's process group, learnt when it announced itself (`interactive`): it owns the terminal at a prompt. */
  private shellPgrp: number | null = null;
  private shellSetup: { files: string[]; seen: boolean } | null;
  /** The file where the shell's prompt hook writes `export -p` (its state file beside it). */
  envPath: string | null = null;

  /**
   * With `endMarker`, the process prints it when its work is done and then waits for a line on its terminal before
   * exiting: Linux can drop what is still buffered in a pty when its last writer closes (EIO before the rest is read),
   * so the reply is sent only once everything before the marker has been read. Nothing after the marker is passed on.
   */
  constructor(
    private readonly pty: IPty,
    onEnd: () => void,
    private readonly endMarker: string | null = null,
    setupFiles: string[] = [],
  ) {
    this.shellSetup = setupFiles.length > 0 ? { files: setupFiles, seen: false } : null;
    pty.onData((data: string | Buffer) => {
      const text = typeof data === "string" ? data : this.decoder.decode(data, { stream: true });
      this.deliver(text);
    });
    this.exited = new Promise<number>((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        this.deliver(this.decoder.decode());
        if (this.carry !== "" && !this.sawEnd) this.emit(this.carry);
        this.carry = "";
        this.ended = true;
        onEnd();
        resolve(signal ? 128 + signal : exitCode);
      });
    });
  }

  private emit(text: string): void {
    if (text !== "") this.listeners.emit(text);
  }

  /** The shell has read its setup file (it prints `interactive` last): remove the file, note who owns the terminal. */
  private watchSetup(text: string): void {
    const setup = this.shellSetup;
    if (setup === null || setup.seen || !text.includes(INTERACTIVE)) return;
    setup.seen = true;
    for (const file of setup.files) void fsp.rm(file, { force: true }).catch(() => undefined);
    // An interactive bash leads its own process group, so the group's id is the shell's pid.
    this.shellPgrp = interactiveShell(this.pty.pid);
  }

  /**
   * What the shell does now, from /proc (null where that cannot be read): `prompt` when it owns the terminal and waits
   * in its line editor's read; `held` when it waits there but another process group has taken the terminal (a
   * background job that called tcsetpgrp: what is typed now goes to that group, or makes the shell read end-of-file);
   * `foreground` when a program of the shell's owns the terminal; `busy` otherwise (a builtin, its hook, `read`). The
   * token is the shell's name, which its prompt hook sets to the last end's token after printing that end.
   */
  probe(): ShellProbe | null {
    const pgrp = this.shellPgrp;
    if (pgrp === null) return null;
    const own = procStat(pgrp);
    if (own === null) return null;
    const name = commOf(pgrp);
    if (name === null) return null;
    const token = TOKEN_NAME.test(name) ? name : undefined;
    // fields: state ppid pgrp session tty_nr tpgid
    const tpgid = Number(own[5]);
    const waiting = own[0] === "S" && waitsAtPrompt(pgrp);
    if (tpgid !== pgrp) {
      if (!waiting) return { state: "foreground", token };
      return { state: "held", token, holder: { pgrp: tpgid, name: commOf(tpgid) ?? "?" } };
    }
    if (!waiting) return { state: "busy", token };
    return { state: "prompt", token, settled: this.relayWaits(Number(own[1])) };
  }

  /**
   * Inside the OS sandbox the shell's terminal is relayed by `script` (its parent): whether that relay waits too, so
   * nothing typed is still on its way to the shell. True where there is no relay.
   */
  private relayWaits(parent: number): boolean {
    if (!this.relaysTerminal) return true;
    const stat = procStat(parent);
    return stat !== null && stat[0] === "S";
  }

  /**
   * The shell's state as its prompt hook last wrote it (`export -p`; `declare -p`, `declare -f`, `alias -p`), read now:
   * the session takes it at a verified prompt, so a respawn never reads a file the shell could write since
   * (respawn-state.ts).
   */
  snapshotState(): { exported: string; state: string } | null {
    if (this.envPath === null || this.shellPgrp === null) return null;
    return takeState(this.shellPgrp, this.envPath);
  }

  /** Stops the process group that holds the shell's terminal (not the shell's own), when it is in the shell's session. */
  stopHolder(pgrp: number): boolean {
    const shell = this.shellPgrp;
    if (shell === null || pgrp === shell || pgrp <= 1) return false;
    const own = procStat(shell);
    const other = procStat(pgrp);
    if (own === null || other === null || other[3] !== own[3]) return false; // only a group of the shell's session
    try {
      process.kill(-pgrp, "SIGKILL");
      return true;
    } catch {
      return false;
    }
  }

  shellCwd(claimed: string | undefined): string | undefined {
    if (this.shellPgrp === null) return undefined;
    try {
      const cwd = readlinkSync(`/proc/${this.shellPgrp}/cwd`);
      return claimed !== undefined && claimed !== cwd && realpathSync(claimed) === cwd ? claimed : cwd;
    } catch {
      return undefined;
    }
  }

  /** A program of the shell's in the foreground (not the shell itself, e.g. running its builtin `read`). */
  foreground(): string | undefined {
    if (this.shellPgrp !== null) {
      const own = procStat(this.shellPgrp);
      if (own !== null) {
        const group = Number(own[5]);
        if (group === this.shellPgrp) return undefined;
        // the foreground group's leader: the program the shell started (node-pty would name the sandbox's launcher)
        const name = commOf(group);
        if (name !== null) return name;
        // ended meanwhile: ask node-pty
      }
    }
    try {
      return this.pty.process;
    } catch {
      return undefined;
    }
  }

  /**
   * An interactive shell among the foreground program's processes and everything they started, which may read what
   * is typed now as a command line: its name; "" when there is none, null where this cannot be told (reader-shell.ts).
   */
  readerShell(): string | null {
    return this.shellPgrp === null ? null : readerShell(this.shellPgrp);
  }

  private deliver(text: string): void {
    if (this.sawEnd || text === "") return;
    if (this.shellSetup !== null && !this.shellSetup.seen) this.watchSetup(text);
    const marker = this.endMarker;
    if (marker === null) {
      this.emit(text);
      return;
    }
    const data = this.carry + text;
    this.carry = "";
    const at = data.indexOf(marker);
    if (at !== -1) {
      this.sawEnd = true;
      this.emit(data.slice(0, at));
      this.write("\r");
      return;
    }
    let keep = 0;
    const lastEsc = data.lastIndexOf("\x1b");
    if (lastEsc !== -1 && data.length - lastEsc < marker.length && marker.startsWith(data.slice(lastEsc))) {
      keep = data.length - lastEsc;
    }
    this.emit(data.slice(0, data.length - keep));
    this.carry = data.slice(data.length - keep);
  }

  get pid(): number {
    return this.pty.pid;
  }

  onData(listener: (chunk: string) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  write(data: string): void {
    if (this.ended || this.killed || data === "") return;
    if (this.sawEnd && data !== "\r") return; // the job is over: only the reply that lets it exit
    try {
      this.pty.write(data);
    } catch {
      // the terminal closed under us; `exited` reports it
    }
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    try {
      this.pty.resize(Math.max(2, Math.floor(cols)), Math.max(1, Math.floor(rows)));
      if (this.relaysTerminal) relayResize(this.pty.pid);
    } catch {
      // closed
    }
  }

  /** Set for a shell inside the OS sandbox: its terminal is relayed by `script` (see sandbox.ts). */
  relaysTerminal = false;

  kill(): void {
    if (this.ended) return;
    this.killed = true;
    killTree(this.pty.pid);
  }
}
