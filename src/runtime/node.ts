// The node runtime: real bash on a real pseudo-terminal (node-pty). It is the conformance reference for the session
// engine and the benchmarks' baseline. This file is the runtime and its wiring; its parts are in node/: the bash it
// writes (bash-scripts.ts), its processes (pty-process.ts; proc.ts, reader-shell.ts, respawn-state.ts read /proc) and
// the OS sandbox (sandbox.ts and the files it names).

import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { delimiter, join } from "node:path";
import { SHELL } from "../limits.ts";
import { Listeners } from "../lib/listeners.ts";
import { formatMarker } from "./markers.ts";
import { jobScript, rcFile } from "./node/bash-scripts.ts";
import { cleanEnv } from "./node/clean-env.ts";
import { nodeFs } from "./node/fs.ts";
import { makePrivateDir } from "./node/private-dirs.ts";
import { PtyProcess } from "./node/pty-process.ts";
import { openOsSandbox, type Isolation, type OsSandbox, type OsSandboxOptions } from "./node/sandbox.ts";
import type { Capabilities, JobSpawnOptions, Runtime, RuntimeEvent, ShellSpawnOptions, TerminalProcess } from "./types.ts";

export interface NodeRuntimeOptions extends OsSandboxOptions {
  /** The agent's workspace (also HOME). Defaults to a fresh temporary directory, removed again by dispose(). */
  workspace?: string;
  /** The shell to run. Defaults to /bin/bash; it must be bash ≥ 4.4 (PS0). */
  bash?: string;
  /** Variables for the shell, on top of the clean environment (see cleanEnv in node/clean-env.ts). */
  env?: Record<string, string>;
}

/** The node runtime: a Runtime with its OS sandbox state and private temp directory. */
export interface NodeRuntime extends Runtime {
  readonly isolation: Isolation;
  /** The sandbox's private 0700 temp directory (TMPDIR, setup and spill files), removed by dispose(). */
  readonly tempDir: string;
}

/** Programs probed on PATH for `capabilities.programs`. */
const PROBED_PROGRAMS = [
  "awk", "bash", "bc", "cat", "curl", "diff", "find", "git", "grep", "gzip", "head", "jq", "less", "ls", "make",
  "node", "npm", "npx", "patch", "perl", "pip", "pip3", "python", "python3", "rg", "sed", "sort", "tail", "tar",
  "tr", "vim", "wc", "wget", "xargs",
];

type PtyModule = typeof import("node-pty");
type IPty = import("node-pty").IPty;

let ptyModule: Promise<PtyModule> | null = null;

function loadPty(): Promise<PtyModule> {
  ptyModule ??= import("node-pty").then(
    (m) => ((m as unknown as { default?: PtyModule }).default ?? m) as PtyModule,
    (err: unknown) => {
      ptyModule = null;
      throw new Error(
        `The node runtime needs the optional package node-pty, which could not be loaded (${String(err)}). ` +
          'Add it with `npm install node-pty` (it builds from source: python3, make and a C++ compiler), or use runtime: "embedded", which needs nothing native.',
      );
    },
  );
  return ptyModule;
}

function probePrograms(pathVar: string): Record<string, boolean> {
  const dirs = pathVar.split(delimiter).filter((d) => d !== "");
  const found: Record<string, boolean> = {};
  for (const name of PROBED_PROGRAMS) {
    found[name] = dirs.some((dir) => {
      try {
        const s = statSync(join(dir, name));
        return s.isFile() && (s.mode & 0o111) !== 0;
      } catch {
        return false;
      }
    });
  }
  return found;
}

