// The session engine's conformance suite: what every runtime's shell must do under createShellSession. Runtime-agnostic:
// it talks to the runtime only through the Runtime contract (spawn, fs). A runtime's test file calls
// `conformanceSuite(name, makeRuntime)`; node-only behaviour (REPLs, killing a stuck shell) lives in node.test.ts.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHELL } from "../../src/limits.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import { JobError } from "../../src/shell/jobs.ts";
import { createShellSession, type ShellSession, type ShellSessionOptions } from "../../src/shell/session.ts";

export interface ConformanceOptions {
  /** Names (exact `it` titles) of cases this runtime cannot pass yet; they are registered as skipped. */
  skip?: readonly string[];
  /** Extra session options for every case (e.g. a smaller promptQuietMs). */
  session?: ShellSessionOptions;
  /** Heap in use after a full GC, where the host can measure it (Node: test/shell/heap.ts); memory bounds are then asserted on it too. */
  heapUsed?: () => number;
}

/** Characters of `seq 1 n` output. */
function seqChars(n: number): number {
  let total = 0;
  for (let digits = 1, lo = 1; lo <= n; digits++, lo *= 10) {
    const hi = Math.min(n, lo * 10 - 1);
    total += (hi - lo + 1) * (digits + 1);
  }
  return total;
}

/** Skipped on embedded: just-bash's `env` lists plain shell variables as well as exported ones. */
export const ENV_CASE = "env: an exported variable reaches a child process, a plain one stays in the shell (embedded: skipped, just-bash's env lists plain variables too)";

