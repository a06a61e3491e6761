// The node runtime's private folders on the host: every sandbox's temp directory, command folder and default
// workspace live under one 0700 folder of this user (hidden from each sandbox: sandbox-rules.ts), one fresh 0700
// directory each, by its real path.

import { readdirSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folder holding every sandbox's temp directory and default workspace on this host (hidden from each sandbox). */
export function sandboxesRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join(tmpdir(), `sandshell-u${uid}`);
}

async function ensureRoot(): Promise<string> {
  const root = sandboxesRoot();
  await fsp.mkdir(root, { recursive: true, mode: 0o700 });
  const st = await fsp.lstat(root);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid) throw new Error(`${root} is not a folder of this user; remove it and try again`);
  if ((st.mode & 0o077) !== 0) await fsp.chmod(root, 0o700);
  return fsp.realpath(root);
}

/** A fresh 0700 directory under sandboxesRoot(), by its real path. */
export async function makePrivateDir(prefix: "rt" | "ws" | "cmd"): Promise<string> {
  const root = await ensureRoot();
  const dir = await fsp.mkdtemp(join(root, `${prefix}-`)); // mkdtemp: 0700
  return fsp.realpath(dir);
}

/** For tests: the folders under sandboxesRoot() (to check that close removes its own). */
export function listPrivateDirs(): string[] {
  try {
    return readdirSync(sandboxesRoot());
  } catch {
    return [];
  }
}
