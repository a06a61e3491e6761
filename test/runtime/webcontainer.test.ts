// Protocol tests of the webcontainer runtime: the real session engine (createShellSession) over the real adapter,
// with a scripted fake of @webcontainer/api (webcontainer-fake.ts) whose `jsh --osc` replays the transcripts of the
// fact sheet (shared/research/webcontainer-and-jsh.md): markers split across chunks, several in one chunk, both
// places of `interactive`, both orders of `prompt` and the prompt's text, the two-line `❯` prompt, `pid=` markers,
// UTF-8 split the way WebContainer's decoder splits it, `exit=-1:130` after C-c. The boot itself cannot run here
// (no StackBlitz): `npm run test:live` covers it on machines that reach StackBlitz.

import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../src/runtime/types.ts";
import {
  createWebContainerRuntime,
  type WebContainerRuntime,
  type WebContainerRuntimeOptions,
  WebContainerUnavailableError,
} from "../../src/runtime/webcontainer.ts";
import { JshOutputShaper, UNKNOWN_EXIT_LINE } from "../../src/runtime/webcontainer/jsh-stream.ts";
import { plainLines, promptPathAtEnd } from "../../src/runtime/webcontainer/jsh-prompt.ts";
import { WEBCONTAINER } from "../../src/limits.ts";
import { createShellSession, type ShellSession, type ShellSessionOptions } from "../../src/shell/session.ts";
import { DEFAULT_PROFILE, FAKE_PROGRAMS, type JshStyle, makeWorld, mark } from "./webcontainer-fake.ts";

type World = ReturnType<typeof makeWorld>;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function options(w: World, extra: WebContainerRuntimeOptions = {}): WebContainerRuntimeOptions {
  return { api: w.api, isolation: { isolated: true }, probe: false, promptHoldMs: 30, ...extra };
}

async function setup(
  style: Partial<JshStyle> = {},
  sessionOptions: ShellSessionOptions = {},
): Promise<{ w: World; runtime: WebContainerRuntime; s: ShellSession; raw: string[] }> {
  const w = makeWorld(style);
  cleanups.push(w.cleanup);
  const runtime = await createWebContainerRuntime(options(w));
  cleanups.push(() => runtime.dispose());
  const s = await createShellSession(runtime, {
    spillDir: `${w.outside}/spill`,
    softTimeoutSec: 2,
    promptQuietMs: 200,
    startupTimeoutMs: 3_000,
    ...sessionOptions,
  });
  cleanups.push(() => s.close());
  const raw: string[] = [];
  s.onRawOutput((chunk) => raw.push(chunk));
  return { w, runtime, s, raw };
}

/** The checks every transcript variant must pass. */
async function basics(s: ShellSession, runtime: Runtime): Promise<void> {
  const hi = await s.run("echo hi");
  expect(hi).toMatchObject({ output: "hi\n", exitCode: 0, status: "completed", cwd: runtime.workspace });
  expect((await s.run("false")).exitCode).toBe(1);
  const node = await s.run("node -v");
  expect(node.output).toBe("v20.19.1\n");
  const missing = await s.run("nope --x");
  expect(missing).toMatchObject({ output: "jsh: command not found: nope\n", exitCode: 127 });
  const spaced = await s.run("echo 'a  b'   c");
  expect(spaced.output).toBe("a  b c\n");
  expect((await s.run("mkdir -p sub/deeper")).exitCode).toBe(0);
  const cd = await s.run("cd sub/deeper");
  expect(cd).toMatchObject({ output: "", exitCode: 0, cwd: `${runtime.workspace}/sub/deeper` });
  expect((await s.run("pwd")).output).toBe(`${runtime.workspace}/sub/deeper\n`);
  expect((await s.run("cd ../..")).cwd).toBe(runtime.workspace);
}