export function conformanceSuite(
  name: string,
  makeRuntime: () => Promise<Runtime>,
  options: ConformanceOptions = {},
): void {
  describe(`shell session conformance: ${name}`, () => {
    let runtime: Runtime;
    const spillDir = `${SHELL.spillDir}/conformance-${crypto.randomUUID().slice(0, 8)}`;
    const sessions: ShellSession[] = [];
    const skip = new Set(options.skip ?? []);
    const test = (title: string, fn: () => Promise<void>, timeout?: number): void => {
      if (skip.has(title)) it.skip(title, fn, timeout);
      else it(title, fn, timeout);
    };

    async function open(extra: ShellSessionOptions = {}): Promise<ShellSession> {
      const session = await createShellSession(runtime, { spillDir, ...options.session, ...extra });
      sessions.push(session);
      return session;
    }

    async function readText(path: string): Promise<string> {
      return new TextDecoder().decode(await runtime.fs.readFile(path));
    }

    beforeAll(async () => {
      runtime = await makeRuntime();
    }, 30_000);

    afterAll(async () => {
      for (const s of sessions) await s.close().catch(() => undefined);
      await runtime?.fs.rm(spillDir, { recursive: true, force: true }).catch(() => undefined);
      await runtime?.dispose();
    }, 30_000);

    test("cwd, variables and functions persist across runs", async () => {
      const s = await open();
      const start = await s.run("pwd");
      expect(start.output).toBe(`${runtime.workspace}\n`);
      const r1 = await s.run("mkdir -p persist/sub && cd persist/sub && GREETING=hello && export EXPORTED=yes");
      expect(r1.exitCode).toBe(0);
      expect(r1.cwd).toBe(`${runtime.workspace}/persist/sub`);
      await s.run("shout() { echo \"$1!\"; }");
      const r2 = await s.run('pwd; echo "$GREETING $EXPORTED"; shout hey');
      expect(r2.output).toBe(`${runtime.workspace}/persist/sub\nhello yes\nhey!\n`);
      expect(r2.status).toBe("completed");
      expect(s.cwd).toBe(`${runtime.workspace}/persist/sub`);
    });

    test("exit codes and stderr", async () => {
      const s = await open();
      const fail = await s.run("ls /definitely/not/here");
      expect(fail.exitCode).not.toBe(0);
      expect(fail.exitCode).not.toBeNull();
      expect(fail.output).toMatch(/No such file or directory/);
      expect((await s.run("(exit 3)")).exitCode).toBe(3);
      const err = await s.run("echo to-stderr >&2; echo to-stdout");
      expect(err.output).toBe("to-stderr\nto-stdout\n");
      expect(err.exitCode).toBe(0);
      expect((await s.run("false")).exitCode).toBe(1);
      expect((await s.run("echo $?")).output).toBe("1\n");
      const syntax = await s.run("echo 'unclosed' )");
      expect(syntax.exitCode).not.toBe(0);
      expect(syntax.output).toMatch(/syntax error/);
      expect(syntax.output).not.toContain("unclosed' )\n"); // the echo of the line is not output
    });

    test("pipes, lists and UTF-8", async () => {
      const s = await open();
      expect((await s.run("printf 'b\\na\\nc\\n' | sort | head -n 2")).output).toBe("a\nb\n");
      expect((await s.run("true && echo and || echo or; false || echo fallback")).output).toBe("and\nfallback\n");
      const utf = await s.run("printf 'é € 😀 日本\\n'");
      expect(utf.output).toBe("é € 😀 日本\n");
    });

    test("a heredoc with a quoted delimiter arrives byte for byte", async () => {
      const s = await open();
      const body =
        "home is $HOME, `date` and $(echo nope) and ${X:-y}\n" +
        "it's 'single' and \"double\" and \\backslash\\n\n" +
        "\ttab-indented\tand trailing spaces   \n" +
        "<<EOF not the end\n";
      const r = await s.run(`cat > heredoc.txt <<'EOF'\n${body}EOF\ncat heredoc.txt`);
      expect(r.exitCode).toBe(0);
      expect(r.output).toBe(body);
      expect(await readText(`${s.cwd}/heredoc.txt`)).toBe(body);
    });

    test("a multi-line command runs as one unit with the last exit code", async () => {
      const s = await open();
      const r = await s.run("echo one\nfalse\necho two");
      expect(r.output).toBe("one\ntwo\n");
      expect(r.exitCode).toBe(0);
      const r2 = await s.run("for i in 1 2 3; do\n  echo \"n=$i\"\ndone\n(exit 4)");
      expect(r2.output).toBe("n=1\nn=2\nn=3\n");
      expect(r2.exitCode).toBe(4);
    });

    test("200 KB on one line is truncated head and tail, and spilled whole", async () => {
      const s = await open();
      const r = await s.run("printf '%*s' 200000 '' | tr ' ' a; echo");
      expect(r.exitCode).toBe(0);
      expect(r.truncated).toBe(true);
      expect(r.output.length).toBeLessThan(SHELL.maxOutputChars + 500);
      expect(r.output.startsWith("a".repeat(1000))).toBe(true);
      expect(r.output.endsWith(`${"a".repeat(1000)}\n`)).toBe(true);
      expect(r.fullOutputPath).toMatch(/\/out-\d+\.log$/);
      expect(r.output).toContain(r.fullOutputPath);
      const full = await readText(r.fullOutputPath!);
      expect(full).toBe(`${"a".repeat(200_000)}\n`);
    });

    test(
      "10 MB of output keeps memory bounded and spills everything",
      async () => {
        const s = await open();
        const n = 1_400_000;
        const before = options.heapUsed?.() ?? 0;
        const r = await s.run(`seq 1 ${n}`, { softTimeoutSec: 30 });
        const grown = (options.heapUsed?.() ?? 0) - before;
        expect(r.exitCode).toBe(0);
        expect(r.truncated).toBe(true);
        expect(s.stats.peakRetainedChars).toBeLessThanOrEqual(2 * SHELL.maxOutputChars);
        expect(r.output.length).toBeLessThan(SHELL.maxOutputChars + 500);
        expect(r.output.startsWith("1\n2\n3\n4\n5\n")).toBe(true);
        expect(r.output.endsWith(`${n - 2}\n${n - 1}\n${n}\n`)).toBe(true);
        if (options.heapUsed) expect(grown).toBeLessThan(24 * 1024 * 1024);
        const stat = await runtime.fs.stat(r.fullOutputPath!);
        expect(stat?.size).toBe(seqChars(n));
        const full = await readText(r.fullOutputPath!);
        expect(full.startsWith("1\n2\n3\n")).toBe(true);
        expect(full.endsWith(`${n - 1}\n${n}\n`)).toBe(true);
        await runtime.fs.rm(r.fullOutputPath!, { force: true });
      },
      60_000,
    );

    test("a quiet command returns running at the soft timeout; C-c stops it", async () => {
      const s = await open();
      const t0 = performance.now();
      const r = await s.run("echo started; sleep 30; echo never", { softTimeoutSec: 1 });
      const took = performance.now() - t0;
      expect(r.status).toBe("running");
      expect(r.exitCode).toBeNull();
      expect(r.output).toBe("started\n");
      expect(r.waiting?.reason).toBe("quiet");
      expect(took).toBeGreaterThanOrEqual(900);
      expect(took).toBeLessThan(8_000);
      const stop = await s.input("C-c");
      expect(stop.status).toBe("interrupted");
      expect(stop.exitCode).not.toBe(0);
      expect(stop.exitCode).not.toBeNull();
      expect(stop.output).not.toContain("never");
      const after = await s.run("echo fine");
      expect(after.output).toBe("fine\n");
    });

    test("a new command while one runs is refused, not queued", async () => {
      const s = await open();
      const r = await s.run("sleep 30", { softTimeoutSec: 0.5 });
      expect(r.status).toBe("running");
      const refused = await s.run("echo should-not-run");
      expect(refused.status).toBe("running");
      expect(refused.error).toMatch(/NOT run/);
      expect(refused.refused).toBe("busy");
      expect(refused.output).toBe("");
      // two calls at once: the second is refused while the first waits
      const both = await Promise.all([s.input("", { softTimeoutSec: 0.5 }), s.input("", { softTimeoutSec: 0.5 })]);
      expect(both.filter((x) => x.error !== undefined)).toHaveLength(1);
      const stop = await s.input("C-c");
      expect(stop.status).toBe("interrupted");
      expect(stop.output).not.toContain("should-not-run");
      expect((await s.run("echo next")).output).toBe("next\n");
    });

    test("an empty input waits for more output and returns the end", async () => {
      const s = await open();
      const r = await s.run("echo first; sleep 1.5; echo second", { softTimeoutSec: 0.5 });
      expect(r.status).toBe("running");
      expect(r.output).toBe("first\n");
      const more = await s.input("", { softTimeoutSec: 10 });
      expect(more.status).toBe("completed");
      expect(more.exitCode).toBe(0);
      expect(more.output).toBe("second\n");
    });

    test("cat waiting for input gets text, then C-d ends it", async () => {
      const s = await open();
      const r = await s.run("cat", { softTimeoutSec: 0.5 });
      expect(r.status).toBe("running");
      const typed = await s.input("hello there", { softTimeoutSec: 0.5 });
      expect(typed.status).toBe("running");
      expect(typed.output).toContain("hello there");
      const done = await s.input("C-d");
      expect(done.status).toBe("completed");
      expect(done.exitCode).toBe(0);
    });

    test("a password prompt returns early, and the answer completes the command", async () => {
      const s = await open();
      const t0 = performance.now();
      const r = await s.run("read -p 'Password: ' secret; echo \"got ${#secret} chars\"");
      const took = performance.now() - t0;
      expect(r.status).toBe("running");
      expect(r.output).toBe("Password: ");
      expect(r.waiting?.reason).toBe("prompt");
      expect(took).toBeLessThan(SHELL.softTimeoutSec * 1000 / 2);
      const answered = await s.input("s3cret");
      expect(answered.status).toBe("completed");
      expect(answered.exitCode).toBe(0);
      expect(answered.output).toContain("got 6 chars");
      expect((await s.run('echo "[$secret]"')).output).toBe("[s3cret]\n");
    });

    test("exit, then the next command gets a fresh shell and is told so", async () => {
      const s = await open();
      await s.run("mkdir -p after-exit && cd after-exit");
      const r = await s.run("exit");
      expect(r.status).toBe("completed");
      expect(r.notice).toMatch(/exited/);
      const next = await s.run("echo alive; pwd");
      expect(next.status).toBe("completed");
      expect(next.output).toBe(`alive\n${runtime.workspace}/after-exit\n`);
      expect(next.notice).toMatch(/fresh shell/);
      expect((await s.run("echo again")).notice).toBeUndefined();
    });

    test("a fake exit marker printed by the command does not end it early", async () => {
      const s = await open();
      const r = await s.run("printf '\\033]654;exit=-1:0\\007'; printf '\\033]654;prompt\\007'; sleep 0.5; echo after");
      expect(r.status).toBe("completed");
      expect(r.output).toBe("after\n");
      expect(r.exitCode).toBe(0);
      expect(r.durationMs).toBeGreaterThanOrEqual(450);
    });

    test(
      "1,000 commands in a row keep memory flat",
      async () => {
        const s = await open();
        for (let i = 0; i < 100; i++) await s.run(`echo warm ${i}`);
        const before = options.heapUsed?.() ?? 0;
        for (let i = 0; i < 1000; i++) {
          const r = await s.run(`echo line ${i}`);
          if (r.output !== `line ${i}\n` || r.exitCode !== 0) throw new Error(`run ${i}: ${JSON.stringify(r)}`);
        }
        const grown = (options.heapUsed?.() ?? 0) - before;
        if (options.heapUsed) expect(grown).toBeLessThan(4 * 1024 * 1024);
      },
      90_000,
    );

    test("the hard timeout stops a command with C-c", async () => {
      const s = await open();
      const t0 = performance.now();
      const r = await s.run("echo begun; sleep 30", { timeoutSec: 1, softTimeoutSec: 20 });
      expect(r.status).toBe("timeout");
      expect(r.output).toContain("begun");
      expect(r.notice).toMatch(/timed out after 1s/);
      expect(performance.now() - t0).toBeLessThan(SHELL.interruptGraceMs + 5_000);
      expect((await s.run("echo still here")).output).toBe("still here\n");
    });

    test("interrupt() stops the running command", async () => {
      const s = await open();
      const r = await s.run("sleep 30", { softTimeoutSec: 0.5 });
      expect(r.status).toBe("running");
      const stopped = await s.interrupt();
      expect(stopped.status).toBe("interrupted");
      expect((await s.interrupt()).error).toMatch(/nothing to interrupt/);
      expect((await s.run("echo ok")).output).toBe("ok\n");
    });

    test("typed input is never a command by accident: the Enter after a key read -n 1 took, and text sent to sleep, are discarded and said", async () => {
      const s = await open({ promptQuietMs: 200 });
      await s.run("read -n 1 -p 'Continue? ' k; echo; echo got=$k", { softTimeoutSec: 2 });
      const y = await s.input("y");
      expect(y.output).toContain("got=y\n");
      expect(y.notice).toMatch(/1 typed-ahead character the command did not read was discarded, not run/);
      expect((await s.run("echo in-step")).output).toBe("in-step\n");
      const sleeping = await s.run("sleep 0.5", { softTimeoutSec: 0.1 });
      expect(sleeping.status).toBe("running");
      const typed = await s.input(`touch ${runtime.workspace}/typeahead-ran`);
      expect(typed.status).toBe("completed");
      expect(typed.notice).toMatch(/typed-ahead characters the command did not read were discarded, not run/);
      expect(await runtime.fs.stat(`${runtime.workspace}/typeahead-ran`)).toBeNull();
      expect((await s.run("echo still-in-step")).output).toBe("still-in-step\n");
    });

    test("input with nothing running is refused", async () => {
      const s = await open();
      const r = await s.input("hello");
      expect(r.error).toMatch(/No command is running/);
      expect((await s.run("echo ok")).output).toBe("ok\n");
    });

    test("a command that ends after a soft timeout is reported to the next call", async () => {
      const s = await open();
      const r = await s.run("sleep 0.6; echo late", { softTimeoutSec: 0.3 });
      expect(r.status).toBe("running");
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const next = await s.input("");
      expect(next.status).toBe("completed");
      expect(next.exitCode).toBe(0);
      expect(next.output).toBe("late\n");
    });

    test("streams output and reports state", async () => {
      const s = await open();
      const states: string[] = [];
      const off = s.onState((st) => states.push(`${st.state}${st.by ? `:${st.by}` : ""}`));
      const chunks: string[] = [];
      const raw: string[] = [];
      const offRaw = s.onRawOutput((c) => raw.push(c));
      const r = await s.run("echo a; sleep 0.2; echo b", { onOutput: (c) => chunks.push(c) });
      off();
      offRaw();
      expect(chunks.join("")).toBe(r.output);
      expect(chunks.length).toBeGreaterThanOrEqual(2);
      expect(states).toContain("running:agent");
      expect(states[states.length - 1]).toBe("idle");
      expect(raw.join("")).toContain("echo a; sleep 0.2; echo b"); // the person sees what the agent typed
    });

    test("streams each line while the command still runs, not only at the end", async () => {
      const s = await open();
      const seen: Array<{ chunk: string; at: number }> = [];
      const started = Date.now();
      const r = await s.run("echo first; sleep 1; echo second", { onOutput: (chunk) => seen.push({ chunk, at: Date.now() - started }) });
      expect(r.output).toBe("first\nsecond\n");
      expect(seen.map((x) => x.chunk).join("")).toBe(r.output);
      const first = seen.find((x) => x.chunk.includes("first"))!;
      expect(first.chunk).not.toContain("second");
      expect(first.at).toBeLessThan(seen.find((x) => x.chunk.includes("second"))!.at - 500);
    });

    test("a person's Enter or half-typed line just before an agent's command does not shift the results", async () => {
      const s = await open();
      s.writeFromPerson("\r");
      const first = await s.run("echo hi");
      expect([first.output, first.exitCode]).toEqual(["hi\n", 0]);
      s.writeFromPerson("echo half-typed");
      const second = await s.run("echo again");
      expect([second.output, second.exitCode]).toEqual(["again\n", 0]);
      const third = await s.run("echo third");
      expect([third.output, third.exitCode]).toEqual(["third\n", 0]);
    });

    test("keystrokes from a person wait until the agent's command is done", async () => {
      const s = await open();
      const raw: string[] = [];
      s.onRawOutput((c) => raw.push(c));
      const running = s.run("sleep 0.5; echo agent-done");
      await new Promise((resolve) => setTimeout(resolve, 100));
      s.writeFromPerson("echo person-typed\r");
      const r = await running;
      expect(r.output).toBe("agent-done\n");
      const seen = await new Promise<boolean>((resolve) => {
        const t0 = performance.now();
        const check = (): void => {
          if (/person-typed\r?\n/.test(raw.join("").replace(/echo person-typed/g, ""))) resolve(true);
          else if (performance.now() - t0 > 5_000) resolve(false);
          else setTimeout(check, 50);
        };
        check();
      });
      expect(seen).toBe(true);
      // once the person's command is over, the agent gets the shell back
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await s.run("echo agent-again")).output).toBe("agent-again\n");
    });

    test("background jobs start, report output and exit code, are killed and capped", async () => {
      const s = await open({ maxJobs: 2 });
      await s.run("mkdir -p jobdir && cd jobdir");
      const job = await s.startJob("pwd; echo one; sleep 0.3; echo two; exit 3");
      expect(job.id).toMatch(/^job-\d+$/);
      expect(job.status).toBe("running");
      let out = "";
      let last = await s.jobOutput(job.id, { waitSec: 5 });
      out += last.output;
      for (let i = 0; i < 20 && last.status === "running"; i++) {
        last = await s.jobOutput(job.id, { waitSec: 5 });
        out += last.output;
      }
      expect(last.status).toBe("exited");
      expect(last.exitCode).toBe(3);
      expect(out).toBe(`${runtime.workspace}/jobdir\none\ntwo\n`);
      expect((await s.jobOutput(job.id)).output).toBe("");

      const a = await s.startJob("sleep 30");
      const b = await s.startJob("sleep 30");
      await expect(s.startJob("sleep 30")).rejects.toBeInstanceOf(JobError);
      await expect(s.startJob("sleep 30")).rejects.toThrow(/At most 2/);
      expect(s.listJobs().map((j) => j.id)).toEqual([job.id, a.id, b.id]);
      const killed = await s.killJob(a.id);
      expect(killed.status).toBe("exited");
      expect(killed.killed).toBe(true);
      const c = await s.startJob("echo third");
      expect(c.status).toBe("running");
      await expect(s.jobOutput("job-999")).rejects.toThrow(/No background job/);
      await s.killJob(b.id);
      // the agent's shell was not disturbed
      expect((await s.run("echo shell-ok")).output).toBe("shell-ok\n");
    });

    test("a job's output is bounded per read and spilled whole", async () => {
      const s = await open();
      const n = 100_000;
      const job = await s.startJob(`seq 1 ${n}`);
      const reads = [await s.jobOutput(job.id, { waitSec: 10 })];
      for (let i = 0; i < 50 && reads[reads.length - 1]!.status === "running"; i++) {
        reads.push(await s.jobOutput(job.id, { waitSec: 10 }));
      }
      expect(reads[reads.length - 1]!.status).toBe("exited");
      expect(reads[reads.length - 1]!.exitCode).toBe(0);
      expect(reads.some((r) => r.truncated)).toBe(true);
      let whole = "";
      for (const r of reads) {
        expect(r.output.length).toBeLessThan(SHELL.maxOutputChars + 500);
        if (r.truncated) {
          expect(r.fullOutputPath).toMatch(/job-\d+-output-\d+\.log$/);
          whole += await readText(r.fullOutputPath!);
        } else whole += r.output;
      }
      expect(whole.length).toBe(seqChars(n));
      expect(whole.endsWith(`${n - 1}\n${n}\n`)).toBe(true);
    });

    // Ported from OpenHands' bash-session tests and SWE-ReX's execution tests: behaviours, by name.

    test(ENV_CASE, async () => {
      const s = await open();
      await s.run("export SS_EXPORTED=out; SS_PLAIN=in");
      const r = await s.run('env | grep "^SS_" | sort; echo "plain=$SS_PLAIN"');
      expect(r.output).toBe("SS_EXPORTED=out\nplain=in\n");
    });

    test("cwd: cd into a new folder is the next command's cwd and the result's", async () => {
      const s = await open();
      const r = await s.run("mkdir -p peer/cwd && cd peer/cwd");
      expect(r.cwd).toBe(`${runtime.workspace}/peer/cwd`);
      expect((await s.run("pwd")).output).toBe(`${runtime.workspace}/peer/cwd\n`);
      await s.run("cd ..");
      expect(s.cwd).toBe(`${runtime.workspace}/peer`);
    });

    test("multi-line: a heredoc write then a read in one command", async () => {
      const s = await open();
      const r = await s.run("cat > peer-heredoc.txt << 'EOF'\nline one\n  line $two\nEOF\ncat peer-heredoc.txt; echo done");
      expect(r.output).toBe("line one\n  line $two\ndone\n");
      expect(r.exitCode).toBe(0);
    });

    test("C-c: a running loop stops and the shell stays usable", async () => {
      const s = await open();
      const r = await s.run("echo tick; while true; do sleep 0.2; done", { softTimeoutSec: 0.6 });
      expect(r.status).toBe("running");
      expect(r.output).toContain("tick\n");
      const stop = await s.input("C-c");
      expect(stop.status).toBe("interrupted");
      expect((await s.run("echo after-loop")).output).toBe("after-loop\n");
    });

    test("long output: 50,000 lines arrive truncated with head and tail and the whole in a spill file", async () => {
      const s = await open();
      const r = await s.run("seq 1 50000");
      expect(r.truncated).toBe(true);
      expect(r.output.startsWith("1\n2\n")).toBe(true);
      expect(r.output.endsWith("49999\n50000\n")).toBe(true);
      expect((await readText(r.fullOutputPath!)).length).toBe(seqChars(50_000));
    });

    test("hard timeout: a command asked to stop after 1 s is stopped and the next runs", async () => {
      const s = await open();
      const r = await s.run("sleep 20", { timeoutSec: 1 });
      expect(r.status).toBe("timeout");
      expect((await s.run("echo next")).output).toBe("next\n");
    });
  });
}
