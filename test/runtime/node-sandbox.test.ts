// The node runtime's boundary, for real: bash inside @anthropic-ai/sandbox-runtime (bubblewrap), a clean environment,
// a private temp folder per sandbox, and file tools that a racing symlink swap cannot lead out of the workspace.
// Commands go straight to the shell session (sandbox.session.run): the guard would stop most of these probes before
// they run, and the point here is what the OS sandbox does when a command gets past it.

import { existsSync, readFileSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxManager } from "@anthropic-ai/sandbox-runtime";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { createSandbox, type Sandbox } from "../../src/node.ts";
import { createNodeRuntime } from "../../src/runtime/node.ts";
import { createNodeFs } from "../../src/runtime/node/fs.ts";
import { sandboxesRoot } from "../../src/runtime/node/private-dirs.ts";

const canSandbox = process.platform === "linux" && existsSync("/usr/bin/bwrap");

function text(r: { content: Array<{ text: string }> }): string {
  return r.content.map((c) => c.text).join("\n");
}

async function sh(sb: Sandbox, command: string): Promise<{ output: string; exitCode: number | null }> {
  const r = await sb.session.run(command, { timeoutSec: 30, softTimeoutSec: 30 });
  return { output: r.output, exitCode: r.exitCode };
}

/** An HTTP server on the host's 127.0.0.1 that answers "reached". */
async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe.skipIf(!canSandbox)("node runtime in the OS sandbox (bubblewrap)", () => {
  let sb: Sandbox;
  let fakeHome: string;
  const secret = `SECRET-${process.pid}`;

  beforeAll(async () => {
    // A host user's home with credentials in it (the library hides what we tell it to: we name these paths).
    fakeHome = await fsp.mkdtemp(join(tmpdir(), "sandshell-home-"));
    await fsp.mkdir(join(fakeHome, ".ssh"));
    await fsp.writeFile(join(fakeHome, ".ssh/id_x"), secret);
    await fsp.mkdir(join(fakeHome, ".aws"));
    await fsp.writeFile(join(fakeHome, ".aws/credentials"), secret);
    await fsp.writeFile(join(fakeHome, ".netrc"), secret);
    await fsp.writeFile(join(fakeHome, "notes.txt"), secret);
    process.env.OPENAI_API_KEY = "sk-host-secret";
    sb = await createSandbox({
      approver: "deny",
      runtimeOptions: { node: { hostHome: fakeHome, env: { CALLER_VAR: "given" } } },
    });
  });

  afterAll(async () => {
    delete process.env.OPENAI_API_KEY;
    await sb?.close();
    await fsp.rm(fakeHome, { recursive: true, force: true });
  });

  it("says it is sandboxed, with no network, in runtimeInfo", () => {
    expect(sb.runtimeInfo.isolation).toMatchObject({ state: "sandboxed", network: [], tmp: "private", files: "proc-fd" });
    expect(sb.runtimeInfo.isolation?.reason).toMatch(/bubblewrap/);
  });

  it("a write outside the workspace and the temp folder fails: /etc, /usr; a write to /tmp lands in the private folder, not the host's /tmp", async () => {
    const probe = `sandshell-probe-${process.pid}`;
    for (const target of [`/etc/${probe}`, `/usr/${probe}`, `/var/${probe}`]) {
      const r = await sh(sb, `echo x > ${target}; echo "rc=$?"`);
      expect(r.output, target).toMatch(/(Read-only file system|Permission denied|No such file)[\s\S]*rc=1/);
      expect(existsSync(target), target).toBe(false);
    }
    expect((await sh(sb, `echo x > /tmp/${probe}; echo "rc=$?"`)).output).toBe("rc=0\n");
    expect(existsSync(`/tmp/${probe}`)).toBe(false);
    expect(readFileSync(join(sb.runtimeInfo.isolation!.tempDir, probe), "utf8")).toBe("x\n");
    // The hidden home is an empty scratch folder inside the sandbox (the library mounts a tmpfs over it): a write
    // there is lost, it never reaches the host.
    await sh(sb, `echo x > ${join(fakeHome, probe)}`);
    expect(existsSync(join(fakeHome, probe))).toBe(false);
    // Through a program the guard cannot see into, too.
    const py = await sh(sb, `python3 -c "open('/etc/${probe}', 'w').write('x')" 2>&1 | tail -1`);
    expect(py.output).toMatch(/OSError|Read-only/);
    expect(existsSync(`/etc/${probe}`)).toBe(false);
  });

  it("the host user's credential paths and home cannot be read", async () => {
    for (const path of [".ssh/id_x", ".aws/credentials", ".netrc", "notes.txt"]) {
      const r = await sh(sb, `cat ${join(fakeHome, path)}; echo "rc=$?"`);
      expect(r.output, path).not.toContain(secret);
      expect(r.output, path).toMatch(/rc=1/);
    }
    const grep = await sh(sb, `grep -r ${secret} ${fakeHome} /tmp 2>/dev/null | head -3; echo done`);
    expect(grep.output).toBe("done\n");
  });

  it("the network is off: the host's 127.0.0.1 and a domain are unreachable, while unsandboxed the same call works", async () => {
    const { server, port } = await listen();
    onTestFinished(() => void server.close());
    const inside = await sh(sb, `curl -sS -m 5 http://127.0.0.1:${port}/ 2>&1; echo "rc=$?"`);
    expect(inside.output).not.toContain("reached");
    expect(inside.output).toMatch(/rc=[1-9]/);
    const node = await sh(sb, `node -e "fetch('http://127.0.0.1:${port}/').then(r=>r.text()).then(console.log, e=>console.log('refused', e.cause?.code))"`);
    expect(node.output).toMatch(/^refused/);
    const domain = await sh(sb, `curl -sS -m 5 http://example.com/ 2>&1; echo "rc=$?"`);
    expect(domain.output).toMatch(/Could not resolve host[\s\S]*rc=6/);

    // The probe is real: the same command from an unsandboxed shell reaches the server.
    const off = await createSandbox({ sandbox: "off", approver: "deny" });
    onTestFinished(() => off.close());
    expect(off.runtimeInfo.isolation?.state).toBe("off");
    expect((await sh(off, `curl -sS -m 5 http://127.0.0.1:${port}/`)).output).toBe("reached");
  });

  it("network.allow opens exactly the listed destinations, through the library's proxy", async () => {
    const open = await listen();
    const closed = await listen();
    onTestFinished(() => void open.server.close());
    onTestFinished(() => void closed.server.close());
    const allowed = await createSandbox({ approver: "deny", network: { allow: [`127.0.0.1:${open.port}`] } });
    onTestFinished(() => allowed.close());
    expect(allowed.runtimeInfo.isolation).toMatchObject({ state: "sandboxed", network: [`127.0.0.1:${open.port}`] });
    // NO_PROXY lists 127.0.0.1 (the sandbox's own loopback); send these through the proxy explicitly.
    const yes = await sh(allowed, `NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:${open.port}/`);
    expect(yes.output).toBe("reached");
    const no = await sh(allowed, `NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:${closed.port}/ 2>&1; echo "rc=$?"`);
    expect(no.output).not.toContain("reached");
    // The first sandbox's allow list is its own: the one without a list still reaches nothing.
    const other = await sh(sb, `NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:${open.port}/ 2>&1; echo "rc=$?"`);
    expect(other.output).not.toContain("reached");
  });

  it("the workspace still works: write, read, run a script, git init and commit", async () => {
    const r = await sh(
      sb,
      [
        "printf 'print(6*7)\\n' > calc.py && python3 calc.py",
        "echo 'console.log(\"node ok\")' > run.js && node run.js",
        "mkdir -p deep/er && echo nested > deep/er/f && cat deep/er/f",
        "git init -q repo && cd repo && echo a > a && git add a && git -c user.email=a@b -c user.name=a commit -qm first && git log --oneline | wc -l && cd ..",
        "t=$(mktemp) && echo tmp-ok > \"$t\" && cat \"$t\" && dirname \"$t\"",
      ].join(" && "),
    );
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe("42\nnode ok\nnested\n1\ntmp-ok\n/tmp\n");
    expect(readFileSync(join(sb.runtimeInfo.workspace, "deep/er/f"), "utf8")).toBe("nested\n");
  });

  it("the environment is the positive list plus the caller's: no host secret, HOME the workspace, TMPDIR the private /tmp", async () => {
    const r = await sh(sb, "env | cut -d= -f1 | sort | tr '\\n' ' '; echo; echo \"$HOME|$TMPDIR|$CALLER_VAR|${OPENAI_API_KEY-unset}\"");
    const [names, values] = r.output.trim().split("\n");
    expect(values).toBe(`${sb.runtimeInfo.workspace}|/tmp|given|unset`);
    const allowed = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TERM|USER|LOGNAME|TZ|HOME|TMPDIR|SHELL|PAGER|GIT_PAGER|NO_COLOR|GIT_TERMINAL_PROMPT|GIT_OPTIONAL_LOCKS|npm_config_yes|CALLER_VAR|SANDBOX_RUNTIME|GIT_CONFIG_GLOBAL|INPUTRC|PWD|OLDPWD|SHLVL|_)$/;
    const extra = names!.split(" ").filter((n) => n !== "" && !allowed.test(n));
    expect(extra).toEqual([]);
    expect(names).not.toContain("OPENAI_API_KEY");
  });

  it("the private temp folder is 0700, holds spill files, and is removed on close", async () => {
    const own = await createSandbox({ approver: "deny", shell: { maxOutputChars: 2_000 } });
    const temp = own.runtimeInfo.isolation!.tempDir;
    expect(temp.startsWith(sandboxesRoot())).toBe(true);
    expect(statSync(temp).mode & 0o777).toBe(0o700);
    const r = await own.session.run("seq 1 20000");
    expect(r.fullOutputPath?.startsWith(`${temp}/`)).toBe(true);
    await own.close();
    expect(existsSync(temp)).toBe(false);
  });

  it("two sandboxes on one host cannot read or overwrite each other's temp files or workspace", async () => {
    const a = sb;
    const b = await createSandbox({ approver: "deny" });
    onTestFinished(() => b.close());
    const aTemp = a.runtimeInfo.isolation!.tempDir;
    const aWs = a.runtimeInfo.workspace;
    await sh(a, `echo a-private > "$TMPDIR/mine.txt" && echo a-ws > ws-file.txt`);
    // B's shell: A's folders are not there for it (hidden), let alone writable.
    const look = await sh(b, `cat ${aTemp}/mine.txt ${aWs}/ws-file.txt 2>&1; echo b > ${aTemp}/mine.txt 2>&1; echo "rc=$?"; ls ${sandboxesRoot()} | wc -l`);
    expect(look.output).not.toContain("a-private");
    expect(look.output).not.toContain("a-ws");
    expect(look.output).toMatch(/rc=1\n3\n$/); // only B's own three folders (its workspace, temp and command folders) are visible
    expect(readFileSync(join(aTemp, "mine.txt"), "utf8")).toBe("a-private\n");
    // B's file tools read its own temp folder, never A's: A's folder is not there for them either.
    const read = await b.callTool("read_file", { path: `${aTemp}/mine.txt` });
    expect(read.isError).toBe(true);
    expect(text(read)).not.toContain("a-private");
    await sh(b, `echo b-private > "$TMPDIR/b.txt"`);
    expect(text(await b.callTool("read_file", { path: `${b.runtimeInfo.isolation!.tempDir}/b.txt` }))).toContain("b-private");
  });

  it("/tmp is the sandbox's own: bash writes /tmp/x, read_file and a job read it, another sandbox does not see it, close removes it", async () => {
    const a = await createSandbox({ approver: "deny" });
    const b = await createSandbox({ approver: "deny" });
    onTestFinished(() => b.close());
    expect(a.runtimeInfo.isolation).toMatchObject({ state: "sandboxed", tmp: "private" });
    const aTemp = a.runtimeInfo.isolation!.tempDir;
    const name = `sandshell-own-tmp-${process.pid}`;
    // Through the bash tool, so the guard judges it as the agent's command would be judged: allowed, and it works.
    const w = await a.callTool("bash", { command: `echo a-scratch > /tmp/${name} && mkdir -p /tmp/d && echo deep > /tmp/d/f && ls /tmp` });
    expect(w.structuredContent).toMatchObject({ status: "completed", exitCode: 0, verdict: { decision: "allow" } });
    expect(text(w)).toContain(name);
    // The file tools name it as the shell does, and read, write and list it.
    const r = await a.callTool("read_file", { path: `/tmp/${name}` });
    expect(text(r)).toBe("     1\ta-scratch");
    expect(text(await a.callTool("read_file", { path: "/tmp/d/../d/f" }))).toBe("     1\tdeep");
    expect((await a.callTool("write_file", { path: "/tmp/from-tool.txt", content: "tool\n" })).isError).toBeUndefined();
    expect((await sh(a, "cat /tmp/from-tool.txt")).output).toBe("tool\n");
    expect(text(await a.callTool("list_dir", { path: "/tmp" }))).toMatch(/^\/tmp\/\n[\s\S]*from-tool\.txt/);
    // A background job runs in a sandbox of its own, with the same /tmp.
    const job = await a.callTool("bash", { command: `cat /tmp/${name}`, run_in_background: true });
    const out = await a.callTool("job_output", { id: job.structuredContent.jobId, wait: 30 });
    expect(text(out)).toContain("a-scratch");
    // Not on the host's /tmp, not in B's.
    expect(existsSync(`/tmp/${name}`)).toBe(false);
    expect(readFileSync(join(aTemp, name), "utf8")).toBe("a-scratch\n");
    expect((await sh(b, `cat /tmp/${name} 2>&1; ls /tmp`)).output).not.toContain("a-scratch");
    const other = await b.callTool("read_file", { path: `/tmp/${name}` });
    expect(other.isError).toBe(true);
    expect(text(other)).not.toContain("a-scratch");
    // The host's own /tmp is not visible inside (a file of the host user's there stays private to the host).
    const hostFile = join("/tmp", `sandshell-host-only-${process.pid}`);
    await fsp.writeFile(hostFile, "host-only");
    onTestFinished(() => fsp.rm(hostFile, { force: true }));
    expect((await sh(a, `cat ${hostFile} 2>&1`)).output).toMatch(/No such file/);
    await a.close();
    expect(existsSync(aTemp)).toBe(false);
  });

  it("a profile long enough for the library to pass its mounts on a file still gets the private /tmp, and its hidden paths stay hidden", async () => {
    // 350 folders with long names on PATH under a hidden home: each is a read-only bind back over the home's tmpfs,
    // which makes the line longer than one argument may be, so the library hands its mounts over on a file (--args).
    const home = await fsp.mkdtemp(join(tmpdir(), "sandshell-longhome-"));
    onTestFinished(() => fsp.rm(home, { recursive: true, force: true }));
    const dirs: string[] = [];
    for (let i = 0; i < 350; i++) dirs.push(join(home, `tools-${"x".repeat(200)}-${i}`));
    await Promise.all(dirs.map((d) => fsp.mkdir(d)));
    await fsp.writeFile(join(home, "secret.txt"), secret);
    const spy = vi.spyOn(SandboxManager, "wrapWithSandboxArgv");
    onTestFinished(() => spy.mockRestore());
    const long = await createSandbox({
      approver: "deny",
      runtimeOptions: { node: { hostHome: home, env: { PATH: ["/usr/local/bin", "/usr/bin", "/bin", ...dirs].join(":") } } },
    });
    onTestFinished(() => long.close());
    const r = await sh(long, `echo long > /tmp/l && cat /tmp/l; ls ${dirs[349]} >/dev/null && echo listed; cat ${join(home, "secret.txt")} 2>&1; echo "rc=$?"`);
    expect(r.output).toMatch(/^long\nlisted\n[\s\S]*rc=1\n$/);
    expect(r.output).not.toContain(secret);
    expect(readFileSync(join(long.runtimeInfo.isolation!.tempDir, "l"), "utf8")).toBe("long\n");
    const rendered = await Promise.all(spy.mock.results.map((m) => m.value as ReturnType<typeof SandboxManager.wrapWithSandboxArgv>));
    expect(rendered.some((w) => w.argv[2]?.startsWith("/bin/sh -c 'exec ") && w.argv[2].includes(" srt-args /proc/"))).toBe(true);
  }, 120_000);

  it("a symlink the agent plants at the name of the next setup file does not make the host write through it", async () => {
    const own = await createSandbox({ approver: "deny" });
    onTestFinished(() => own.close());
    const victim = join(await fsp.mkdtemp(join(tmpdir(), "sandshell-victim-")), "file");
    onTestFinished(() => fsp.rm(join(victim, ".."), { recursive: true, force: true }));
    await fsp.writeFile(victim, "ORIGINAL\n");
    // The next shell's setup file is rc-2.sh in the private folder, which the sandboxed shell can write (as /tmp).
    await sh(own, `for n in 2 3; do ln -s ${victim} /tmp/rc-$n.sh; ln -s ${victim} /tmp/env-$n; done`);
    await own.session.run("exit", { timeoutSec: 20 }).catch(() => undefined);
    expect((await sh(own, "echo respawned")).output).toBe("respawned\n");
    expect(readFileSync(victim, "utf8")).toBe("ORIGINAL\n");
  });

  it("a resize of the terminal reaches the sandboxed shell", async () => {
    const proc = await sb.runtime.spawnShell({ cols: 80, rows: 24 });
    onTestFinished(() => proc.kill());
    let out = "";
    proc.onData((c) => {
      out += c;
    });
    const until = async (re: RegExp): Promise<void> => {
      const t0 = Date.now();
      while (!re.test(out) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
      expect(out).toMatch(re);
    };
    await until(/\x1b\]654;prompt\x07/);
    proc.write("stty size\r");
    await until(/24 80\r\n/);
    proc.resize(132, 40);
    await new Promise((r) => setTimeout(r, 200));
    proc.write("stty size\r");
    await until(/40 132\r\n/);
  });

  it("killing a background job ends the processes it started inside the sandbox", async () => {
    const rt = sb.runtime;
    const job = await rt.spawnJob("(while :; do date +%s%N > beat; sleep 0.05; done) & wait", { cwd: rt.workspace });
    const beat = join(rt.workspace, "beat");
    const t0 = Date.now();
    while (!existsSync(beat) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
    job.kill();
    await job.exited;
    await new Promise((r) => setTimeout(r, 300));
    const before = readFileSync(beat, "utf8");
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(beat, "utf8")).toBe(before);
  });
});

