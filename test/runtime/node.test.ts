// The node runtime against the Runtime contract (src/runtime/types.ts): real bash on node-pty, real files.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { SHELL } from "../../src/limits.ts";
import { createNodeRuntime } from "../../src/runtime/node.ts";
import type { Runtime, TerminalProcess } from "../../src/runtime/types.ts";
import { type Marker, MarkerScanner } from "../../src/runtime/markers.ts";
import { TOKEN_NAME } from "../../src/runtime/node/bash-scripts.ts";

/** Alive and not a zombie (a killed orphan waits for the machine's init to reap it). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Collects a process's output and markers; resolves `until` when a predicate holds. */
function watch(proc: TerminalProcess) {
  const scanner = new MarkerScanner();
  let text = "";
  let raw = "";
  const markers: Marker[] = [];
  const waiting = new Set<{ test: () => boolean; resolve: () => void }>();
  proc.onData((chunk) => {
    raw += chunk;
    for (const ev of scanner.push(chunk)) {
      if (ev.type === "text") text += ev.text;
      else markers.push(ev.marker);
    }
    for (const w of [...waiting]) {
      if (w.test()) {
        waiting.delete(w);
        w.resolve();
      }
    }
  });
  return {
    get text() {
      return text;
    },
    get raw() {
      return raw;
    },
    markers,
    until(test: () => boolean, ms = 5_000): Promise<void> {
      if (test()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; output so far: ${JSON.stringify(raw.slice(-500))}`)), ms);
        waiting.add({ test, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    prompts(): number {
      return markers.filter((m) => m.kind === "prompt").length;
    },
  };
}

describe("node runtime", () => {
  let runtime: Runtime;

  beforeAll(async () => {
    runtime = await createNodeRuntime();
  });

  afterAll(async () => {
    await runtime.dispose();
  });

  it("owns a fresh temporary workspace and describes itself", async () => {
    expect(runtime.kind).toBe("node");
    expect(runtime.workspace.startsWith(tmpdir())).toBe(true);
    expect((await runtime.fs.stat(runtime.workspace))?.type).toBe("dir");
    expect(runtime.markerNonce).toMatch(/^[0-9a-f-]{36}$/);
    expect(runtime.capabilities.programs.bash).toBe(true);
    expect(runtime.capabilities.heredocs && runtime.capabilities.pipes && runtime.capabilities.exportVars).toBe(true);
  });

  it("the shell prints nonce-tagged markers bound to each command: envfile, interactive, then exit/cwd/prompt; start before a command", async () => {
    const nonce = runtime.markerNonce!;
    const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    const kinds = w.markers.map((m) => (m.kind === "other" ? m.payload.split("=")[0] : m.kind));
    expect(kinds).toEqual(["envfile", "interactive", "exit", "cwd", "prompt"]);
    // NONCE.SEQ.TOKEN: the command's number, and a fresh token per end, which the shell publishes as its own name after
    // printing the end (probe().token)
    const first = w.markers.find((m) => m.kind === "exit");
    expect(first).toMatchObject({ kind: "exit", code: 0 });
    const tag0 = (first as { tag: string }).tag;
    expect(tag0).toMatch(new RegExp(`^${nonce}\\.0\\.bash-[0-9a-f]{10}$`));
    expect(w.markers).toContainEqual({ kind: "cwd", tag: tag0, path: runtime.workspace });
    // the shell waits at its prompt a moment after it printed the end, named after its token
    const settled = async (token: string): Promise<ReturnType<NonNullable<typeof proc.probe>>> => {
      for (let i = 0; i < 200; i++) {
        const p = proc.probe?.();
        if (p?.state === "prompt" && p.token === token) return p;
        await new Promise((r) => setTimeout(r, 10));
      }
      return proc.probe?.() ?? null;
    };
    expect(await settled(tag0.split(".")[2]!)).toMatchObject({ state: "prompt", token: tag0.split(".")[2] });
    proc.write("(exit 7)\r");
    await w.until(() => w.prompts() === 2);
    expect(w.markers).toContainEqual({ kind: "start", tag: "1" });
    const second = w.markers.filter((m) => m.kind === "exit").at(-1) as { tag: string; code: number };
    expect(second.code).toBe(7);
    expect(second.tag).toMatch(new RegExp(`^${nonce}\\.1\\.bash-[0-9a-f]{10}$`));
    expect(second.tag.split(".")[2]).not.toBe(tag0.split(".")[2]);
    // the older token is spent: the shell's name is the newer one
    expect(await settled(second.tag.split(".")[2]!)).toMatchObject({ state: "prompt", token: second.tag.split(".")[2] });
    proc.kill();
    expect(typeof (await proc.exited)).toBe("number");
  });

  it("the end's token comes from the kernel: a command that seeds RANDOM and unsets SRANDOM cannot make it predictable", async () => {
    // Before, the hook drew the token from $SRANDOM, else $RANDOM: after `unset SRANDOM; RANDOM=7` every later token
    // was the same in every shell, so a background job could print a valid end before the real one.
    const tokensAfterSeeding = async (): Promise<string[]> => {
      const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
      const w = watch(proc);
      await w.until(() => w.prompts() === 1);
      proc.write("unset SRANDOM; RANDOM=7\r");
      await w.until(() => w.prompts() === 2);
      proc.write("true\r");
      await w.until(() => w.prompts() === 3);
      proc.write("unset RANDOM\r");
      await w.until(() => w.prompts() === 4);
      proc.kill();
      await proc.exited;
      return w.markers.filter((m) => m.kind === "exit").slice(1).map((m) => (m as { tag: string }).tag.split(".")[2]!);
    };
    const a = await tokensAfterSeeding();
    const b = await tokensAfterSeeding();
    expect(a).toHaveLength(3);
    for (const token of [...a, ...b]) expect(token).toMatch(/^bash-[0-9a-f]{10}$/);
    expect(new Set([...a, ...b]).size).toBe(6);
  });

  it("a shell whose read builtin is disabled prints no token an end could be taken with (no fallback to RANDOM on Linux)", async () => {
    const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    proc.write("unset SRANDOM; RANDOM=7; enable -n read\r");
    await w.until(() => w.prompts() === 2);
    const token = (w.markers.filter((m) => m.kind === "exit").at(-1) as { tag: string }).tag.split(".")[2]!;
    expect(TOKEN_NAME.test(token)).toBe(false);
    proc.kill();
    await proc.exited;
  });

  it("spawnShell honours cwd and env (a respawn restores them)", async () => {
    const dir = join(runtime.workspace, "respawn-here");
    await runtime.fs.mkdir(dir);
    const proc = await runtime.spawnShell({ cols: 120, rows: 40, cwd: dir, env: { RESTORED_VAR: "it's back" } });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    proc.write('echo "[$PWD][$RESTORED_VAR][$HOME]"\r');
    await w.until(() => w.text.includes(`[${dir}][it's back][${runtime.workspace}]`));
    proc.kill();
    await proc.exited;
  });

  it("never splits a UTF-8 character across chunks", async () => {
    const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    proc.write("for i in $(seq 1 3000); do printf '€😀é'; done; echo; echo done-utf8\r");
    await w.until(() => w.prompts() === 2, 10_000);
    expect(w.raw).not.toContain("\uFFFD");
    expect(w.text).toContain("€😀é".repeat(3000));
    proc.kill();
    await proc.exited;
  });

  it("before every prompt the hook writes `export -p` and the state to fresh files it holds open; the host takes them once, and their names go", async () => {
    const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    const envfile = w.markers.find((m) => m.kind === "envfile");
    const path = (envfile as { path: string }).path;
    expect(path.startsWith(runtime.workspace)).toBe(false);
    proc.write("export FRESHLY_EXPORTED=42; PLAIN=7; f() { :; }\r");
    await w.until(() => w.prompts() === 2);
    let snap: ReturnType<NonNullable<typeof proc.snapshotState>> = null;
    for (let i = 0; i < 200 && snap === null; i++) {
      if (proc.probe?.()?.state === "prompt") snap = proc.snapshotState?.() ?? null;
      if (snap === null) await new Promise((r) => setTimeout(r, 10));
    }
    expect(snap?.exported).toContain('declare -x FRESHLY_EXPORTED="42"');
    expect(snap?.state).toContain('declare -- PLAIN="7"');
    expect(snap?.state).toContain("f () ");
    // Taken: the hook's folder is empty (the first prompt's files, which nobody took, went too), and the same files
    // are not taken twice.
    expect(readdirSync(dirname(path))).toEqual([]);
    expect(proc.snapshotState?.()).toBeNull();
    proc.kill();
    await proc.exited;
  });

  it("a folder the hook writes in, filled by a command with a thousand files, is emptied a bounded number at a time and the state is still taken", async () => {
    const proc = await runtime.spawnShell({ cols: 200, rows: 50 });
    const w = watch(proc);
    await w.until(() => w.prompts() === 1);
    const dir = dirname((w.markers.find((m) => m.kind === "envfile") as { path: string }).path);
    proc.write(`for i in $(seq 1 1000); do : > '${dir}'/planted-$i; done; KEPT=yes\r`);
    await w.until(() => w.prompts() === 2, 20_000);
    let snap: ReturnType<NonNullable<typeof proc.snapshotState>> = null;
    for (let i = 0; i < 200 && snap === null; i++) {
      if (proc.probe?.()?.state === "prompt") snap = proc.snapshotState?.() ?? null;
      if (snap === null) await new Promise((r) => setTimeout(r, 10));
    }
    expect(snap?.state).toContain('declare -- KEPT="yes"');
    const left = readdirSync(dir).length;
    expect(left).toBeGreaterThanOrEqual(1004 - SHELL.stateSweepMax);
    expect(left).toBeLessThan(1004);
    proc.kill();
    await proc.exited;
  });

  it("git status leaves .git/index untouched: the clean environment sets GIT_OPTIONAL_LOCKS=0 (without it, git status rewrites the index)", async () => {
    const script = [
      "set -e",
      "mk() { git init -q \"$1\" && echo a > \"$1/a\" && git -C \"$1\" add a && git -C \"$1\" -c user.email=a@b -c user.name=a commit -qm x && touch -d @1577836800 \"$1/a\" \"$1/.git/index\"; }",
      "mkdir optional-locks && cd optional-locks && mk kept && mk control",
      "(cd kept && git status > /dev/null) && (cd control && env -u GIT_OPTIONAL_LOCKS git status > /dev/null)",
      'echo "locks=$GIT_OPTIONAL_LOCKS kept=$(stat -c %Y kept/.git/index) control=$(stat -c %Y control/.git/index)"',
    ].join("\n");
    const job = await runtime.spawnJob(script, { cwd: runtime.workspace });
    let out = "";
    job.onData((c) => {
      out += c;
    });
    expect(await job.exited).toBe(0);
    const m = /locks=(\S*) kept=(\d+) control=(\d+)/.exec(out);
    expect(m, out).not.toBeNull();
    expect(m![1]).toBe("0");
    expect(m![2]).toBe("1577836800");
    // the control proves the test can fail: the same git status without the variable refreshes (writes) the index
    expect(m![3]).not.toBe("1577836800");
  });

  it("a job runs in its own shell and delivers all of its output before it exits", async () => {
    for (let round = 0; round < 3; round++) {
      const job = await runtime.spawnJob("seq 1 100000; exit 5", { cwd: runtime.workspace });
      let out = "";
      job.onData((c) => {
        out += c;
      });
      expect(await job.exited).toBe(5);
      expect(out.length).toBe(688_895); // 588,895 characters, every \n sent as \r\n
      expect(out.endsWith("99999\r\n100000\r\n")).toBe(true);
    }
  });

  // Host pids: inside the OS sandbox `$!` is a pid of the sandbox's own namespace (node-sandbox.test.ts has that case).
  it("killing a job kills its children too (unsandboxed: the test reads host pids)", async () => {
    const off = await createNodeRuntime({ mode: "off" });
    onTestFinished(() => off.dispose());
    const job = await off.spawnJob("sleep 100 & echo child=$!; wait", { cwd: off.workspace, env: { X: "1" } });
    let out = "";
    job.onData((c) => {
      out += c;
    });
    const started = Date.now();
    while (!/child=\d+/.test(out) && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
    const child = Number(/child=(\d+)/.exec(out)![1]);
    expect(running(child)).toBe(true);
    job.kill();
    await job.exited;
    await new Promise((r) => setTimeout(r, 100));
    expect(running(child)).toBe(false);
  });

  it("fs: real files with errno codes", async () => {
    const fs = runtime.fs;
    const base = join(runtime.workspace, "fs-test");
    await fs.mkdir(join(base, "a/b"), { recursive: true });
    await fs.writeFile(join(base, "a/file.txt"), "hello");
    await fs.appendFile(join(base, "a/file.txt"), " world");
    await fs.appendFile(join(base, "a/new.log"), "created");
    expect(new TextDecoder().decode(await fs.readFile(join(base, "a/file.txt")))).toBe("hello world");
    expect(new TextDecoder().decode(await fs.readFile(join(base, "a/new.log")))).toBe("created");
    await fsp.symlink(join(base, "a/file.txt"), join(base, "a/link"));
    const entries = (await fs.readdir(join(base, "a"))).sort((x, y) => x.name.localeCompare(y.name));
    expect(entries).toEqual([
      { name: "b", type: "dir", size: 0 },
      { name: "file.txt", type: "file", size: 11 },
      { name: "link", type: "symlink", size: 0 },
      { name: "new.log", type: "file", size: 7 },
    ]);
    expect(await fs.stat(join(base, "a/link"))).toEqual({ type: "symlink", size: 0 });
    expect(await fs.stat(join(base, "missing"))).toBeNull();
    expect(await fs.realpath(join(base, "a/link"))).toBe(join(base, "a/file.txt"));
    await expect(fs.realpath(join(base, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.readFile(join(base, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.mkdir(join(base, "a"))).rejects.toMatchObject({ code: "EEXIST" });
    await expect(fs.readdir(join(base, "a/file.txt"))).rejects.toMatchObject({ code: "ENOTDIR" });
    await expect(fs.appendFile(join(base, "no/such/dir.log"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    await fs.rename(join(base, "a/file.txt"), join(base, "a/moved.txt"));
    expect(await fs.stat(join(base, "a/moved.txt"))).toEqual({ type: "file", size: 11 });
    await expect(fs.rm(join(base, "a"))).rejects.toHaveProperty("code");
    await fs.rm(join(base, "a"), { recursive: true });
    await fs.rm(join(base, "a"), { force: true });
    expect(await fs.stat(join(base, "a"))).toBeNull();
  });

  it("dispose kills its processes and removes the workspace it created, but keeps a given one", async () => {
    const own = await createNodeRuntime();
    const proc = await own.spawnShell({ cols: 80, rows: 24 });
    const workspace = own.workspace;
    await own.dispose();
    expect(await Promise.race([proc.exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("alive"), 2_000))])).toBe(
      "exited",
    );
    expect(existsSync(workspace)).toBe(false);
    await expect(own.spawnShell({ cols: 80, rows: 24 })).rejects.toThrow(/disposed/);

    const given = await fsp.mkdtemp(join(tmpdir(), "sandshell-given-"));
    const other = await createNodeRuntime({ workspace: given });
    expect(other.workspace).toBe(given);
    await other.dispose();
    expect(existsSync(given)).toBe(true);
    await fsp.rm(given, { recursive: true, force: true });
  });
});
