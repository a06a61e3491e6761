// A respawn's state: the shell's variables, functions and aliases as its prompt hook wrote them (bash-scripts.ts),
// taken by the host at a verified prompt from the files the shell itself holds open, never by a name a command could
// have swapped. The session hands them to the next shell, whose setup file restores them.

import { closeSync, constants as fsConstants, fstatSync, opendirSync, openSync, readlinkSync, readSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SHELL } from "../../limits.ts";
import { STATE_FDS, stateFile } from "./bash-scripts.ts";

/** The names the prompt hook gives the files it creates: the base name, a dot and 16 hex digits. */
function isFreshName(name: string, base: string): boolean {
  return name.startsWith(`${base}.`) && /^[0-9a-f]{16}$/.test(name.slice(base.length + 1));
}

/**
 * A file the shell writes, read by the host without following a symlink a command may have put there, only when it is
 * a regular file with no other name (a hard link made to write it through) of at most `max` bytes (null otherwise: a
 * FIFO or /dev/zero must not hang the host). `/proc/PID/fd/N` is followed: it is the file that process holds open.
 */
function readOwnFile(path: string, max: number): string | null {
  let fd: number;
  const follow = path.startsWith("/proc/") ? 0 : fsConstants.O_NOFOLLOW;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | follow | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || st.size > max) return null;
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got > st.size) return null; // grew meanwhile
    return buf.toString("utf8", 0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The shell's state as its prompt hook last wrote it (`export -p`; `declare -p`, `declare -f`, `alias -p`), read now
 * from the shell (`pgrp`, its pid) whose hook writes `export -p` to `envPath`'s folder; the folder is emptied.
 */
export function takeState(pgrp: number, envPath: string): { exported: string; state: string } | null {
  const dir = dirname(envPath);
  // The files the shell itself holds open, created by its hook at this prompt: only under a name the hook gives, in
  // its folder, still there (one the host took before has lost its name: "… (deleted)").
  const take = (fd: number, path: string): string | null => {
    const link = `/proc/${pgrp}/fd/${fd}`;
    let target: string;
    try {
      target = readlinkSync(link);
    } catch {
      return null; // closed: the hook could not create it
    }
    if (dirname(target) !== dir || !isFreshName(basename(target), basename(path))) return null;
    return readOwnFile(link, SHELL.stateMaxBytes);
  };
  const exported = take(STATE_FDS.env, envPath);
  const state = take(STATE_FDS.state, stateFile(envPath));
  // The folder holds only the hook's files: those of prompts not taken (the first, a person's quick commands) and
  // anything a command put there go too, a bounded number at a time (a command may have made a million).
  let names: string[] = [];
  try {
    const d = opendirSync(dir);
    try {
      for (let e = d.readSync(); e !== null && names.length < SHELL.stateSweepMax; e = d.readSync()) names.push(e.name);
    } finally {
      d.closeSync();
    }
  } catch {
    // gone
  }
  for (const name of names) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // a folder, or gone
    }
  }
  return exported === null || state === null ? null : { exported, state };
}