describe("webcontainer protocol tests: jsh transcripts through the session engine", () => {
  for (const promptOrder of ["marker-first", "text-first"] as const) {
    for (const interactive of ["before-prompt", "startup", "first-command"] as const) {
      it(`prompt ${promptOrder}, interactive at ${interactive}: output, exit codes, cwd`, async () => {
        const { s, runtime } = await setup({ promptOrder, interactive });
        await basics(s, runtime);
      });
    }
  }

  it("the 3P order: prompt → echo → interactive (first time) → pid= → output → exit=-1:0 → prompt", async () => {
    const { s, runtime, raw } = await setup({ interactive: "first-command", pid: true, startupPromptMarker: true });
    await basics(s, runtime);
    const stream = raw.join("");
    expect(stream).toContain(mark("pid=100"));
    expect(stream.indexOf(mark("interactive"))).toBeGreaterThan(stream.indexOf("echo hi"));
  });

  it("no marker with the first prompt, only `interactive`: the session starts on it", async () => {
    const { s, runtime } = await setup({ startupPromptMarker: false, interactive: "startup" });
    await basics(s, runtime);
  });

  it("no marker at all with the first prompt: the drawn `❯` prompt counts as ready after a while", async () => {
    const t0 = performance.now();
    const { s, runtime } = await setup({ startupPromptMarker: false, interactive: "first-command" });
    expect(performance.now() - t0).toBeGreaterThan(1_500); // WEBCONTAINER.startupPromptMs
    await basics(s, runtime);
  }, 15_000);

  for (const split of [1, 2, 3, 5, 7]) {
    it(`markers split across chunks: output in ${split}-character chunks`, async () => {
      const { s, runtime } = await setup({ split, promptOrder: split % 2 ? "marker-first" : "text-first" });
      await basics(s, runtime);
    });
  }

  it("the transcript: a marker split mid-payload, then two markers in one chunk, then the prompt", async () => {
    const prompt = "\r\n\x1b[1;34m~/project\x1b[0m\r\n\x1b[35m❯\x1b[0m ";
    const { s, runtime } = await setup({
      transcripts: {
        "echo split": ["split\r\n\x1b]654;ex", "it=-1:0\x07\x1b]654;pro", `mpt\x07${prompt}`],
        "echo together": [`together\r\n\x1b]654;exit=-1:3\x07\x1b]654;prompt\x07${prompt}`],
        "echo esc": ["esc\r\n\x1b]654;exit=-1:0\x1b", `\\\x1b]654;prompt\x1b\\${prompt}`],
        "echo one-by-one": [..."one\r\n\x1b]654;exit=-1:4\x07\x1b]654;prompt\x07", ...prompt],
      },
    });
    expect(await s.run("echo split")).toMatchObject({ output: "split\n", exitCode: 0, status: "completed" });
    expect(await s.run("echo together")).toMatchObject({ output: "together\n", exitCode: 3 });
    expect(await s.run("echo esc")).toMatchObject({ output: "esc\n", exitCode: 0 });
    expect(await s.run("echo one-by-one")).toMatchObject({ output: "one\n", exitCode: 4, cwd: runtime.workspace });
    expect((await s.run("echo after")).output).toBe("after\n");
  });

  it("the echo is cut at the start marker the adapter adds, also when the line editor redraws the line", async () => {
    const { s, raw } = await setup({ redraw: true });
    const r = await s.run("echo hello world");
    expect(r.output).toBe("hello world\n");
    const stream = raw.join("");
    const start = stream.indexOf(mark("start=jsh"));
    expect(start).toBeGreaterThan(stream.indexOf("echo hello world"));
    expect(start).toBeLessThan(stream.indexOf("hello world\r\n"));
    // a command whose output repeats the command line is not mistaken for its echo
    expect((await s.run("echo echo")).output).toBe("echo\n");
  });

  it("the two-line prompt with ❯ gives the cwd, inside and outside the home directory", async () => {
    const { s, runtime, w } = await setup();
    await s.run("mkdir -p a/b");
    expect((await s.run("cd a/b")).cwd).toBe(`${runtime.workspace}/a/b`);
    expect(s.cwd).toBe(`${runtime.workspace}/a/b`);
    expect((await s.run(`cd ${w.outside}`)).cwd).toBe(w.outside);
    expect((await s.run(`cd ${runtime.workspace}`)).cwd).toBe(runtime.workspace); // shown as `~/project` again
  });

  it("UTF-8: whole characters pass intact", async () => {
    const { s } = await setup({ split: 1 });
    expect((await s.run("echo é € 😀 日本 ❯")).output).toBe("é € 😀 日本 ❯\n");
  });

  it("UTF-8 split across byte chunks arrives as U+FFFD (WebContainer's decoder), and the command still completes", async () => {
    const { s, runtime } = await setup({ bytes: 1 });
    const r = await s.run("echo aé€😀z");
    expect(r.status).toBe("completed");
    expect(r.exitCode).toBe(0);
    expect(r.output.startsWith("a\uFFFD")).toBe(true);
    expect(r.output.endsWith("z\n")).toBe(true);
    expect(r.output).not.toContain("é");
    // the `❯` of every prompt is mangled too: the prompt is still recognised and the cwd still read
    await s.run("mkdir -p x");
    expect((await s.run("cd x")).cwd).toBe(`${runtime.workspace}/x`);
  });

  it("UTF-8 in 3-byte chunks: some characters survive, some become U+FFFD; the markers never do", async () => {
    const { s } = await setup({ bytes: 3 });
    for (let i = 0; i < 5; i++) {
      const r = await s.run(`echo ${"é".repeat(i)}ok€`);
      expect(r.exitCode).toBe(0);
      expect(r.output).toMatch(/ok.*\n$/);
    }
  });

  it("C-c stops a running command: exit=-1:130", async () => {
    const { s } = await setup();
    const r = await s.run('node -e "setInterval(()=>{},1000)"', { softTimeoutSec: 0.3 });
    expect(r.status).toBe("running");
    const stopped = await s.input("C-c");
    expect(stopped).toMatchObject({ status: "interrupted", exitCode: 130 });
    const again = await s.run('node -e "setInterval(()=>{},1000)"', { softTimeoutSec: 0.3 });
    expect(again.status).toBe("running");
    expect(await s.interrupt()).toMatchObject({ status: "interrupted", exitCode: 130 });
    expect((await s.run("echo still-here")).output).toBe("still-here\n");
  });

  it("C-c when jsh prints no exit marker for it: the adapter supplies exit=…:130, no respawn", async () => {
    const { s, w } = await setup({ exitAfterInterrupt: false }, { interruptGraceMs: 1_000 });
    expect((await s.run('node -e "setInterval(()=>{},1000)"', { softTimeoutSec: 0.3 })).status).toBe("running");
    expect(await s.input("C-c")).toMatchObject({ status: "interrupted", exitCode: 130 });
    expect(await s.run("echo fine")).toMatchObject({ output: "fine\n", exitCode: 0 });
    expect(w.instance.spawns.filter((sp) => sp.args[0] === "--osc")).toHaveLength(1);
  });

  it("cat waiting for input gets text, then C-d ends it", async () => {
    const { s } = await setup();
    expect((await s.run("cat", { softTimeoutSec: 0.3 })).status).toBe("running");
    const echoed = await s.input("hello", { softTimeoutSec: 0.3 });
    expect(echoed.output).toContain("hello");
    expect(await s.input("C-d")).toMatchObject({ status: "completed", exitCode: 0 });
  });

  it("exit ends jsh; the next command gets a fresh shell in the same directory and is told so", async () => {
    const { s, runtime, w } = await setup();
    await s.run("mkdir -p kept");
    await s.run("cd kept");
    const bye = await s.run("exit");
    expect(bye.notice ?? "").toMatch(/shell exited/);
    const next = await s.run("pwd");
    expect(next.notice ?? "").toMatch(/fresh shell/);
    expect(next.output).toBe(`${runtime.workspace}/kept\n`);
    const shells = w.instance.spawns.filter((sp) => sp.args[0] === "--osc");
    expect(shells).toHaveLength(2);
    expect(shells[1]!.options?.cwd).toBe("kept");
  });

  it("exit outside the workdir: the fresh shell spawns in the workdir, then cds there before it is shown", async () => {
    const { s, w, raw } = await setup();
    expect((await s.run(`cd ${w.outside}`)).cwd).toBe(w.outside);
    await s.run("exit");
    const from = raw.length;
    const next = await s.run("pwd");
    expect(next).toMatchObject({ output: `${w.outside}\n`, exitCode: 0, cwd: w.outside });
    expect(s.cwd).toBe(w.outside);
    const shells = w.instance.spawns.filter((sp) => sp.args[0] === "--osc");
    expect(shells).toHaveLength(2);
    expect(shells[1]!.options?.cwd).toBeUndefined(); // the workdir: spawn cwd is relative to it
    expect(shells[1]!.proc.inputs[0]).toBe(`cd ${w.outside}\r`);
    expect((await s.run("echo after")).output).toBe("after\n");
    expect(raw.slice(from).join("")).not.toContain(`cd ${w.outside}`); // the adapter's own cd is not shown
  });

  it("a person's command is seen running (start marker), so an agent's command is refused until it ends", async () => {
    const { s } = await setup();
    const states: string[] = [];
    s.onState((st) => states.push(`${st.state}${st.by ? `:${st.by}` : ""}`));
    s.writeFromPerson('node -e "setInterval(()=>{},1000)"\r');
    await expect.poll(() => states.at(-1), { timeout: 2_000 }).toBe("running:person");
    const refused = await s.run("echo agent");
    expect(refused.error ?? "").toMatch(/person/);
    s.writeFromPerson("\x03");
    await expect.poll(() => states.at(-1), { timeout: 2_000 }).toBe("idle");
    expect((await s.run("echo agent")).output).toBe("agent\n");
  });

  it("markerNonce is null: a command that prints an exit marker ends its call early (documented), and the shell stays in step", async () => {
    const { s, runtime } = await setup();
    expect(runtime.markerNonce).toBeNull();
    const r = await s.run("fake-marker");
    expect(r.output).toBe("before");
    expect(r.exitCode).toBe(0);
    expect((await s.run("echo next")).output).toBe("next\n");
  });

  it("the agent's jsh: `jsh --osc`, a wide terminal that stays wide, the agent's environment", async () => {
    const { s, w } = await setup();
    await s.run("echo typed");
    const shell = w.instance.spawns.find((sp) => sp.args[0] === "--osc")!;
    expect(shell.command).toBe("jsh");
    expect(shell.options?.terminal?.cols).toBe(1_000);
    expect(shell.options?.env).toMatchObject({ PAGER: "cat", GIT_TERMINAL_PROMPT: "0", npm_config_yes: "true", NO_COLOR: "1" });
    s.resize(80, 24);
    expect(shell.proc.resizes.at(-1)).toEqual({ cols: 1_000, rows: 24 });
    // one writer: what the session typed went through the shell's input stream
    expect(shell.proc.inputs.join("")).toBe("echo typed\r");
  });
});