describe("sandbox option", () => {
  it('sandbox: "required" where bubblewrap cannot run is an error; "auto" opens unsandboxed and says why', async () => {
    const missing = "/nonexistent/bwrap";
    await expect(createSandbox({ sandbox: "required", approver: "deny", runtimeOptions: { node: { bwrapPath: missing } } })).rejects.toThrow(
      /required.*cannot run here: bubblewrap \(bwrap\) is not executable at \/nonexistent\/bwrap/,
    );
    const auto = await createSandbox({ approver: "deny", runtimeOptions: { node: { bwrapPath: missing } } });
    onTestFinished(() => auto.close());
    expect(auto.runtimeInfo.isolation?.state).toBe("unsandboxed");
    expect(auto.runtimeInfo.isolation?.reason).toMatch(/^unsandboxed: bubblewrap \(bwrap\) is not executable/);
    expect(auto.runtimeInfo.note).toBe(auto.runtimeInfo.isolation?.reason);
    // Still a clean environment and a private temp folder.
    const r = await sh(auto, 'echo "$TMPDIR|${OPENAI_API_KEY-unset}"');
    expect(r.output).toBe(`${auto.runtimeInfo.isolation?.tempDir}|unset\n`);
  });

  it("a bad sandbox or network option is a TypeError, and leaves nothing behind", async () => {
    const before = (await fsp.readdir(sandboxesRoot()).catch(() => [])).length;
    await expect(createNodeRuntime({ mode: "maybe" as never })).rejects.toThrow(/sandbox must be "auto", "required" or "off"/);
    await expect(createNodeRuntime({ network: { allow: [""] } })).rejects.toThrow(/network.allow is a list of domains/);
    expect((await fsp.readdir(sandboxesRoot()).catch(() => [])).length).toBe(before);
  });
});