export async function createNodeRuntime(options: NodeRuntimeOptions = {}): Promise<NodeRuntime> {
  const pty = await loadPty();
  const bash = options.bash ?? "/bin/bash";
  if (!existsSync(bash)) throw new Error(`The node runtime needs bash at ${bash}, which does not exist`);

  const ownsWorkspace = options.workspace === undefined;
  let workspace = options.workspace ?? (await makePrivateDir("ws"));
  await fsp.mkdir(workspace, { recursive: true });
  workspace = await fsp.realpath(workspace);
  // TMPDIR, setup files, the exported-variables snapshot and spill files: one private 0700 directory, by its real path.
  const privateDir = await makePrivateDir("rt");
  // Long commands the shell sources: a folder it can read but not write (node/sandbox.ts), so none is swapped after the check.
  const commandDir = await makePrivateDir("cmd");
  const listeners = new Listeners<RuntimeEvent>("runtime");
  let os: OsSandbox;
  try {
    const onNotice = (message: string): void => listeners.emit({ type: "status", message });
    os = await openOsSandbox(options, { workspace, tempDir: privateDir, commandDir, onNotice });
  } catch (err) {
    await fsp.rm(privateDir, { recursive: true, force: true });
    await fsp.rm(commandDir, { recursive: true, force: true });
    if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true });
    throw err;
  }
  const nonce = randomUUID();
  const baseEnv = cleanEnv(process.env, { workspace, tempDir: privateDir, bash }, options.env);

  const live = new Set<PtyProcess>();
  let spawned = 0;
  let disposed = false;

  const capabilities: Capabilities = {
    heredocs: true,
    pipes: true,
    redirects: true,
    lists: true,
    background: true,
    exportVars: true,
    programs: probePrograms(baseEnv.PATH ?? ""),
  };

  async function startDir(cwd: string | undefined): Promise<string> {
    if (cwd === undefined) return workspace;
    const s = await fsp.stat(cwd).catch(() => null);
    return s?.isDirectory() ? cwd : workspace;
  }

  function track(p: IPty, endMarker: string | null = null, setupFiles: string[] = []): PtyProcess {
    const proc: PtyProcess = new PtyProcess(p, () => live.delete(proc), endMarker, setupFiles);
    live.add(proc);
    return proc;
  }

  function checkOpen(): void {
    if (disposed) throw new Error("The node runtime has been disposed");
  }

  const runtime: NodeRuntime = {
    kind: "node",
    workspace,
    isolation: os.isolation,
    tempDir: privateDir,
    // Spill files: in the private folder, which the sandboxed shell can see. Long commands: where it cannot write.
    spillDir: privateDir,
    commandDir,
    ...(os.protectedWrite !== undefined ? { protectedWrite: os.protectedWrite } : {}),
    ...(os.afterCommand !== undefined ? { afterCommand: os.afterCommand } : {}),
    capabilities,
    markerNonce: nonce,
    // Where the OS sandbox does not run, say so wherever the runtime's note is shown (status bar, runtimeInfo).
    ...(os.isolation.state !== "sandboxed" ? { note: os.isolation.reason } : {}),
    async spawnShell(opts: ShellSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const k = ++spawned;
      // The prompt hook's files, in a folder of their own (the host empties it at every prompt it takes).
      const stateDir = join(privateDir, `shell-${k}`);
      await fsp.mkdir(stateDir, { mode: 0o700 });
      const envFile = join(stateDir, "env");
      // The setup file and the state it restores go where the shell cannot write (the command folder): nothing running
      // in the sandbox (a job of another caller, say) can change them before the new shell reads them.
      const rc = join(commandDir, `rc-${k}.sh`);
      const restore = opts.restoreState !== undefined ? join(commandDir, `state-${k}.sh`) : undefined;
      if (restore !== undefined) await fsp.writeFile(restore, opts.restoreState ?? "", { mode: 0o600, flag: "wx" });
      await fsp.writeFile(rc, rcFile(nonce, envFile, restore), { mode: 0o600, flag: "wx" });
      const cwd = await startDir(opts.cwd);
      const env = { ...baseEnv, ...(opts.env ?? {}), HOME: opts.env?.HOME ?? workspace, TMPDIR: privateDir, INPUTRC: "/dev/null" };
      const run = await os.plan(bash, ["--noprofile", "--rcfile", rc, "-i"], env, true);
      const p = pty.spawn(run.file, run.args, {
        name: "xterm-256color",
        cols: opts.cols,
        rows: opts.rows,
        cwd,
        env: run.env,
        encoding: null,
      });
      const proc = track(p, null, restore !== undefined ? [rc, restore] : [rc]);
      proc.envPath = envFile;
      proc.relaysTerminal = os.isolation.state === "sandboxed";
      return proc;
    },
    async spawnJob(command: string, opts: JobSpawnOptions): Promise<TerminalProcess> {
      checkOpen();
      const cwd = await startDir(opts.cwd);
      // The command runs in a subshell; then the end handshake (see PtyProcess).
      const endMarker = formatMarker({ kind: "jobend", tag: nonce });
      const script = jobScript(command, nonce);
      const run = await os.plan(bash, ["--noprofile", "--norc", "-c", script, "sandshell-job"], { ...baseEnv, ...(opts.env ?? {}), TMPDIR: privateDir }, false);
      const p = pty.spawn(run.file, run.args, {
        name: "xterm-256color",
        cols: SHELL.agentCols,
        rows: SHELL.agentRows,
        cwd,
        env: run.env,
        encoding: null,
      });
      return track(p, endMarker);
    },
    fs: nodeFs,
    on: (listener) => listeners.add(listener),
    async dispose() {
      if (disposed) return;
      disposed = true;
      const ending = [...live].map((proc) => {
        proc.kill();
        return Promise.race([proc.exited, new Promise((r) => setTimeout(r, SHELL.disposeWaitMs))]);
      });
      await Promise.all(ending);
      // Before the listeners go: the OS sandbox's last look at close says what it disabled or moved aside.
      await os.release();
      listeners.clear();
      await fsp.rm(privateDir, { recursive: true, force: true });
      await fsp.rm(commandDir, { recursive: true, force: true });
      if (ownsWorkspace) await fsp.rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return runtime;
}