describe("webcontainer runtime: jobs, events, dispose", () => {
  it("spawnJob runs `jsh -c` with cwd relative to the workdir and the environment", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w));
    cleanups.push(() => runtime.dispose());
    await runtime.fs.mkdir(`${runtime.workspace}/site`);
    const job = await runtime.spawnJob("echo job-out", { cwd: `${runtime.workspace}/site`, env: { PORT: "3000" } });
    let out = "";
    job.onData((c) => (out += c));
    expect(await job.exited).toBe(0);
    expect(out).toBe("job-out\r\n");
    const rec = w.instance.spawns.at(-1)!;
    expect(rec.command).toBe("jsh");
    expect(rec.args).toEqual(["-c", "echo job-out"]);
    expect(rec.options?.cwd).toBe("site");
    expect(rec.options?.env).toMatchObject({ PORT: "3000", PAGER: "cat" });
    // a missing directory: the job starts in the workspace
    const other = await runtime.spawnJob("true", { cwd: `${runtime.workspace}/gone` });
    expect(await other.exited).toBe(0);
    expect(w.instance.spawns.at(-1)!.options?.cwd).toBeUndefined();
  });

  it("background jobs through the session: output, exit code, kill", async () => {
    const { s } = await setup();
    const done = await s.startJob("echo from-job");
    const out = await s.jobOutput(done.id, { waitSec: 2 });
    expect(out.output).toBe("from-job\n");
    const server = await s.startJob('node -e "setInterval(()=>{},1000)"');
    const first = await s.jobOutput(server.id, { waitSec: 1 });
    expect(first.output).toContain("serving on http://localhost:3000");
    expect(first.status).toBe("running");
    const killed = await s.killJob(server.id);
    expect(killed.killed).toBe(true);
    expect(killed.status).toBe("exited");
  });

  it("server-ready and error events become runtime events", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w));
    const events: unknown[] = [];
    runtime.on((e) => events.push(e));
    w.instance.fire("server-ready", 5173, "https://x--5173--y.local-credentialless.webcontainer-api.io");
    w.instance.fire("error", { message: "internal trouble" });
    expect(events).toEqual([
      { type: "server-ready", port: 5173, url: "https://x--5173--y.local-credentialless.webcontainer-api.io" },
      { type: "error", message: "internal trouble" },
    ]);
    await runtime.dispose();
    w.instance.fire("error", { message: "after dispose" });
    expect(events).toHaveLength(2);
    expect(w.instance.teardowns).toBe(0); // one instance per page: dispose leaves it booted
  });

  it("dispose kills what the runtime started", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w, { killExitMs: 200 }));
    const shell = await runtime.spawnShell({ cols: 100, rows: 20 });
    const job = await runtime.spawnJob('node -e "setInterval(()=>{},1000)"', { cwd: runtime.workspace });
    await runtime.dispose();
    expect(await shell.exited).toBeTypeOf("number");
    expect(await job.exited).toBeTypeOf("number");
    expect(w.instance.spawns.every((sp) => sp.proc.kills > 0)).toBe(true);
    await expect(runtime.spawnShell({ cols: 100, rows: 20 })).rejects.toThrow(/disposed/);
  });
});

