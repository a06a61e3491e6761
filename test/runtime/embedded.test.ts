// The embedded runtime (just-bash in a worker_threads Worker, the same core as the browser's Web Worker), driven the
// way the session engine and a person drive it: keystrokes in, terminal output and OSC 654 markers out. Real just-bash,
// no mocks.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDED, WORKSPACE } from "../../src/limits.ts";
import { createEmbeddedRuntime } from "../../src/runtime/embedded/index.ts";
import type { JobSpawnOptions, Runtime, TerminalProcess } from "../../src/runtime/types.ts";

const MARKER = /\x1b\]654;([^\x07]*)\x07/g;

/** A terminal attached to a process: everything it printed, and ways to wait for more. */
class Term {
  raw = "";
  private mark = 0;
  private waiters: Array<() => void> = [];

  constructor(
    readonly proc: TerminalProcess,
    readonly nonce: string,
  ) {
    proc.onData((chunk) => {
      this.raw += chunk;
      for (const w of this.waiters) w();
    });
  }

  /** Markers printed since `from` (default: everything), as payloads. */
  markers(from = 0): string[] {
    return [...this.raw.slice(from).matchAll(MARKER)].map((m) => m[1] ?? "");
  }

  /** Raw output since the last `since()` call. */
  since(): string {
    const text = this.raw.slice(this.mark);
    this.mark = this.raw.length;
    return text;
  }

  async waitFor(test: (raw: string) => boolean, timeoutMs = 10_000): Promise<void> {
    if (test(this.raw)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`timed out; output so far: ${JSON.stringify(this.raw.slice(-2000))}`));
      }, timeoutMs);
      const check = (): void => {
        if (!test(this.raw)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      this.waiters.push(check);
    });
  }

  /** Waits for the number of prompt markers to reach `n`. */
  async prompts(n: number, timeoutMs?: number): Promise<void> {
    await this.waitFor((raw) => (raw.match(/\x1b\]654;prompt\x07/g) ?? []).length >= n, timeoutMs);
  }

  promptCount(): number {
    return (this.raw.match(/\x1b\]654;prompt\x07/g) ?? []).length;
  }

  /** Types `keys` and waits for the next prompt; returns what was printed in between. */
  async type(keys: string, timeoutMs?: number): Promise<string> {
    const n = this.promptCount();
    const from = this.raw.length;
    this.proc.write(keys);
    await this.prompts(n + 1, timeoutMs);
    return this.raw.slice(from);
  }

  /** Runs a command line (as a paste, like the session engine does) and returns its output, exit code and cwd. */
  async run(command: string, timeoutMs?: number): Promise<{ output: string; code: number; cwd: string; raw: string }> {
    const n = this.nonce;
    const from = this.raw.length;
    this.proc.write(`\x1b[200~${command}\x1b[201~\r`);
    // The end is our exit marker (with the nonce) and a prompt after it: a prompt the command prints itself is not.
    const ended = new RegExp(`\x1b\\]654;exit=${n}:-?\\d+\x07[\\s\\S]*\x1b\\]654;prompt\x07`);
    await this.waitFor((all) => ended.test(all.slice(from)), timeoutMs);
    const raw = this.raw.slice(from);
    const start = raw.indexOf(`\x1b]654;start=${n}\x07`);
    const exit = new RegExp(`\x1b\\]654;exit=${n}:(-?\\d+)\x07`).exec(raw);
    const cwd = new RegExp(`\x1b\\]654;cwd=${n}:([^\x07]*)\x07`).exec(raw);
    const body = start === -1 || exit === null ? "" : raw.slice(raw.indexOf("\x07", start) + 1, exit.index);
    return { output: body.replace(/\r\n/g, "\n"), code: Number(exit?.[1] ?? NaN), cwd: cwd?.[1] ?? "", raw };
  }
}