// Both ways the node file system verifies a folder: through /proc/self/fd (Linux), and the helper process's working
// directory (where there is no /proc/self/fd: macOS), forced here. Two attackers: a shell loop (rm, mkdir, ln: a swap
// every millisecond or so, with moments where d is missing) and a python3 loop of renameat2(RENAME_EXCHANGE), which
// flips d between the folder and the symlink atomically, a few microseconds apart, so d is always one or the other.
const ATTACKERS = {
  "a shell loop": (outside: string) => `while :; do rm -rf d; mkdir d; echo inside > d/f; rm -rf d; ln -s ${outside} d; done`,
  "an exchange loop": (outside: string) =>
    `rm -rf d x; mkdir d && echo inside > d/f && ln -s ${outside} x && exec python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
while True:
    libc.renameat2(-100, b"d", -100, b"x", 2)'`,
};

describe.skipIf(process.platform !== "linux").each([
  ["proc-fd", "a shell loop"],
  ["proc-fd", "an exchange loop"],
  ["cwd-helper", "a shell loop"],
  ["cwd-helper", "an exchange loop"],
] as const)("file tools (%s) against a racing symlink swap by %s (node)", (access, attacker) => {
  const ATTEMPTS = 200;

  it(`no read, write or edit escapes the workspace in ${ATTEMPTS} attempts each, while a naive open does`, async () => {
    const outside = await fsp.mkdtemp(join(tmpdir(), "sandshell-outside-"));
    onTestFinished(() => fsp.rm(outside, { recursive: true, force: true }));
    await fsp.writeFile(join(outside, "f"), "OUTSIDE-SECRET\n");
    const rt = await createNodeRuntime();
    onTestFinished(() => rt.dispose());
    const sb = await createSandbox({ approver: "deny", runtime: { ...rt, fs: createNodeFs(access) } });
    onTestFinished(() => sb.close());
    const ws = sb.runtimeInfo.workspace;
    // The attacker: a background process of the agent, inside the sandbox, swapping d between a folder and a symlink.
    const job = await sb.runtime.spawnJob(ATTACKERS[attacker](outside), { cwd: ws });
    onTestFinished(() => job.kill());
    // Until the attacker is seen at work: d has been a folder and a symlink.
    const seen = new Set<string>();
    const t0 = Date.now();
    while (seen.size < 2 && Date.now() - t0 < 20_000) {
      const st = await fsp.lstat(join(ws, "d")).catch(() => null);
      if (st !== null) seen.add(st.isSymbolicLink() ? "symlink" : "dir");
      await new Promise((r) => setTimeout(r, 5));
    }
    expect([...seen].sort()).toEqual(["dir", "symlink"]);

    let naive = 0;
    let reads = 0;
    let writes = 0;
    // At least ATTEMPTS rounds, and on until the naive open has escaped once (a loaded machine can starve the attacker).
    for (let i = 0; i < ATTEMPTS || (naive === 0 && i < 10 * ATTEMPTS); i++) {
      const r = await sb.callTool("read_file", { path: "d/f" });
      expect(text(r)).not.toContain("OUTSIDE-SECRET");
      if (!r.isError) reads++;
      const w = await sb.callTool("write_file", { path: `d/w${i}`, content: "x" });
      if (!w.isError) writes++;
      await sb.callTool("edit_file", { path: "d/f", old_str: "inside", new_str: "edited" });
      // The same race against a plain open by name, which is what the tools did before.
      const plain = await fsp.readFile(join(ws, "d/f"), "utf8").catch(() => "");
      if (plain.includes("OUTSIDE-SECRET")) naive++;
    }
    const escaped = (await fsp.readdir(outside)).filter((n) => n !== "f");
    expect(escaped).toEqual([]);
    expect(readFileSync(join(outside, "f"), "utf8")).toBe("OUTSIDE-SECRET\n");
    expect(naive).toBeGreaterThan(0); // the race is real
    expect(reads + writes).toBeGreaterThan(0); // and the tools still work in between
  }, 120_000);
});