describe("webcontainer runtime: boot", () => {
  function headers(h: Record<string, string>) {
    return async () => ({ headers: new Headers(h), ok: true, status: 200 });
  }

  it("refuses at once when the page is not cross-origin isolated, naming the missing header", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const t0 = performance.now();
    const err = await createWebContainerRuntime({
      api: w.api,
      isolation: { isolated: false, pageUrl: "http://localhost:5173/", fetch: headers({ "Cross-Origin-Opener-Policy": "same-origin" }) },
    }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(err).toBeInstanceOf(WebContainerUnavailableError);
    expect((err as WebContainerUnavailableError).kind).toBe("not-isolated");
    expect((err as Error).message).toMatch(/Cross-Origin-Embedder-Policy: require-corp \(or credentialless\) is missing/);
    expect((err as Error).message).not.toMatch(/Opener-Policy: same-origin is missing/);
    expect(w.api.bootCalls).toBe(0);
  });

  it("not isolated: both headers missing, a wrong value, right headers in a frame, headers unknown", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const attempt = (isolation: WebContainerRuntimeOptions["isolation"]) =>
      createWebContainerRuntime({ api: w.api, isolation: { isolated: false, pageUrl: "http://localhost/", ...isolation } }).catch(
        (e: Error) => e.message,
      );
    expect(await attempt({ fetch: headers({}) })).toMatch(/Opener-Policy: same-origin is missing, and Cross-Origin-Embedder-Policy/);
    expect(
      await attempt({ fetch: headers({ "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "unsafe-none" }) }),
    ).toMatch(/Embedder-Policy is "unsafe-none" \(needs require-corp or credentialless\)/);
    expect(
      await attempt({
        framed: true,
        fetch: headers({ "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" }),
      }),
    ).toMatch(/frame whose parent page is not isolated/);
    expect(
      await attempt({
        fetch: async () => {
          throw new TypeError("Failed to fetch");
        },
      }),
    ).toMatch(/could not be checked: Failed to fetch/);
    expect(w.api.bootCalls).toBe(0);
  });

  it("a boot that never settles fails after the timeout and is not started twice: a retry joins it", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    w.api.mode = "hang";
    const t0 = performance.now();
    const err = (await createWebContainerRuntime(options(w, { bootTimeoutMs: 150 })).catch((e: unknown) => e)) as WebContainerUnavailableError;
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(WebContainerUnavailableError);
    expect(err.kind).toBe("boot-timeout");
    expect(err.reloadNeeded).toBe(false);
    expect(err.message).toMatch(/did not boot within/);
    expect(err.message).toMatch(/a switch is offered; a retry waits for this same attempt, and only a reload of the page starts afresh/);
    const again = (await createWebContainerRuntime(options(w, { bootTimeoutMs: 100 })).catch((e: unknown) => e)) as Error;
    expect(again.message).toMatch(/this retry joined the first attempt/);
    expect(w.api.bootCalls).toBe(1);
  });

  it("a boot that comes late is picked up by the next attempt", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    w.api.mode = "late";
    await expect(createWebContainerRuntime(options(w, { bootTimeoutMs: 50 }))).rejects.toThrow(/did not boot/);
    w.api.release();
    const runtime = await createWebContainerRuntime(options(w, { bootTimeoutMs: 50 }));
    cleanups.push(() => runtime.dispose());
    expect(runtime.kind).toBe("webcontainer");
    expect(w.api.bootCalls).toBe(1);
  });

  it("a boot that rejected can be tried again", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    w.api.mode = "reject";
    const err = (await createWebContainerRuntime(options(w)).catch((e: unknown) => e)) as WebContainerUnavailableError;
    expect(err.kind).toBe("boot-failed");
    expect(err.reloadNeeded).toBe(false);
    expect(err.message).toMatch(/Unable to create more instances/);
    w.api.mode = "ok";
    const runtime = await createWebContainerRuntime(options(w));
    cleanups.push(() => runtime.dispose());
    expect(w.api.bootCalls).toBe(2);
  });

  it("boots once per page, with workdirName and coep", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const a = await createWebContainerRuntime(options(w));
    const b = await createWebContainerRuntime(options(w));
    cleanups.push(() => a.dispose(), () => b.dispose());
    expect(w.api.bootCalls).toBe(1);
    expect(w.api.bootOptions[0]).toEqual({ coep: "require-corp", workdirName: "project" });
    expect(a.container).toBe(b.container);
    expect(a.workspace).toBe(w.workdir);
  });

  it("without an injected API, outside a browser, it says WebContainer needs a browser", async () => {
    await expect(createWebContainerRuntime()).rejects.toMatchObject({ kind: "not-browser" });
  });
});