/** What a person sees: the raw text with markers and colours removed. */
function screen(raw: string): string {
  return raw.replace(MARKER, "").replace(/\x1b\[\?2004[hl]/g, "").replace(/\x1b\[[0-9;]*m/g, "");
}

/** Runs a job to its end: its exit code and everything it printed. */
async function runJob(runtime: Runtime, command: string, opts: JobSpawnOptions): Promise<{ code: number; out: string }> {
  const job = await runtime.spawnJob(command, opts);
  let out = "";
  job.onData((c) => (out += c));
  const code = await job.exited;
  return { code, out };
}

type BoundedRuntime = Runtime & { memory(): Promise<{ fileBytes: number; files: number }> };

/**
 * For a describe block: an embedded runtime with these bounds and one shell on it, opened before its tests and
 * closed after them (read `runtime` and `term` inside the tests).
 */
function boundedShell(bounds: { bytes: number; files: number }): { runtime: BoundedRuntime; term: Term } {
  const opened = {} as { runtime: BoundedRuntime; term: Term };
  beforeAll(async () => {
    opened.runtime = await createEmbeddedRuntime({ bounds });
    opened.term = new Term(await opened.runtime.spawnShell({ cols: 120, rows: 30 }), opened.runtime.markerNonce ?? "");
    await opened.term.prompts(1);
  }, 30_000);
  afterAll(async () => {
    opened.term?.proc.kill();
    await opened.runtime?.dispose();
  });
  return opened;
}

describe("embedded runtime", () => {
  let runtime: Runtime;
  const open: TerminalProcess[] = [];

  async function shell(): Promise<Term> {
    const proc = await runtime.spawnShell({ cols: 120, rows: 30 });
    open.push(proc);
    const term = new Term(proc, runtime.markerNonce ?? "");
    await term.prompts(1);
    // the prompt's text and the line editor's bracketed-paste switch may come in a later piece than the marker
    await term.waitFor((raw) => raw.endsWith("\x1b[?2004h"));
    term.since();
    return term;
  }

  beforeAll(async () => {
    runtime = await createEmbeddedRuntime();
  }, 30_000);

  afterAll(async () => {
    for (const p of open) p.kill();
    await runtime?.dispose();
  });

  it("describes itself: kind, workspace, nonce, capabilities", () => {
    expect(runtime.kind).toBe("embedded");
    expect(runtime.workspace).toBe(WORKSPACE);
    expect(runtime.markerNonce).toMatch(/^[0-9a-f]{24}$/);
    const c = runtime.capabilities;
    expect(c).toMatchObject({ heredocs: true, pipes: true, redirects: true, lists: true, exportVars: true, background: false });
    expect(c.programs.grep).toBe(true);
    expect(c.programs.awk).toBe(true);
    expect(c.programs.jq).toBe(true);
    expect(c.programs.python3).toBe(false);
    expect(c.programs.git).toBe(false);
  });

  it("starts with interactive, cwd and prompt markers, in the workspace with HOME set", async () => {
    const proc = await runtime.spawnShell({ cols: 80, rows: 24 });
    open.push(proc);
    const t = new Term(proc, runtime.markerNonce ?? "");
    await t.prompts(1);
    const n = runtime.markerNonce;
    expect(t.markers()).toEqual(["interactive", `cwd=${n}:${WORKSPACE}`, expect.stringMatching(new RegExp(`^envfile=${n}:/tmp/`)), "prompt"]);
    expect(t.raw.endsWith("\x1b[?2004h")).toBe(true); // bracketed paste on while reading
    const r = await t.run('pwd; echo "$HOME"; ls -d /tmp');
    expect(r.output).toBe(`${WORKSPACE}\n${WORKSPACE}\n/tmp\n`);
  });

  describe("line editor", () => {
    it("echoes typed characters and runs the line on Enter", async () => {
      const t = await shell();
      const raw = await t.type("echo typed\r");
      expect(raw.startsWith("echo typed\r\n")).toBe(true);
      expect(screen(raw)).toContain("typed\r\n");
    });

    it("backspace and left/right edit the line", async () => {
      const t = await shell();
      // "echo abX" ← backspace → "echo ab"; left left, insert "Z" → "echo Zab"; right, insert "Y" → "echo ZaYb"
      const r = await t.run("true"); // a command in between does not disturb the editor
      expect(r.code).toBe(0);
      const raw = await t.type("echo abX\x7f\x1b[D\x1b[DZ\x1b[C" + "Y\r");
      expect(screen(raw)).toContain("ZaYb\r\n");
      const raw2 = await t.type("echo 12345\x01\x1b[C\x1b[C\x1b[C\x1b[C\x1b[Cx\x05y\r"); // C-a, right ×5, C-e
      expect(screen(raw2)).toContain("x12345y\r\n");
    });

    it("history: up recalls earlier lines, down goes back toward the new line", async () => {
      const t = await shell();
      await t.run("echo first");
      await t.run("echo second");
      const raw = await t.type("\x1b[A\x1b[A\r"); // up, up: "echo first"
      expect(screen(raw)).toMatch(/first\r\n/);
      // history is now: first, second, first; up ×3 then down lands on "echo second"
      const raw2 = await t.type("\x1b[A\x1b[A\x1b[A\x1b[B\r");
      expect(screen(raw2)).toMatch(/\r\nsecond\r\n/);
      const raw3 = await t.type("echo draft\x1b[A\x1b[B\r"); // up then down restores the draft
      expect(screen(raw3)).toMatch(/draft\r\n/);
    });

    it("C-c drops a half-typed line and gives a fresh prompt with exit code 130", async () => {
      const t = await shell();
      const raw = await t.type("echo never-run\x03");
      expect(raw).toContain("^C\r\n");
      expect(t.markers(t.raw.length - raw.length)).toEqual([
        `exit=${runtime.markerNonce}:130`,
        `cwd=${runtime.markerNonce}:${WORKSPACE}`,
        "prompt",
      ]);
      expect(screen(raw)).not.toContain("never-run\r\nnever-run");
      const r = await t.run("echo $?");
      expect(r.output).toBe("130\n");
    });

    it("C-l clears the screen and redraws the line being typed", async () => {
      const t = await shell();
      t.proc.write("echo keep");
      await t.waitFor((raw) => raw.endsWith("echo keep"));
      t.proc.write("\x0c");
      await t.waitFor((raw) => raw.includes("\x1b[H\x1b[2J"));
      const after = t.raw.slice(t.raw.indexOf("\x1b[H\x1b[2J"));
      expect(screen(after)).toContain("$ echo keep");
      const raw = await t.type(" going\r");
      expect(screen(raw)).toContain("keep going\r\n");
    });

    it("a pasted block arrives whole, tabs included", async () => {
      const t = await shell();
      const r = await t.run("printf '%s\\n' 'a\tb'\necho second-line");
      expect(r.output).toBe("a\tb\nsecond-line\n");
    });
  });

  describe("multi-line input", () => {
    it("a heredoc typed line by line", async () => {
      const t = await shell();
      t.proc.write("cat > notes.txt <<'EOF'\r");
      await t.waitFor((raw) => raw.endsWith("> \x1b[?2004h"));
      t.proc.write("line $one\r");
      await t.waitFor((raw) => raw.endsWith("line $one\r\n\x1b[?2004l> \x1b[?2004h"));
      t.proc.write("  two\r");
      await t.waitFor((raw) => (raw.match(/> \x1b\[\?2004h/g) ?? []).length >= 3);
      await t.type("EOF\r");
      const r = await t.run("cat notes.txt");
      expect(r.output).toBe("line $one\n  two\n");
    });

    it("an unclosed quote continues on the next line", async () => {
      const t = await shell();
      t.proc.write("echo 'multi\r");
      await t.waitFor((raw) => raw.endsWith("> \x1b[?2004h"));
      const raw = await t.type("line'\r");
      expect(screen(raw)).toContain("multi\r\nline\r\n");
    });

    it("a trailing backslash continues the command", async () => {
      const t = await shell();
      t.proc.write("echo one \\\r");
      await t.waitFor((raw) => raw.endsWith("> \x1b[?2004h"));
      const raw = await t.type("two\r");
      expect(screen(raw)).toContain("one two\r\n");
    });

    it("an open if, &&, or | continues; a plain syntax error does not", async () => {
      const t = await shell();
      t.proc.write("if true; then\r");
      await t.waitFor((raw) => raw.endsWith("> \x1b[?2004h"));
      t.proc.write("echo inside\r");
      await t.waitFor((raw) => (raw.match(/> \x1b\[\?2004h/g) ?? []).length >= 2);
      expect(screen(await t.type("fi\r"))).toContain("inside\r\n");
      t.proc.write("echo piped |\r");
      await t.waitFor((raw) => raw.endsWith("> \x1b[?2004h"));
      expect(screen(await t.type("tr a-z A-Z\r"))).toContain("PIPED\r\n");
      const bad = await t.run("echo 'x' )");
      expect(bad.code).not.toBe(0);
      expect(bad.output).toMatch(/syntax error/);
    });
  });

  describe("state carries from command to command", () => {
    it("cd, export, plain variables, functions, aliases, set -o, arrays", async () => {
      const t = await shell();
      expect((await t.run("mkdir -p a/b && cd a/b")).cwd).toBe(`${WORKSPACE}/a/b`);
      await t.run("export EXPORTED=yes; PLAIN=kept");
      await t.run("greet() { echo \"hello $1\"; }");
      await t.run("alias ll='echo alias-ran'");
      await t.run("set -o pipefail");
      await t.run("declare -a list=(x 'y z')");
      const r = await t.run('pwd; echo "$EXPORTED $PLAIN"; greet you; ll; false | true; echo "pipefail=$?"; echo "${list[1]}"');
      expect(r.output).toBe(`${WORKSPACE}/a/b\nyes kept\nhello you\nalias-ran\npipefail=1\ny z\n`);
      expect((await t.run("sh -c 'echo child sees $EXPORTED and [$PLAIN]'")).output).toBe("child sees yes and []\n");
      expect((await t.run("cd -")).output).toBe(`${WORKSPACE}\n`);
      expect((await t.run("set +o pipefail; false | true; echo $?")).output).toBe("0\n");
      expect((await t.run("unset -f greet; greet 2>/dev/null || echo gone")).output).toBe("gone\n");
    });

    it("arrays and functions changed in any way carry over, and plain lines keep them (the short trailer)", async () => {
      const t = await shell();
      await t.run("declare -a keep=(k1 k2); fill() { filled=(f1 f2); }; addf() { eval 'made() { echo made-ran; }'; }");
      await t.run("echo a plain line; ls >/dev/null");
      await t.run("fill");
      await t.run("read -a fromread <<< 'r1 r2'");
      await t.run("printf -v 'pv[1]' %s p1");
      await t.run("let 'lt[2]=7'");
      await t.run("nums=(1 2 3); (( nums[1]++ ))");
      await t.run("mapfile -t lines <<< $'m1\nm2'");
      await t.run("addf");
      await t.run("x=$(echo sub); cd /tmp; cd - >/dev/null");
      const r = await t.run('echo "${keep[1]} ${filled[1]} ${fromread[1]} ${pv[1]} ${lt[2]} ${nums[1]} ${lines[1]} $x"; made');
      expect(r.output).toBe("k2 f2 r2 p1 7 3 m2 sub\nmade-ran\n");
      await t.run("unset 'keep[0]'; unset -f fill");
      expect((await t.run('echo "${#keep[@]} $(type -t fill || echo none)"')).output).toBe("1 none\n");
    });

    it("a function with a heredoc and one defined conditionally keep their exact bodies", async () => {
      const t = await shell();
      await t.run("show() {\ncat <<'EOF'\n$literal `kept`\nEOF\n}");
      await t.run("if false; then pick() { echo wrong; }; else pick() { echo right; }; fi");
      expect((await t.run("show; pick")).output).toBe("$literal `kept`\nright\n");
    });

    it("$? carries over, and each command's exit code is in its marker", async () => {
      const t = await shell();
      expect((await t.run("(exit 7)")).code).toBe(7);
      expect((await t.run("echo $?")).output).toBe("7\n");
      expect((await t.run("false")).code).toBe(1);
    });

    it("markers come in order: start, output, exit=nonce:code, cwd, prompt", async () => {
      const t = await shell();
      const r = await t.run("cd /tmp; echo out; (exit 3)");
      const n = runtime.markerNonce;
      expect(t.markers(t.raw.length - r.raw.length)).toEqual([`start=${n}`, `exit=${n}:3`, `cwd=${n}:/tmp`, "prompt"]);
      expect(r.raw.indexOf("out\r\n")).toBeGreaterThan(r.raw.indexOf(`start=${n}`));
      expect(r.raw.indexOf("out\r\n")).toBeLessThan(r.raw.indexOf(`exit=${n}:3`));
      expect(r.raw.indexOf("\x1b[?2004l")).toBeLessThan(r.raw.indexOf(`start=${n}`)); // the echo ends first
    });

    it("a command that calls the shell's helper commands by name puts no code or state into the shell", async () => {
      const t = await shell();
      await t.run("mkdir -p /tmp/forged");
      // a state report of its own, then an end before the real one: its arrays would be re-run before every later line
      t.proc.write("\x1b[200~cd /tmp/forged; __sandshell_state 0 '' '' 'touch pwned=1'; exit 4\x1b[201~\r");
      expect(await t.proc.exited).toBe(4);
      // a status variable of its own does not make `exit` a normal end either
      const u = await shell();
      u.proc.write("\x1b[200~__sandshell_status_=0; __sandshell_status_0=0; exit 3\x1b[201~\r");
      expect(await u.proc.exited).toBe(3);
      const v = await shell();
      await v.run("cd /tmp/forged; echo a later line");
      expect((await v.run("ls /tmp/forged")).output).toBe("");
    });

    it("a command cannot forge an end: its own markers carry no nonce", async () => {
      const t = await shell();
      const r = await t.run("printf '\\033]654;exit=-1:0\\007\\033]654;prompt\\007'; echo real");
      expect(r.code).toBe(0);
      expect(r.output).toContain("real\n");
      const exits = t.markers(t.raw.length - r.raw.length).filter((m) => m.startsWith(`exit=${runtime.markerNonce}:`));
      expect(exits).toEqual([`exit=${runtime.markerNonce}:0`]);
    });

    it("output streams statement by statement", async () => {
      const t = await shell();
      const seen: Array<[number, string]> = [];
      const t0 = performance.now();
      const off = t.proc.onData((c) => seen.push([performance.now() - t0, c]));
      await t.run("echo early; sleep 0.5; echo late");
      off();
      const early = seen.find(([, c]) => /(?:^|\n)early\r\n/.test(c));
      const late = seen.find(([, c]) => /(?:^|\n)late\r\n/.test(c));
      expect(early).toBeDefined();
      expect(late).toBeDefined();
      expect((late?.[0] ?? 0) - (early?.[0] ?? 0)).toBeGreaterThan(400);
    });

    it("a loop's output streams iteration by iteration", async () => {
      const t = await shell();
      const seen: Array<[number, string]> = [];
      const t0 = performance.now();
      const off = t.proc.onData((c) => seen.push([performance.now() - t0, c]));
      await t.run("for i in 1 2; do echo tick $i; sleep 0.4; done");
      off();
      const first = seen.find(([, c]) => /(?:^|\n)tick 1\r\n/.test(c));
      const second = seen.find(([, c]) => /(?:^|\n)tick 2\r\n/.test(c));
      expect((second?.[0] ?? 0) - (first?.[0] ?? 0)).toBeGreaterThan(300);
    });

    it("functions from a sourced file carry over too", async () => {
      const t = await shell();
      await t.run("printf 'lib() { echo \"lib says $1\"; }\\n' > /tmp/lib.sh; source /tmp/lib.sh");
      expect((await t.run("lib hi")).output).toBe("lib says hi\n");
    });

    it("keys sent while a command does not read are kept up to a bound, then dropped at its end and reported", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("sleep 0.3\r");
      t.proc.write("x".repeat(EMBEDDED.maxTypeaheadChars + 4096) + "\r");
      await t.prompts(n + 1);
      // what was kept (the bound, no more) is what is dropped: nothing past the bound was held
      expect(t.markers()).toContain(`discarded=${runtime.markerNonce}:${EMBEDDED.maxTypeaheadChars}`);
      expect(t.raw).not.toMatch(/x{1000,}/);
      expect((await t.run("echo still here")).output).toBe("still here\n");
    });

    it("keys typed while a command runs that it does not read are dropped at its end and reported, never run (as bash's prompt hook does on node)", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("sleep 0.3\r");
      t.proc.write("echo typed-ahead\r");
      await t.prompts(n + 1);
      expect(t.markers()).toContain(`discarded=${runtime.markerNonce}:${"echo typed-ahead\r".length}`);
      t.proc.write("echo after\r");
      await t.prompts(n + 2);
      expect(screen(t.raw)).not.toMatch(/typed-ahead\r\ntyped-ahead/);
    });

    it("errexit ends the shell on a failure, as bash does", async () => {
      const proc = await runtime.spawnShell({ cols: 80, rows: 24 });
      const t = new Term(proc, runtime.markerNonce ?? "");
      await t.prompts(1);
      proc.write("set -e; false; echo not-reached\r");
      expect(await proc.exited).toBe(1);
      expect(t.raw.slice(t.raw.indexOf("start="))).not.toContain("not-reached\r\n");
    });

    it("exported variables are kept in the file its envfile marker names", async () => {
      const t = await shell();
      const proc = await runtime.spawnShell({ cols: 80, rows: 24 });
      open.push(proc);
      const u = new Term(proc, runtime.markerNonce ?? "");
      await u.prompts(1);
      const marker = u.markers().find((m) => m.startsWith(`envfile=${runtime.markerNonce}:`));
      expect(marker).toBeDefined();
      const path = (marker ?? "").slice((marker ?? "").indexOf(":") + 1);
      await u.run(`export GREETING='say "hi" for $5'; NOT_EXPORTED=1`);
      const text = new TextDecoder().decode(await runtime.fs.readFile(path));
      expect(text).toContain('declare -x GREETING="say \\"hi\\" for \\$5"\n');
      expect(text).not.toContain("NOT_EXPORTED");
      expect((await t.run(`cat ${path} | grep -c GREETING`)).output).toBe("1\n");
    });

    it("exit ends the shell with its code", async () => {
      const proc = await runtime.spawnShell({ cols: 80, rows: 24 });
      const t = new Term(proc, runtime.markerNonce ?? "");
      await t.prompts(1);
      proc.write("exit 4\r");
      expect(await proc.exited).toBe(4);
    });

    it("C-d on an empty line ends the shell", async () => {
      const proc = await runtime.spawnShell({ cols: 80, rows: 24 });
      const t = new Term(proc, runtime.markerNonce ?? "");
      await t.prompts(1);
      await t.run("(exit 2)");
      proc.write("\x04");
      expect(await proc.exited).toBe(2);
    });

    it("a respawned shell gets its cwd and environment from the spawn options", async () => {
      const proc = await runtime.spawnShell({ cols: 80, rows: 24, cwd: "/tmp", env: { CARRIED: "over" } });
      open.push(proc);
      const t = new Term(proc, runtime.markerNonce ?? "");
      await t.prompts(1);
      expect((await t.run("pwd; echo $CARRIED; sh -c 'echo $CARRIED'")).output).toBe("/tmp\nover\nover\n");
    });
  });

  describe("interrupts and limits", () => {
    it("C-c stops a CPU-bound loop and keeps the files written before it", async () => {
      const t = await shell();
      await t.run("export KEEP=me; cd /tmp");
      const n = t.promptCount();
      t.proc.write("\x1b[200~echo before > loop-proof.txt; mkdir -p made/here; while true; do :; done\x1b[201~\r");
      await t.waitFor((raw) => raw.includes(`start=${runtime.markerNonce}`) && raw.lastIndexOf("start=") > raw.lastIndexOf("prompt"));
      await new Promise((r) => setTimeout(r, 400)); // well into the loop
      t.proc.write("\x03");
      await t.prompts(n + 1, 30_000); // the loop never ends by itself (how fast is bench/session's business)
      const tail = t.raw.slice(t.raw.lastIndexOf("^C"));
      expect(tail).toContain(`exit=${runtime.markerNonce}:130`);
      // the shell works, its state from before the command is there, and so are the files
      const r = await t.run("cat /tmp/loop-proof.txt; ls -d /tmp/made/here; echo $KEEP; pwd");
      expect(r.output).toBe("before\n/tmp/made/here\nme\n/tmp\n");
      expect(new TextDecoder().decode(await runtime.fs.readFile("/tmp/loop-proof.txt"))).toBe("before\n");
      expect(await runtime.fs.stat("/tmp/made/here")).toEqual({ type: "dir", size: 0 });
    });

    it("a worker that replaces one stopped by C-c starts from the latest state, also after lines that changed nothing", async () => {
      // The state goes to the page only when a line changed it: the lines between must not leave the page's copy stale.
      const t = await shell();
      await t.run("export KEEP=me; cd /tmp");
      for (let i = 0; i < 3; i++) expect((await t.run("echo same")).output).toBe("same\n");
      await t.run("X=changed; f() { echo fn; }; false");
      for (let i = 0; i < 3; i++) expect((await t.run("echo same")).output).toBe("same\n");
      const n = t.promptCount();
      t.proc.write("\x1b[200~while true; do :; done\x1b[201~\r");
      await t.waitFor((raw) => raw.includes(`start=${runtime.markerNonce}`) && raw.lastIndexOf("start=") > raw.lastIndexOf("prompt"));
      await new Promise((r) => setTimeout(r, 400));
      t.proc.write("\x03");
      await t.prompts(n + 1, 30_000);
      expect((await t.run("echo $KEEP $X; f; pwd")).output).toBe("me changed\nfn\n/tmp\n");
    });

    it("C-c stops a sleep at once without replacing the worker", async () => {
      const t = await shell();
      await t.run("X=still-here");
      const n = t.promptCount();
      t.proc.write("sleep 30\r");
      await new Promise((r) => setTimeout(r, 300));
      t.proc.write("\x03");
      await t.prompts(n + 1, 20_000); // well before the sleep's 30 s
      expect((await t.run("echo $X $?")).output).toBe("still-here 130\n");
    });

    it("C-c ends a command waiting for terminal input", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("read answer\r");
      await new Promise((r) => setTimeout(r, 200));
      t.proc.write("\x03");
      await t.prompts(n + 1, 3_000);
      expect((await t.run("echo ok")).output).toBe("ok\n");
    });

    it("seq 1 1000000 | wc -l works", async () => {
      const t = await shell();
      const r = await t.run("seq 1 1000000 | wc -l", 30_000);
      expect(r.output.trim()).toBe("1000000");
      expect(r.code).toBe(0);
    });

    it("infinite recursion and a fork bomb stop with an error", async () => {
      const t = await shell();
      const rec = await t.run("f() { f; }; f", 15_000);
      expect(rec.code).not.toBe(0);
      expect(rec.output).toMatch(/recursion|depth/i);
      const bomb = await t.run(":(){ :|:& };:", 15_000);
      expect(bomb.code).not.toBe(0);
      expect(bomb.output).toMatch(/recursion|depth|limit/i);
      expect((await t.run("echo alive")).output).toBe("alive\n");
    });

    it("a runaway loop stops by itself with an error", async () => {
      const t = await shell();
      const r = await t.run("while true; do :; done", 30_000);
      expect(r.code).not.toBe(0);
      expect(r.output).toMatch(/too many commands|limit/i);
      expect((await t.run("echo alive")).output).toBe("alive\n");
    }, 30_000);
  });

  describe("terminal input to commands", () => {
    it("read gets a typed line, read -p shows its prompt first, read -s does not echo", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("read -p 'Name? ' name; echo \"hi $name\"\r");
      await t.waitFor((raw) => raw.endsWith("Name? "));
      t.proc.write("Ada\r");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("Name? Ada\r\nhi Ada\r\n");
      const m = t.promptCount();
      t.proc.write("read -s -p 'Secret: ' pw; echo; echo ${#pw}\r");
      await t.waitFor((raw) => raw.endsWith("Secret: "));
      t.proc.write("hunter2\r");
      await t.prompts(m + 1);
      const tail = screen(t.raw.slice(t.raw.lastIndexOf("Secret: ")));
      expect(tail).not.toContain("hunter2");
      expect(tail).toContain("7\r\n");
    });

    it("cat with no file reads until C-d; a pipe is not the terminal", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("cat | tr a-z A-Z\r");
      await new Promise((r) => setTimeout(r, 100));
      t.proc.write("hello\r");
      t.proc.write("world\r");
      t.proc.write("\x04");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("HELLO\r\nWORLD\r\n");
      expect((await t.run("echo piped | cat")).output).toBe("piped\n");
    });

    it("head -n N returns after N typed lines, not at C-d", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("head -n 1 | tr a-z A-Z; echo after-head\r");
      await new Promise((r) => setTimeout(r, 100));
      t.proc.write("first\r");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("FIRST\r\nafter-head\r\n");
      const m = t.promptCount();
      t.proc.write("head -2\r");
      await new Promise((r) => setTimeout(r, 100));
      t.proc.write("one\rtwo\r");
      await t.prompts(m + 1);
      expect(screen(t.raw.slice(t.raw.lastIndexOf("head -2")))).toMatch(/one\r\n(?:one\r\n)?two\r\n/);
    });

    it("read -n N ends after N typed characters without Enter", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("read -n 1 key; echo; echo \"key=$key\"\r");
      await new Promise((r) => setTimeout(r, 100));
      t.proc.write("y");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("key=y\r\n");
    });

    it("read inside a function reads the terminal when the function is called at the prompt, and the pipe when piped", async () => {
      const t = await shell();
      await t.run("ask() { read -p 'name? ' x; echo \"hello $x\"; }");
      const n = t.promptCount();
      t.proc.write("ask\r");
      await t.waitFor((raw) => raw.endsWith("name? "));
      t.proc.write("Ada\r");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("hello Ada\r\n");
      expect((await t.run("echo piped | ask")).output).toBe("hello piped\n");
      expect((await t.run("two() { read a; read b; echo \"$a+$b\"; }; printf 'l1\\nl2\\n' | two")).output).toBe("l1+l2\n");
    });

    it("read inside bash -c, a script run by bash or by its path, and a sourced file reads the terminal, and a pipe when piped", async () => {
      const t = await shell();
      await runtime.fs.writeFile("/tmp/ask.sh", "read -p 'who? ' x\necho \"got $x\"\n");
      await t.run("chmod +x /tmp/ask.sh");
      for (const [command, typed] of [
        ["bash -c 'read -p \"who? \" x; echo \"got $x\"'", "Ada"],
        ["bash /tmp/ask.sh", "Bo"],
        ["sh /tmp/ask.sh", "Cy"],
        ["/tmp/ask.sh", "Di"],
        ["source /tmp/ask.sh", "Ed"],
        ["cd /tmp && . ./ask.sh; cd", "Flo"],
      ] as const) {
        const n = t.promptCount();
        const from = t.raw.length;
        t.proc.write(`${command}\r`);
        await t.waitFor((raw) => raw.slice(from).endsWith("who? "));
        t.proc.write(`${typed}\r`);
        await t.prompts(n + 1);
        expect(screen(t.raw.slice(from)), command).toContain(`who? ${typed}\r\ngot ${typed}\r\n`);
      }
      // a sourced file's variables are the shell's
      expect((await t.run("echo \"x=$x\"")).output).toBe("x=Flo\n");
      expect((await t.run("echo p1 | bash -c 'read y; echo \"y=$y\"'; echo p2 | /tmp/ask.sh; echo p3 | source /tmp/ask.sh")).output).toBe("y=p1\ngot p2\ngot p3\n");
    });

    it("head -n 1 inside sh -c returns after one typed line", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("sh -c 'head -n 1 | tr a-z A-Z'; echo after\r");
      await new Promise((r) => setTimeout(r, 100));
      t.proc.write("first\r");
      await t.prompts(n + 1);
      expect(screen(t.raw)).toContain("FIRST\r\nafter\r\n");
    });

    it("a script's exit code, a sourced file's text and a file read by a program are as written", async () => {
      const t = await shell();
      await runtime.fs.writeFile("/tmp/lib.sh", "cat <<X\nhello \"$1\" 'q' $((1+2))\nX\ngreet() { echo \"hi $1\"; }\nreturn 3\necho not-here\n");
      const r = await t.run("false; bash -c 'exit 4'; echo rc=$?; source /tmp/lib.sh arg; echo rc=$?; greet you; /bin/cat /tmp/lib.sh | head -n 2");
      expect(r.output).toBe("rc=4\nhello \"arg\" 'q' 3\nrc=3\nhi you\ncat <<X\nhello \"$1\" 'q' $((1+2))\n");
    });
  });

  describe("bash behaviours just-bash lacks", () => {
    it("bash -n checks syntax without running anything", async () => {
      const t = await shell();
      expect((await t.run("bash -n -c 'touch ran'; echo rc=$?; ls ran 2>/dev/null || echo not-run")).output).toBe("rc=0\nnot-run\n");
      await runtime.fs.writeFile(`${WORKSPACE}/bad.sh`, "echo a\nfor x in; do\n");
      await runtime.fs.writeFile(`${WORKSPACE}/good.sh`, "#!/bin/bash\necho ok\n");
      const r = await t.run("bash -n bad.sh; echo rc=$?; bash -n good.sh && echo good; sh -n < bad.sh; echo rc=$?; bash -n nope.sh; echo rc=$?");
      expect(r.output).toMatch(/^bad\.sh: .+\nrc=2\ngood\n.+\nrc=2\nbash: nope\.sh: No such file or directory\nrc=127\n$/);
    });

    it("set -u abandons the rest of the command line at an unbound variable, with $? 1, and stays on", async () => {
      const t = await shell();
      const r = await t.run("set -u; echo before; echo $NOPE; echo after");
      expect(r.output).toMatch(/^before\n(?:bash: )?NOPE: unbound variable\n$/);
      expect(r.code).toBe(1);
      expect((await t.run("echo $?; echo $NOPE2; echo not-here")).output).toMatch(/^1\n(?:bash: )?NOPE2: unbound variable\n$/);
      expect((await t.run("set +u; echo \"[$NOPE]\"; echo 'x: unbound variable'; echo goes-on")).output).toBe("[]\nx: unbound variable\ngoes-on\n");
    });

    it("set -u inside bash -c ends only that shell; a line that prints the words itself goes on", async () => {
      const t = await shell();
      const r = await t.run("bash -c 'set -u; echo $NOPE; echo inner-after'; echo outer-after");
      expect(r.output).toMatch(/^(?:bash: )?NOPE: unbound variable\nouter-after\n$/);
      expect((await t.run("set -u; echo 'x: unbound variable'; echo goes-on; set +u")).output).toBe("x: unbound variable\ngoes-on\n");
    });

    it("set -u stops a line at an unbound variable inside a loop or a function called at the prompt", async () => {
      const t = await shell();
      const loop = await t.run("set -u; for i in 1 2; do echo $i; echo $UNSET_X; done; echo not-here");
      expect(loop.output).toMatch(/^1\n(?:bash: )?UNSET_X: unbound variable\n$/);
      expect(loop.code).toBe(1);
      const fn = await t.run("f() { echo $UNSET_Y; echo f-after; }; f; echo not-here");
      expect(fn.output).toMatch(/^(?:bash: )?UNSET_Y: unbound variable\n$/);
      await t.run("set +u");
    });
  });

  describe("file system", () => {
    const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

    it("fs methods round-trip and see what the shell wrote, and the shell sees theirs", async () => {
      const t = await shell();
      const fs = runtime.fs;
      await fs.mkdir(`${WORKSPACE}/fsdir/sub`, { recursive: true });
      await fs.writeFile(`${WORKSPACE}/fsdir/from-host.txt`, "host text\n");
      await fs.appendFile(`${WORKSPACE}/fsdir/from-host.txt`, "more\n");
      await fs.writeFile(`${WORKSPACE}/fsdir/bytes.bin`, new Uint8Array([0, 1, 2, 255]));
      const r = await t.run("cd fsdir && cat from-host.txt && wc -c < bytes.bin && ls");
      expect(r.output).toBe("host text\nmore\n4\nbytes.bin\nfrom-host.txt\nsub\n");
      await t.run("printf 'shell\\n' > from-shell.txt; echo again >> from-shell.txt; ln -s from-shell.txt link; mkdir -p deep/er");
      expect(dec(await fs.readFile(`${WORKSPACE}/fsdir/from-shell.txt`))).toBe("shell\nagain\n");
      expect(dec(await fs.readFile(`${WORKSPACE}/fsdir/link`))).toBe("shell\nagain\n");
      expect(await fs.stat(`${WORKSPACE}/fsdir/link`)).toEqual({ type: "symlink", size: 0 });
      expect(await fs.realpath(`${WORKSPACE}/fsdir/link`)).toBe(`${WORKSPACE}/fsdir/from-shell.txt`);
      expect(await fs.stat(`${WORKSPACE}/fsdir/from-shell.txt`)).toEqual({ type: "file", size: 12 });
      expect(await fs.stat(`${WORKSPACE}/fsdir/nothing`)).toBeNull();
      const names = (await fs.readdir(`${WORKSPACE}/fsdir`)).map((e) => `${e.name}:${e.type}`);
      expect(names).toEqual(["bytes.bin:file", "deep:dir", "from-host.txt:file", "from-shell.txt:file", "link:symlink", "sub:dir"]);
      await fs.rename(`${WORKSPACE}/fsdir/from-shell.txt`, `${WORKSPACE}/fsdir/sub/moved.txt`);
      await fs.rm(`${WORKSPACE}/fsdir/deep`, { recursive: true });
      const r2 = await t.run("ls sub; test -e deep || echo deep-gone; cat sub/moved.txt");
      expect(r2.output).toBe("moved.txt\ndeep-gone\nshell\nagain\n");
      await t.run("rm -r sub; mv from-host.txt renamed.txt");
      expect(await fs.stat(`${WORKSPACE}/fsdir/sub`)).toBeNull();
      expect(dec(await fs.readFile(`${WORKSPACE}/fsdir/renamed.txt`))).toBe("host text\nmore\n");
      await t.run("cd ..");
    });

    it("fs errors carry errno codes", async () => {
      const fs = runtime.fs;
      const code = async (p: Promise<unknown>): Promise<string | undefined> =>
        p.then(
          () => undefined,
          (e: { code?: string }) => e.code,
        );
      await fs.writeFile("/tmp/errno-file", "x");
      expect(await code(fs.readFile("/tmp/does-not-exist"))).toBe("ENOENT");
      expect(await code(fs.readFile("/tmp"))).toBe("EISDIR");
      expect(await code(fs.writeFile("/tmp/no/such/dir/f", "x"))).toBe("ENOENT");
      expect(await code(fs.readdir("/tmp/errno-file"))).toBe("ENOTDIR");
      expect(await code(fs.mkdir("/tmp"))).toBe("EEXIST");
      expect(await code(fs.mkdir("/tmp/a/b/c"))).toBe("ENOENT");
      expect(await code(fs.rm("/tmp/nope"))).toBe("ENOENT");
      expect(await code(fs.rm("/tmp/nope", { force: true }))).toBeUndefined();
      expect(await code(fs.realpath("/tmp/nope"))).toBe("ENOENT");
      expect(await code(fs.appendFile("/tmp/new-by-append", "a"))).toBeUndefined();
      expect(await code(fs.appendFile("/tmp/missing-dir/x", "a"))).toBe("ENOENT");
      await fs.mkdir("/tmp/full/inner", { recursive: true });
      await fs.writeFile("/tmp/full/inner/f", "x");
      expect(await code(fs.rm("/tmp/full"))).toBe("EISDIR");
      expect(await code(fs.rename("/tmp/errno-file", "/tmp/full"))).toBe("EISDIR");
    });

    it("fs calls answer while the shell is busy in a loop; the next command sees their files", async () => {
      const t = await shell();
      const n = t.promptCount();
      t.proc.write("\x1b[200~i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; echo loop-done\x1b[201~\r");
      await new Promise((r) => setTimeout(r, 200));
      await runtime.fs.writeFile("/tmp/during.txt", "written while busy\n");
      expect(dec(await runtime.fs.readFile("/tmp/during.txt"))).toBe("written while busy\n");
      expect((await runtime.fs.readdir("/tmp")).some((e) => e.name === "during.txt")).toBe(true);
      // answered while the loop still ran: no prompt and no "loop-done" yet
      expect(t.promptCount()).toBe(n);
      expect(screen(t.raw)).not.toMatch(/(?:^|\n)loop-done\r?\n/);
      await t.prompts(n + 1, 30_000);
      expect(screen(t.raw)).toContain("loop-done");
      expect((await t.run("cat /tmp/during.txt")).output).toBe("written while busy\n");
    }, 40_000);

    it("a file written by the page and by a busy command at once ends the same on both sides", async () => {
      const t = await shell();
      const n = t.promptCount();
      // the command writes the file after a loop during which the page writes it: the worker applies the page's
      // change only after its own write, so the page corrects it afterwards
      t.proc.write("\x1b[200~i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo from-shell > /tmp/race.txt\x1b[201~\r");
      await new Promise((r) => setTimeout(r, 200));
      await runtime.fs.writeFile("/tmp/race.txt", "from-page\n");
      await t.prompts(n + 1, 30_000);
      await new Promise((r) => setTimeout(r, 100));
      const page = dec(await runtime.fs.readFile("/tmp/race.txt"));
      expect(page).toBe("from-shell\n");
      expect((await t.run("cat /tmp/race.txt")).output).toBe(page);
    }, 40_000);

    it("writing to /dev/tty writes to the terminal", async () => {
      const t = await shell();
      const r = await t.run("echo to-terminal > /dev/tty");
      expect(r.output).toBe("to-terminal\n");
    });

    it("a background job shares the file system and streams its output", async () => {
      const t = await shell();
      await runtime.fs.writeFile("/tmp/job-input.txt", "for the job\n");
      const { code, out } = await runJob(runtime, "cat /tmp/job-input.txt; echo from-job > /tmp/job-output.txt; pwd; exit 5", { cwd: "/tmp" });
      expect(code).toBe(5);
      expect(out.replace(/\r\n/g, "\n")).toBe("for the job\n/tmp\n");
      expect(dec(await runtime.fs.readFile("/tmp/job-output.txt"))).toBe("from-job\n");
      expect((await t.run("cat /tmp/job-output.txt")).output).toBe("from-job\n");
    });

    it("a killed job ends at once", async () => {
      const job = await runtime.spawnJob("while true; do :; done", { cwd: WORKSPACE });
      await new Promise((r) => setTimeout(r, 200));
      job.kill();
      expect(await job.exited).toBe(137); // the loop never ends by itself
    });

    it("a larger file reaches a job and the shell as its size, and its bytes when read; copies and moves reach the page", async () => {
      const t = await shell();
      const big = new Uint8Array(EMBEDDED.inlineFileBytes * 4).map((_, i) => 97 + (i % 26));
      await runtime.fs.writeFile(`${WORKSPACE}/big.bin`, big);
      expect((await t.run("ls -l big.bin | awk '{print $5}'; wc -c < big.bin; head -c 3 big.bin; echo")).output).toBe(`${big.length}\n${big.length}\nabc\n`);
      await t.run("echo tail >> big.bin; cp big.bin copy.bin; mv copy.bin moved.bin");
      expect((await runtime.fs.readFile(`${WORKSPACE}/moved.bin`)).length).toBe(big.length + 5);
      expect(await runtime.fs.stat(`${WORKSPACE}/copy.bin`)).toBeNull();
      // a job that never read them copies and moves them too
      const { code, out } = await runJob(runtime, "cp big.bin j.bin && mv j.bin j2.bin && tail -c 5 j2.bin", { cwd: WORKSPACE });
      expect(code).toBe(0);
      expect(out).toBe("tail\r\n");
      expect(dec(await runtime.fs.readFile(`${WORKSPACE}/j2.bin`))).toBe(dec(await runtime.fs.readFile(`${WORKSPACE}/big.bin`)));
      // the page appends (as spill files grow): the shell reads the whole
      await runtime.fs.appendFile(`${WORKSPACE}/big.bin`, "more\n");
      expect((await t.run("tail -c 10 big.bin; wc -c < j2.bin")).output).toBe(`tail\nmore\n${big.length + 5}\n`);
    });

    it("/dev/null keeps nothing", async () => {
      const t = await shell();
      expect((await t.run("echo kept? > /dev/null; echo more >> /dev/null; cat /dev/null; wc -c < /dev/null")).output).toBe("0\n");
    });
  });
});