describe.skipIf(process.platform !== "linux").each(["proc-fd", "cwd-helper"] as const)("the node file system (%s)", (access) => {
  const nodeFs = createNodeFs(access);

  it("the node file system refuses a path through a symlink instead of following it", async () => {
    const base = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "sandshell-nofollow-")));
    onTestFinished(() => fsp.rm(base, { recursive: true, force: true }));
    await fsp.mkdir(join(base, "real"));
    await fsp.writeFile(join(base, "real/f"), "content");
    await fsp.symlink(join(base, "real"), join(base, "link"));
    expect(new TextDecoder().decode(await nodeFs.readFile(join(base, "real/f")))).toBe("content");
    // ELOOP, or ENOTDIR where the kernel answers O_DIRECTORY|O_NOFOLLOW on a symlink so.
    await expect(nodeFs.readFile(join(base, "link/f"))).rejects.toMatchObject({ code: expect.stringMatching(/^(ELOOP|ENOTDIR)$/) });
    await expect(nodeFs.writeFile(join(base, "link/g"), "x")).rejects.toMatchObject({ code: expect.stringMatching(/^(ELOOP|ENOTDIR)$/) });
    await expect(nodeFs.readFile(join(base, "link"))).rejects.toHaveProperty("code");
    expect(existsSync(join(base, "real/g"))).toBe(false);
    // A write replaces the file whole and keeps its mode.
    await fsp.chmod(join(base, "real/f"), 0o640);
    await nodeFs.writeFile(join(base, "real/f"), "new");
    expect(readFileSync(join(base, "real/f"), "utf8")).toBe("new");
    expect(statSync(join(base, "real/f")).mode & 0o777).toBe(0o640);
    expect((await fsp.readdir(join(base, "real"))).sort()).toEqual(["f"]);
    // Every other call too: through the link refused, on the real folder done.
    await expect(nodeFs.appendFile(join(base, "link/a"), "x")).rejects.toHaveProperty("code");
    await expect(nodeFs.mkdir(join(base, "link/m/n"), { recursive: true })).rejects.toHaveProperty("code");
    await expect(nodeFs.readdir(join(base, "link"))).rejects.toHaveProperty("code");
    expect(await nodeFs.stat(join(base, "link"))).toEqual({ type: "symlink", size: 0 });
    expect((await fsp.readdir(join(base, "real"))).sort()).toEqual(["f"]);
    await nodeFs.mkdir(join(base, "real/m/n"), { recursive: true });
    await nodeFs.appendFile(join(base, "real/m/n/log"), "a");
    await nodeFs.appendFile(join(base, "real/m/n/log"), "b");
    expect(await nodeFs.stat(join(base, "real/m/n/log"))).toEqual({ type: "file", size: 2 });
    expect((await nodeFs.readdir(join(base, "real"))).map((e) => `${e.name}:${e.type}`).sort()).toEqual(["f:file", "m:dir"]);
    await nodeFs.rename(join(base, "real/f"), join(base, "real/g"));
    await nodeFs.rm(join(base, "real/m"), { recursive: true });
    expect((await fsp.readdir(join(base, "real"))).sort()).toEqual(["g"]);
    expect(await nodeFs.stat(join(base, "real/none"))).toBeNull();
  });
});