describe("webcontainer runtime: capability probes", () => {
  it("each probe is its own `jsh -c`; a hanging one is killed at its timeout and counts as unsupported", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const progress: string[] = [];
    const t0 = performance.now();
    const runtime = await createWebContainerRuntime(
      options(w, { probe: true, probeTimeoutMs: 300, onProgress: (m) => progress.push(m) }),
    );
    cleanups.push(() => runtime.dispose());
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(runtime.capabilities).toMatchObject({
      lists: true,
      pipes: true,
      redirects: true,
      heredocs: false,
      background: false,
      exportVars: true,
    });
    for (const name of ["grep", "sed", "awk", "git", "sleep"]) expect(runtime.capabilities.programs[name]).toBe(false);
    for (const name of ["node", "npm", "python3"]) expect(runtime.capabilities.programs[name]).toBe(FAKE_PROGRAMS.includes(name));
    const bg = runtime.probes.find((p) => p.name === "background")!;
    expect(bg).toMatchObject({ ok: false, timedOut: true, exitCode: null });
    const heredoc = runtime.probes.find((p) => p.name === "heredoc")!;
    expect(heredoc).toMatchObject({ ok: false, exitCode: 1, output: "jsh: unsupported shell syntax" });
    const probeSpawns = w.instance.spawns.filter((sp) => sp.args[0] === "-c");
    // one warm-up, the syntax probes, ONE `which` for every program; the time-out tried once more
    expect(probeSpawns[0]!.args[1]).toBe("echo warm-up");
    expect(probeSpawns.filter((sp) => sp.args[1]!.startsWith("which ")).length).toBe(1);
    expect(probeSpawns.length).toBe(runtime.probes.length + 1);
    expect(probeSpawns.filter((sp) => sp.args[1] === "echo bg-ok & echo fg-ok").map((sp) => sp.proc.kills)).toEqual([1, 1]);
    expect(progress).toEqual([`Booting WebContainer (up to ${WEBCONTAINER.bootTimeoutMs / 1000} s)…`, "Probing what this jsh supports…", "WebContainer is ready."]);
  });

  it("a shell that prints `>` and `2>&1` as words does not pass the redirect probes", async () => {
    const w = makeWorld({}, (command) => {
      if (command.startsWith("echo redir-ok > ")) return { out: `${command.slice(5).split(" && ")[0]}\n`, code: 0 };
      if (command === "echo err-ok 2>&1") return { out: "err-ok 2>&1\n", code: 0 };
      return { out: "", code: 1 };
    });
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w, { probe: true, probeTimeoutMs: 300 }));
    cleanups.push(() => runtime.dispose());
    expect(runtime.capabilities.redirects).toBe(false);
    expect(runtime.capabilities.lists).toBe(false);
  });

  it("late output (after the exit) still counts: no capability is lost to a slow output message", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    w.instance.outputDelayMs = 250; // five times the old fixed 50 ms drain after exit
    const runtime = await createWebContainerRuntime(options(w, { probe: true, probeTimeoutMs: 2_000 }));
    cleanups.push(() => runtime.dispose());
    expect(runtime.capabilities).toMatchObject({ lists: true, pipes: true, redirects: true, exportVars: true });
    expect(runtime.capabilities.programs.node).toBe(true);
  }, 20_000);

  it("probes end as soon as their answer is complete, and are cached per container", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const first = await createWebContainerRuntime(options(w, { probe: true, probeTimeoutMs: 300 }));
    cleanups.push(() => first.dispose());
    const pipe = first.probes.find((p) => p.name === "pipe")!;
    expect(pipe.ok).toBe(true);
    expect(pipe.ms).toBeLessThan(WEBCONTAINER.probeQuietMs); // did not wait for the quiet after exit
    const spawned = w.instance.spawns.length;
    const second = await createWebContainerRuntime(options(w, { probe: true }));
    cleanups.push(() => second.dispose());
    expect(w.instance.spawns.length).toBe(spawned);
    expect(second.capabilities).toEqual(first.capabilities);
  });

  it("a jsh whose `which` takes one name only: one `which` each, then", async () => {
    const w = makeWorld({}, (command) => {
      const m = /^which (\S+)( .*)?$/.exec(command);
      if (m && m[2]) return { out: `${FAKE_PROGRAMS.includes(m[1]!) ? `/usr/local/bin/${m[1]}` : `${m[1]} not found`}\n`, code: 0 };
      return DEFAULT_PROFILE(command);
    });
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w, { probe: true, probeTimeoutMs: 300 }));
    cleanups.push(() => runtime.dispose());
    for (const name of FAKE_PROGRAMS) expect(runtime.capabilities.programs[name]).toBe(true);
    expect(runtime.capabilities.programs.grep).toBe(false);
  });
});