describe("embedded runtime bounds", () => {
  const bounds = { bytes: 2 * 1024 * 1024, files: 200 };
  const shell = boundedShell(bounds);

  it("a write past the file system's bytes fails with ENOSPC naming the bound and what to do; files written before stay", async () => {
    const { runtime, term } = shell;
    expect((await term.run("seq 1 250000 > a.txt; wc -c < a.txt")).output).toBe("1638895\n");
    const r = await term.run("cat a.txt > b.txt; echo rc=$?; wc -c < a.txt");
    expect(r.output).toMatch(/^ENOSPC: no space left: the embedded shell's files \(workspace and \/tmp together, with their names and links' targets\) may hold 2 MiB and [\d.]+ MiB are in use; delete files you no longer need \(rm\), or write less\nrc=1\n1638895\n$/);
    await expect(runtime.fs.writeFile(`${WORKSPACE}/page.bin`, new Uint8Array(600 * 1024))).rejects.toMatchObject({
      code: "ENOSPC",
      message: expect.stringMatching(/may hold 2 MiB .* delete files you no longer need/),
    });
    // deleting makes room
    expect((await term.run("rm a.txt b.txt; seq 1 1000 > c.txt && echo ok")).output).toBe("ok\n");
    await runtime.fs.writeFile(`${WORKSPACE}/page.bin`, new Uint8Array(600 * 1024));
  });

  it("creating files past the bound on files fails with ENOSPC; the page refuses too", async () => {
    const { runtime, term } = shell;
    const r = await term.run("mkdir many && cd many && for i in $(seq 1 300); do : > f$i || break; done; ls | wc -l; cd ..");
    expect(r.output).toMatch(/ENOSPC: no space left: the embedded shell's file system may hold 200 files, folders and links and \d+ exist; delete some \(rm -r\), or keep many small pieces in one file\n\d+\n$/);
    await expect(runtime.fs.writeFile(`${WORKSPACE}/one-more.txt`, "x")).rejects.toMatchObject({ code: "ENOSPC" });
    expect((await term.run("rm -r many; : > fine.txt && echo ok")).output).toBe("ok\n");
  });

  it("embedded-bounds: a path longer than Linux's PATH_MAX, a name longer than NAME_MAX, a link target longer than PATH_MAX fail with ENAMETOOLONG, in the shell, a job and from the page; nothing is made", async () => {
    const { runtime, term } = shell;
    const seg = "n".repeat(200);
    const deep = Array.from({ length: 25 }, () => seg).join("/"); // 5,024 characters
    const r = await term.run(
      `mkdir -p ${deep} 2>&1 | grep -c 'File name too long\\|ENAMETOOLONG'; { : > ${"m".repeat(256)}; } 2>&1 | grep -c ENAMETOOLONG; ` +
        `t=$(printf 'x%.0s' $(seq 1 ${EMBEDDED.maxPathChars + 1})); ln -s "$t" far 2>&1 | grep -c ENAMETOOLONG; ls -d n* m* far 2>/dev/null | wc -l`,
    );
    expect(r.output).toBe("1\n1\n1\n0\n");
    await expect(runtime.fs.mkdir(`${WORKSPACE}/${deep}`, { recursive: true })).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    await expect(runtime.fs.writeFile(`${WORKSPACE}/${"m".repeat(256)}`, "x")).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    // a tree moved under a long name, past PATH_MAX: refused whole, nothing moved
    const long = Array.from({ length: 19 }, () => seg).join("/"); // 3,818 characters
    const moved = await term.run(`mkdir -p ${long} t/${seg}/${seg} && mv t ${long}/ 2>&1 | grep -c ENAMETOOLONG; ls -d t/${seg}/${seg} | wc -l; rm -rf n* t`);
    expect(moved.output).toBe("1\n1\n");
    // the same from the page (runtime.fs.rename)
    await term.run(`mkdir -p ${long} t/${seg}/${seg}`);
    await expect(runtime.fs.rename(`${WORKSPACE}/t`, `${WORKSPACE}/${long}/t`)).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    expect((await term.run(`ls -d t/${seg}/${seg} | wc -l; ls ${long} | wc -l; rm -rf n* t`)).output).toBe("1\n0\n");
    const { out } = await runJob(runtime, `mkdir -p ${deep} 2>&1 | grep -c ENAMETOOLONG`, { cwd: WORKSPACE });
    expect(out).toBe("1\r\n");
  });

  it("embedded-bounds: a job whose environment passes EMBEDDED.maxJobEnvChars does not start, and says which variable is large", async () => {
    const { runtime } = shell;
    const big = "x".repeat(EMBEDDED.maxJobEnvChars);
    await expect(runtime.spawnJob("echo never", { cwd: WORKSPACE, env: { BIG: big, SMALL: "y" } })).rejects.toThrow(
      /The job's environment \(its exported variables\) has 2,097,\d+ characters, and a job gets at most 2,097,152.*the largest is BIG \(2,097,152 characters\)\. Unexport it \(export -n BIG\)/,
    );
    const { out } = await runJob(runtime, "echo $SMALL", { cwd: WORKSPACE, env: { SMALL: "y" } });
    expect(out).toBe("y\r\n");
  });
});