describe("webcontainer runtime: late output belongs to its process", () => {
  it("a job's last lines, still arriving after its exit, are its output as long as they keep coming", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w));
    cleanups.push(() => runtime.dispose());
    const job = await runtime.spawnJob("cat", { cwd: runtime.workspace });
    const proc = w.instance.spawns.at(-1)!.proc;
    let out = "";
    job.onData((c) => (out += c));
    proc.end(0); // "closed process keeps writing to output"
    for (let i = 1; i <= 6; i++) setTimeout(() => proc.push(`line ${i}\r\n`), i * (WEBCONTAINER.exitDrainMs / 2));
    expect(await job.exited).toBe(0);
    expect(out).toBe([1, 2, 3, 4, 5, 6].map((i) => `line ${i}\r\n`).join(""));
  });

  it("a process still ends within exitDrainMaxMs of its exit when output never stops", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w, { exitDrainMs: 300 }));
    cleanups.push(() => runtime.dispose());
    const job = await runtime.spawnJob("cat", { cwd: runtime.workspace });
    const proc = w.instance.spawns.at(-1)!.proc;
    const spam = setInterval(() => proc.push("x"), 10);
    const t0 = performance.now();
    proc.end(0);
    await job.exited;
    clearInterval(spam);
    expect(performance.now() - t0).toBeGreaterThan(WEBCONTAINER.exitDrainMaxMs - 100);
    expect(performance.now() - t0).toBeLessThan(WEBCONTAINER.exitDrainMaxMs + 1_000);
  });

  it("the /tmp file helper waits for its own answer after the exit (seconds, not milliseconds)", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    w.instance.outputDelayMs = 700;
    const runtime = await createWebContainerRuntime(options(w));
    cleanups.push(() => runtime.dispose());
    await runtime.fs.writeFile(`${w.outside}/late.txt`, "late answer");
    expect(new TextDecoder().decode(await runtime.fs.readFile(`${w.outside}/late.txt`))).toBe("late answer");
  });

  it("the file helper's chunks fit one environment variable (Linux caps one at 128 KiB)", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const runtime = await createWebContainerRuntime(options(w));
    cleanups.push(() => runtime.dispose());
    const data = new Uint8Array(200 * 1024).map((_, i) => i % 251);
    await runtime.fs.writeFile(`${w.outside}/big.bin`, data);
    const helpers = w.instance.spawns.filter((sp) => sp.command === "node");
    expect(helpers.length).toBe(Math.ceil(data.length / WEBCONTAINER.fsHelperChunkBytes));
    for (const h of helpers) expect(String(h.options?.env?.SANDSHELL_FS_REQUEST ?? "").length).toBeLessThan(128 * 1024);
    expect(await runtime.fs.readFile(`${w.outside}/big.bin`)).toEqual(data);
  }, 20_000);
});

describe("webcontainer protocol tests: the jsh output shaper alone", () => {
  function shaper(startCwd = "/home/project", holdMs = 40) {
    const out: string[] = [];
    const s = new JshOutputShaper({ startCwd, holdMs, startupPromptMs: 0, emit: (c) => out.push(c) });
    return { s, out, joined: () => out.join("") };
  }
  const P = (shown: string) => `\r\n\x1b[1;34m${shown}\x1b[0m\r\n\x1b[35m❯\x1b[0m `;

  it("a prompt marker whose text never comes is released after the hold, without a cwd", async () => {
    const { s, joined } = shaper();
    s.push(`x\r\n${mark("exit=-1:0")}${mark("prompt")}`);
    expect(joined()).toBe(`x\r\n${mark("exit=-1:0")}`);
    await new Promise((r) => setTimeout(r, 80));
    expect(joined()).toBe(`x\r\n${mark("exit=-1:0")}${mark("prompt")}`);
  });

  it("a prompt marker before its text is moved after it, with the cwd marker first", () => {
    const { s, joined } = shaper("/home/project/a b");
    s.push(mark("prompt") + P("~/project/a b"));
    expect(joined()).toBe(`${P("~/project/a b")}${mark("cwd=jsh:/home/project/a b")}${mark("prompt")}`);
  });

  it("`~` alone as the first prompt means the start directory is home", () => {
    const { s, joined } = shaper("/home/project");
    s.push(P("~") + mark("prompt"));
    s.push(P("~/x") + mark("prompt"));
    expect(joined()).toContain(mark("cwd=jsh:/home/project"));
    expect(joined()).toContain(mark("cwd=jsh:/home/project/x"));
  });

  it("a first prompt that cannot tell `~` gives no cwd for `~` paths, but absolute ones still", () => {
    const { s, joined } = shaper("/work/here");
    s.push(P("~/elsewhere") + mark("prompt") + P("/tmp/x") + mark("prompt"));
    expect(joined()).not.toContain("cwd=jsh:/work");
    expect(joined()).toContain(mark("cwd=jsh:/tmp/x"));
  });

  it("other escape sequences and OSCs pass untouched, also split; a false marker prefix is released as text", () => {
    const { s, joined } = shaper();
    s.push("a\x1b]0;title\x07b\x1b[31mred\x1b[0m\x1b]65");
    s.push("4;other=1\x07c\x1b]6");
    s.push("x");
    s.flush();
    expect(joined()).toBe(`a\x1b]0;title\x07b\x1b[31mred\x1b[0m${mark("other=1")}c\x1b]6x`);
  });

  it("start=jsh goes after the newline that ends an Enter typed at the prompt, and only then", () => {
    const { s, out } = shaper();
    s.push(P("~/project") + mark("prompt"));
    out.length = 0;
    s.noteInput("ls");
    s.push("ls");
    s.noteInput("\r");
    s.push("\r\nfile\r\n");
    s.noteInput("\r"); // Enter while the command runs: no second start
    s.push("\r\n");
    expect(out.join("")).toBe(`ls\r\n${mark("start=jsh")}file\r\n\r\n`);
  });
});