describe("embedded runtime bounds: names and link targets are bytes", () => {
  const bounds = { bytes: 256 * 1024, files: 10_000 };
  const shell = boundedShell(bounds);

  it("embedded-bounds: links with 4,000-character targets and folders with long names fill the bytes bound (ENOSPC) with no file content at all; the page counts them the same", async () => {
    const { runtime, term } = shell;
    // (targets that lead somewhere: just-bash's rm does not remove a dangling link)
    const r = await term.run(`: > f; t=$(printf './%.0s' $(seq 1 2000))f; for i in $(seq 1 200); do ln -s "$t" l$i 2>/dev/null || { echo "stopped at $i"; break; }; done`);
    const stopped = Number(/stopped at (\d+)/.exec(r.output)?.[1]);
    // each link costs its target and its path: about 64 of them fit in 256 KiB
    expect(stopped).toBeGreaterThan(50);
    expect(stopped).toBeLessThan(70);
    const m = await runtime.memory();
    expect(m.fileBytes).toBeLessThanOrEqual(bounds.bytes);
    expect(m.fileBytes).toBeGreaterThan(bounds.bytes - 16 * 1024);
    await expect(runtime.fs.writeFile(`${WORKSPACE}/page.bin`, new Uint8Array(16 * 1024))).rejects.toMatchObject({ code: "ENOSPC" });
    // folders' names too, and removing them makes room
    const dirs = await term.run(`rm -f l*; mkdir -p ${"a".repeat(200)} && cd ${"a".repeat(200)} && for i in $(seq 1 2000); do mkdir ${"b".repeat(240)}$i 2>/dev/null || { echo "stopped at $i"; break; }; done; cd ~`);
    expect(Number(/stopped at (\d+)/.exec(dirs.output)?.[1])).toBeLessThan(600);
    expect((await runtime.memory()).fileBytes).toBeLessThanOrEqual(bounds.bytes);
    expect((await term.run(`rm -rf ${"a".repeat(200)}; seq 1 1000 > fine.txt && echo ok`)).output).toBe("ok\n");
  });

  it("rm -r removes a tree of folders, files and links in one pass: not a link's target, not a sibling whose name starts the same; the bytes come back and the page and a job agree", async () => {
    const { runtime, term } = shell;
    await term.run("rm -rf ./*; mkdir keep && echo kept > keep/k.txt");
    const before = (await runtime.memory()).fileBytes;
    const build = "mkdir -p tree/a/b tree2 && for i in $(seq 1 50); do mkdir tree/a/b/d$i; echo $i > tree/a/b/d$i/f; ln -s ../../../../keep tree/a/b/d$i/l; done; echo x > tree2/x";
    expect((await term.run(`${build}; find tree | wc -l`)).output).toBe("153\n");
    const r = await term.run("rm -r tree; echo rc=$?; ls; cat keep/k.txt tree2/x; rm -r tree 2>&1 | grep -c 'No such file'; rm -r tree2/x; ls tree2 | wc -l");
    expect(r.output).toBe("rc=0\nkeep\ntree2\nkept\nx\n1\n0\n");
    expect(await runtime.fs.stat(`${WORKSPACE}/tree`)).toBeNull();
    expect(await runtime.fs.stat(`${WORKSPACE}/keep/k.txt`)).toEqual({ type: "file", size: 5 });
    const { out } = await runJob(runtime, "test -e tree || echo gone; cat keep/k.txt", { cwd: WORKSPACE });
    expect(out).toBe("gone\r\nkept\r\n");
    await term.run("rm -r tree2");
    expect((await runtime.memory()).fileBytes).toBe(before);
  });
});