describe("webcontainer protocol tests: recover instead of hang", () => {
  const P = "\r\n\x1b[1;34m~/project\x1b[0m\r\n\x1b[35m❯\x1b[0m ";
  for (const promptOrder of ["marker-first", "text-first"] as const) {
    for (const interactive of ["before-prompt", "startup", "first-command"] as const) {
      it(`a prompt with no exit marker ends the command with an unknown exit code (prompt ${promptOrder}, interactive at ${interactive})`, async () => {
        const block = promptOrder === "marker-first" ? mark("prompt") + P : P + mark("prompt");
        const { s, runtime } = await setup({
          promptOrder,
          interactive,
          transcripts: {
            "echo (": ["jsh: parse error near `(`\r\n", block],
            "echo quiet(": [block],
          },
        });
        const r = await s.run("echo (");
        expect(r).toMatchObject({ status: "completed", exitCode: -1, cwd: runtime.workspace });
        expect(r.output).toBe(`jsh: parse error near \`(\`\n${UNKNOWN_EXIT_LINE}\n`);
        const quiet = await s.run("echo quiet(");
        expect(quiet).toMatchObject({ status: "completed", exitCode: -1, output: `${UNKNOWN_EXIT_LINE}\n` });
        await basics(s, runtime); // in step afterwards
      });
    }
  }

  for (const promptOrder of ["marker-first", "text-first"] as const) {
    it(`an exit marker the session cannot read (exit=0, exit=-1:x) does not end the command: its prompt does, with an unknown exit code (${promptOrder})`, async () => {
      const block = promptOrder === "marker-first" ? mark("prompt") + P : P + mark("prompt");
      const { s, runtime, raw } = await setup({
        promptOrder,
        transcripts: {
          "echo no-colon": [`no-colon\r\n${mark("exit=0")}`, block],
          "echo not-a-number": [`not-a-number\r\n${mark("exit=-1:x")}`, block],
        },
      });
      expect(await s.run("echo no-colon")).toMatchObject({ status: "completed", exitCode: -1, output: `no-colon\n${UNKNOWN_EXIT_LINE}\n` });
      expect(await s.run("echo not-a-number")).toMatchObject({ status: "completed", exitCode: -1, output: `not-a-number\n${UNKNOWN_EXIT_LINE}\n` });
      expect(raw.join("")).toContain(mark("exit=0")); // passed on as the marker it is, for the terminal view
      await basics(s, runtime);
    });
  }

  for (const promptOrder of ["marker-first", "text-first"] as const) {
    it(`a jsh that prints no prompt marker after commands: the drawn ❯ after exit is the prompt (${promptOrder})`, async () => {
      const { s, runtime } = await setup({ promptOrder, commandPromptMarker: false });
      const t0 = performance.now();
      await basics(s, runtime);
      // each command waited for a marker that never came, then took the drawn prompt
      expect(performance.now() - t0).toBeGreaterThan(WEBCONTAINER.promptAfterExitMs * 5);
    });
  }

  it("interactive first, prompt later (the fake's default): the session types only into a drawn prompt", async () => {
    const { s, w, raw } = await setup();
    const first = await s.run("echo first");
    expect(first).toMatchObject({ output: "first\n", exitCode: 0 });
    const stream = raw.join("");
    expect(stream.indexOf(mark("interactive"))).toBeLessThan(stream.indexOf("echo first"));
    expect(w.instance.shells[0]!.proc.inputs.join("")).toBe("echo first\r");
  });

  it("a command longer than the terminal is wide: its wrapped echo is matched by its tail, output starts after it", async () => {
    const { s } = await setup({ wrapCols: 80 });
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "); // 150 characters: wrapped twice
    expect(await s.run(`echo ${long}`)).toMatchObject({ output: `${long}\n`, exitCode: 0 });
    expect((await s.run("echo short")).output).toBe("short\n");
  });

  describe("the shaper alone", () => {
    function shaper(promptAfterExitMs = 0, startupPromptMs = 1_000) {
      const out: string[] = [];
      const s = new JshOutputShaper({ startCwd: "/home/project", holdMs: 40, startupPromptMs, promptAfterExitMs, emit: (c) => out.push(c) });
      return { s, out, joined: () => out.join("") };
    }

    it("Enters typed before a late first prompt are kept: start=jsh follows their echo after that prompt", () => {
      const { s, joined } = shaper();
      s.push(mark("interactive")); // held: no prompt drawn yet
      expect(joined()).toBe("");
      s.noteInput("echo hi\r");
      s.push(P);
      expect(joined()).toBe(P + mark("interactive"));
      s.push("echo hi\r\nhi\r\n");
      expect(joined()).toBe(`${P}${mark("interactive")}echo hi\r\n${mark("start=jsh")}hi\r\n`);
    });

    it("Enters typed before any marker, prompt marker first: kept as well", () => {
      const { s, joined } = shaper();
      s.noteInput("ls\r");
      s.push(mark("prompt"));
      s.push(P);
      s.push("ls\r\nfile\r\n");
      expect(joined()).toContain(`ls\r\n${mark("start=jsh")}file`);
    });

    it("interactive with no prompt ever drawn is passed on after startupPromptMs", async () => {
      const { s, joined } = shaper(0, 30);
      s.push(mark("interactive"));
      expect(joined()).toBe("");
      await new Promise((r) => setTimeout(r, 60));
      expect(joined()).toBe(mark("interactive"));
    });

    it("a drawn prompt after exit becomes a prompt; a marker that comes later is dropped, not taken for the next command's", async () => {
      const { s, joined, out } = shaper(30);
      s.push(P + mark("prompt"));
      s.noteInput("true\r");
      s.push(`true\r\n${mark("exit=-1:0")}${P}`);
      expect(joined()).not.toContain(`${mark("exit=-1:0")}${P}${mark("prompt")}`);
      await new Promise((r) => setTimeout(r, 60));
      expect(joined()).toContain(`${mark("exit=-1:0")}${P}${mark("cwd=jsh:/home/project")}${mark("prompt")}`);
      out.length = 0;
      s.noteInput("echo x\r");
      s.push(mark("prompt")); // the late marker
      s.push("echo x\r\nx\r\n");
      expect(joined()).toBe(`echo x\r\n${mark("start=jsh")}x\r\n`);
    });

    it("home is the workdir's parent until a first prompt with `~` says otherwise (a shell respawned in /tmp)", () => {
      const out: string[] = [];
      const s = new JshOutputShaper({ startCwd: "/tmp", home: "/home", holdMs: 40, startupPromptMs: 0, emit: (c) => out.push(c) });
      s.push(P.replace("~/project", "/tmp") + mark("prompt"));
      s.push(P + mark("prompt"));
      expect(out.join("")).toContain(mark("cwd=jsh:/tmp"));
      expect(out.join("")).toContain(mark("cwd=jsh:/home/project"));
    });

    it("an empty Enter that jsh ends with a bare prompt gets no unknown exit", () => {
      const { s, joined, out } = shaper();
      s.push(P + mark("prompt"));
      out.length = 0;
      s.noteInput("\r");
      s.push(`\r\n${mark("prompt")}${P}`);
      expect(joined()).not.toContain("exit=");
    });

    it("a prompt whose path line is longer than the text the shaper keeps gives no cwd rather than a cut one", () => {
      for (const end of ["", "/x", "x"]) {
        const { s, joined } = shaper(0, 0);
        const deep = `${"/d".repeat(1_500)}${end}`; // one of the three ends puts a "/" where the kept text is cut
        s.push(`${P.replace("~/project", deep)}${mark("prompt")}`);
        expect(joined()).toContain(mark("prompt"));
        expect(joined()).not.toContain("cwd=");
      }
    });

    it("a marker ended by ESC \\ goes on ended by BEL, as the one formatter writes it; a pid marker goes on as it is", () => {
      const { s, joined } = shaper(0, 0);
      s.push(`x\r\n\x1b]654;exit=-1:0\x1b`);
      s.push(`\\${mark("pid=7")}`);
      expect(joined()).toBe(`x\r\n${mark("exit=-1:0")}${mark("pid=7")}`);
    });

    it("the prompt reader strips every escape form: ESC 7/8, ESC =/>, charsets, DCS", () => {
      const text = "out\r\n\x1b7\x1b[1;34m~/project\x1b[0m\x1b8\r\n\x1b=\x1b(B\x1bP1$r\x1b\\\x1b[35m❯\x1b[0m \x1b>";
      expect(plainLines(text).slice(-2)).toEqual(["~/project", "❯ "]);
      expect(promptPathAtEnd(text)).toEqual({ ended: true, path: "~/project" });
    });
  });
});
