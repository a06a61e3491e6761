// The red team's second round against the node session (attacks/REPORT-round2.md: N4, N7, N8, N9, L4), each as its
// attack script did it, through the sandbox's tools with two callers on one real bash in the OS sandbox: tripwires in
// the workspace say what really ran.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type CallToolResult, type Sandbox } from "../../src/node.ts";

const text = (r: CallToolResult): string => r.content.map((c) => ("text" in c ? c.text : "")).join("");
const sc = (r: CallToolResult): Record<string, unknown> => r.structuredContent;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `test` holds (a background job starts slowly on a loaded machine); false after `tries` looks. */
async function until(test: () => boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries && !test(); i++) await sleep(50);
  return test();
}

describe("the red team's second round against the node session", () => {
  let sb: Sandbox;
  let ws: string;
  const c1 = { caller: "c1" };
  const c2 = { caller: "c2" };

  beforeAll(async () => {
    sb = await createSandbox({ runtime: "node", approver: "deny" });
    ws = sb.runtimeInfo.workspace;
  });

  afterAll(async () => {
    await sb?.close();
  });

  /** A fresh shell for the next attack: nothing of the last one's jobs is left. */
  async function fresh(): Promise<void> {
    await sb.callTool("bash", { command: "exit" }, c1);
    await sb.callTool("bash", { command: "true" }, c1);
  }

  /** The attack's program, written into the workspace by the first caller (project code: allowed unasked). */
  async function writeProgram(path: string, lines: string[]): Promise<void> {
    await sb.callTool("write_file", { path, content: lines.join("\n") }, c1);
  }

  /** Where the prompt hook writes `export -p` (no secret: its text says). */
  async function hookEnvFile(): Promise<string> {
    const where = await sb.callTool("bash", { command: "declare -f __sandshell_prompt" }, c1);
    const envFile = /exec 250> '([^']+)'/.exec(text(where))?.[1];
    expect(envFile).toBeDefined();
    return envFile!;
  }

  it("session-forge-race (N8): a job that copies each end's token (the shell's name) and prints an end right after the real one never gives another caller's `false` exit 0 or an end of its own", async () => {
    // The forger finds the shell by its name, waits for the name to change (the hook published a new token) and at
    // once prints its text and a complete end with that token and number (and one for the next number).
    await writeProgram("forger.py", [
      "import os, re, sys, time",
      "def shell():",
      "    for d in os.listdir('/proc'):",
      "        try:",
      "            if d.isdigit() and open('/proc/%s/comm' % d).read().startswith('bash-'): return int(d)",
      "        except OSError: pass",
      "pid = shell()",
      // The nonce from the hook's text (no secret), the number from the command that started it.
      "nonce = re.search(r\"'([0-9a-f-]{36})\\.'\", open('hook.txt').read()).group(1)",
      "seq = int(sys.argv[2])",
      "def comm():",
      "    try: return open('/proc/%d/comm' % pid).read().strip()",
      "    except OSError: return ''",
      "def end(seq, tok, text): return ('%s\\n\\x1b]654;exit=%s.%s.%s:0\\x07\\x1b]654;cwd=%s.%s.%s:/etc\\x07\\x1b]654;prompt\\x07' % (text, nonce, seq, tok, nonce, seq, tok)).encode()",
      "last = comm()",
      "stop = time.time() + float(sys.argv[1])",
      "while time.time() < stop:",
      "    c = comm()",
      "    if c == last or not c.startswith('bash-'): continue",
      "    last = c",
      // The end just printed is the next number's (a change missed makes the count lag: forge around it).
      "    seq += 1",
      "    s = seq",
      "    os.write(1, end(s - 1, c, 'EARLY-%d' % (s - 1)) + end(s, c, 'FORGED-%d' % s) + end(s + 1, c, 'LATE-%d' % (s + 1)))",
      "    open('forger.log', 'a').write('%d %s\\n' % (s, c))",
    ]);
    const started = await sb.callTool("bash", { command: "declare -f __sandshell_prompt > hook.txt; python3 forger.py 120 $__ss_seq 2>forger.err &" }, c1);
    expect(sc(started).verdict).toMatchObject({ decision: "allow" });
    const results: Array<{ seq: number; output: string; exitCode: unknown; status: unknown }> = [];
    // The forger is up once it has answered an end (python starts slowly on a loaded machine).
    for (let i = 0; i < 200 && !existsSync(join(ws, "forger.log")); i++) {
      await sb.callTool("bash", { command: "true" }, c2);
      await sleep(50);
    }
    expect(existsSync(join(ws, "forger.log"))).toBe(true);
    for (let i = 0; i < 30; i++) {
      const r = await sb.callTool("bash", { command: "echo seq=$__ss_seq; false", timeout: 20 }, c2);
      const seq = Number(/seq=(\d+)/.exec(text(r))?.[1] ?? -1);
      results.push({ seq, output: text(r), exitCode: sc(r).exitCode, status: sc(r).status });
    }
    const forgerLog = await sb.callTool("bash", { command: "wc -l < forger.log; cat forger.err" }, c1);
    // It really answered the ends (its own text may show around the count: it prints after every end, this one's too).
    expect(Number(/^(\d+)$/m.exec(text(forgerLog))?.[1]), text(forgerLog)).toBeGreaterThanOrEqual(20);
    // Its text may be in a command's output (printed while that command ran); its end never ends one.
    for (const r of results) {
      expect({ seq: r.seq, exitCode: r.exitCode, status: r.status, own: r.output.includes(`seq=${r.seq}\n`) }).toEqual({
        seq: r.seq,
        exitCode: 1,
        status: "completed",
        own: true,
      });
    }
    await fresh();
  }, 240_000);

  it("session-steal (N7): a job that takes the terminal (tcsetpgrp) before another caller's command never reads it: the shell is replaced and the command runs", async () => {
    await writeProgram("steal.py", [
      "import os, signal, sys, time",
      "for s in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)",
      "time.sleep(float(sys.argv[1]))",
      "os.tcsetpgrp(0, os.getpgrp())",
      "open('took.txt', 'w').write('took')",
      "data = b''",
      "stop = time.time() + 30",
      "while time.time() < stop and b'\\r' not in data:",
      "    try: chunk = os.read(0, 4096)",
      "    except OSError: break",
      "    if not chunk: break",
      "    data += chunk",
      "    open('stolen.txt', 'wb').write(data)",
    ]);
    await sb.callTool("bash", { command: "python3 steal.py 0.5 &" }, c1);
    expect(await until(() => existsSync(join(ws, "took.txt")))).toBe(true);
    const r = await sb.callTool("bash", { command: "echo c2-secret-text; touch C2_RAN" }, c2);
    expect(text(r)).toMatch(/^c2-secret-text\n/);
    expect(sc(r)).toMatchObject({ status: "completed", exitCode: 0 });
    expect(sc(r).notice).toMatch(/python3.*had taken the terminal.*replaced/);
    expect(existsSync(join(ws, "C2_RAN"))).toBe(true);
    expect(existsSync(join(ws, "stolen.txt"))).toBe(false);
    expect(text(await sb.callTool("bash", { command: "echo after" }, c2))).toMatch(/^after\n/);
  }, 120_000);

  it("session-steal2 (N7): a job that flips the terminal to itself and back, or reads it from outside the session (setsid): a command it took is reported not run, never completed, and the shell is replaced", async () => {
    for (const mode of ["flip", "setsid"]) {
      await writeProgram("thief.py", [
        "import os, select, signal, sys, time",
        "for s in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)",
        "shell = os.tcgetpgrp(0); me = os.getpgrp()",
        `mode = ${JSON.stringify(mode)}`,
        "if mode == 'setsid':",
        "    if os.fork() != 0: sys.exit(0)",
        "    os.setsid()",
        "open('thief-up-%s.txt' % mode, 'w').write(mode)",
        "stop = time.time() + 60",
        "while time.time() < stop:",
        "    if mode == 'flip':",
        "        try: os.tcsetpgrp(0, me)",
        "        except OSError: break",
        "    r, _, _ = select.select([0], [], [], 0.005)",
        "    if r:",
        "        try: d = os.read(0, 65536)",
        "        except OSError: break",
        "        if not d: break",
        "        open('stolen.txt', 'ab').write(d + b'\\n')",
        "    if mode == 'flip':",
        "        try: os.tcsetpgrp(0, shell)",
        "        except OSError: break",
        "        time.sleep(0.005)",
      ]);
      await sb.callTool("bash", { command: "python3 thief.py &" }, c1);
      expect(await until(() => existsSync(join(ws, `thief-up-${mode}.txt`)))).toBe(true);
      for (let i = 0; i < 12; i++) {
        const tripwire = `${mode}-${i}`;
        const r = await sb.callTool("bash", { command: `echo ran-${tripwire}; touch RAN_${tripwire}`, timeout: 30 }, c2);
        const ran = existsSync(join(ws, `RAN_${tripwire}`));
        const outcome = ran && text(r).startsWith(`ran-${tripwire}\n`) ? "ran" : !ran && /was NOT run/.test(text(r)) && r.isError ? "not run" : "other";
        expect({ tripwire, outcome }, text(r)).toEqual({ tripwire, outcome: outcome === "other" ? "ran or not run" : outcome });
      }
      await fresh();
    }
  }, 300_000);

  it("session-steal3: a job outside the session that makes the terminal drop carriage returns (IGNCR) leaves another caller's pasted command echoed but never entered: it is reported not run at once (not still running), and the shell is replaced", async () => {
    // The line editor got the whole paste and redrew it (something was heard), but never the Enter that accepts it.
    await writeProgram("igncr.py", [
      "import os, signal, sys, termios",
      "for s in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)",
      "if os.fork() != 0: sys.exit(0)",
      "os.setsid()",
      "a = termios.tcgetattr(0); a[0] |= termios.IGNCR; termios.tcsetattr(0, termios.TCSANOW, a)",
      "open('igncr-on.txt', 'w').write('on')",
      "import time; time.sleep(60)",
    ]);
    await sb.callTool("bash", { command: "python3 igncr.py &" }, c1);
    expect(await until(() => existsSync(join(ws, "igncr-on.txt")))).toBe(true);
    const r = await sb.callTool("bash", { command: "echo ran-igncr; touch RAN_igncr", timeout: 60 }, c2);
    expect(existsSync(join(ws, "RAN_igncr"))).toBe(false);
    expect(r.isError).toBe(true);
    expect(sc(r)).toMatchObject({ status: "error", exitCode: null });
    expect(text(r)).toMatch(/kept the line from being entered.*was NOT run/);
    expect(Number(sc(r).durationMs)).toBeLessThan(60_000); // reported, not left to its timeout
    expect(text(await sb.callTool("bash", { command: "echo after" }, c2))).toMatch(/^after\n/);
    await fresh();
  }, 120_000);

  it("state-poison (N4): code appended to the state files (by name in the hook's folder, through the descriptors the shell passes on) and a PATH to its environment before `exit` are not in the next shell, nor in a job", async () => {
    // Project code (allowed unasked) does what the red team's `printf … >> /tmp/env-1.state; exit` did, to every
    // state file it can reach, and plants an `ls` that the poisoned PATH would find first.
    await writeProgram("poison.py", [
      "import glob, os, sys",
      "os.makedirs('evilbin', exist_ok=True)",
      "open('evilbin/ls', 'w').write('#!/bin/sh\\ntouch POISONED_PATH\\n'); os.chmod('evilbin/ls', 0o755)",
      "def line(state): return (b'ls() { touch POISONED_BY_C1; command ls \"$@\"; }\\n' if state else ('declare -x PATH=\"%s/evilbin:/usr/bin:/bin\"\\n' % os.getcwd()).encode())",
      "n = 0",
      "for fd, state in ((250, False), (251, True)):",
      "    try: os.write(fd, line(state)); n += 1",
      "    except OSError: pass",
      "for f in glob.glob(os.path.join(sys.argv[1], '*')) + glob.glob('/tmp/env-*'):",
      "    open(f, 'ab').write(line('.state' in f)); n += 1",
      "print('poisoned', n)",
    ]);
    const envFile = await hookEnvFile();
    const a = await sb.callTool("bash", { command: `python3 poison.py ${dirname(envFile)}; exit` }, c1);
    expect(sc(a).verdict).toMatchObject({ decision: "allow" });
    expect(text(a)).toMatch(/poisoned [1-9]/); // it wrote into what the shell passed on
    const b = await sb.callTool("bash", { command: "ls >/dev/null; type -t ls" }, c2);
    expect(text(b)).toMatch(/^file\n/);
    expect(sc(b).notice).toMatch(/fresh shell .* restored/);
    const job = await sb.callTool("bash", { command: "ls >/dev/null; echo job-done", run_in_background: true }, c2);
    const out = await sb.callTool("job_output", { id: String(sc(job).jobId), wait: 10 }, c2);
    expect(text(out)).toContain("job-done");
    expect(existsSync(join(ws, "POISONED_BY_C1"))).toBe(false);
    expect(existsSync(join(ws, "POISONED_PATH"))).toBe(false);
  }, 120_000);

  it("state-poison (N4), held: a job that keeps the state files open (the descriptors it inherits, each file it finds by name) and hard-links them, and writes through them later, never reaches what a respawn sources; the names it plants are never used", async () => {
    // It keeps the descriptors the shell passed on (the last prompt's files), watches the folder where the hook
    // writes, opens and links every file that shows there, plants names there, and from 2 s after it got hold of a
    // file writes a function into it every few milliseconds.
    await writeProgram("holder.py", [
      "import os, sys, time",
      "folder, base = os.path.split(sys.argv[2])",
      "held, seen, n, linked = [], set(), 0, 0",
      "poison = b'ls() { touch POISONED_HELD; command ls \"$@\"; }\\n'",
      "for fd in (250, 251):",
      "    try: held.append((0, os.dup(fd)))",
      "    except OSError: pass",
      "for name in (base, base + '.state', base + '.0123456789abcdef', base + '.state.0123456789abcdef'):",
      "    try: held.append((0, os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)))",
      "    except OSError: pass",
      "stop = time.time() + float(sys.argv[1])",
      "while time.time() < stop:",
      "    for name in os.listdir(folder):",
      "        if not name.startswith(base) or name in seen: continue",
      "        seen.add(name)",
      "        path = os.path.join(folder, name)",
      "        try: held.append((time.time(), os.open(path, os.O_WRONLY | os.O_APPEND)))",
      "        except OSError: continue",
      "        try: os.link(path, 'held-%d' % len(seen)); linked += 1",
      "        except OSError: pass",
      "    for t, fd in held:",
      "        if time.time() - t > 2: os.write(fd, poison); n += 1",
      "    time.sleep(0.002)",
      "    open('holder.tmp', 'w').write('%d %d %d\\n' % (len(seen), n, linked)); os.replace('holder.tmp', 'holder.log')",
    ]);
    const envFile = await hookEnvFile();
    const started = await sb.callTool("bash", { command: `python3 holder.py 30 ${envFile} 2>holder.err &` }, c1);
    expect(sc(started).verdict).toMatchObject({ decision: "allow" });
    expect(await until(() => existsSync(join(ws, "holder.log")))).toBe(true);
    for (let i = 0; i < 12; i++) await sb.callTool("bash", { command: `X=v${i}; sleep 0.5` }, c2);
    const log = await sb.callTool("bash", { command: "cat holder.log holder.err" }, c2);
    // It wrote into what it held (the numbers: names seen, writes made, files linked).
    expect(Number(/^(\d+) (\d+)/.exec(text(log))?.[2]), text(log)).toBeGreaterThan(0);
    await sb.callTool("bash", { command: "exit" }, c1);
    const b = await sb.callTool("bash", { command: "ls >/dev/null; type -t ls; echo $X" }, c2);
    expect(text(b)).toMatch(/^file\nv11\n/);
    expect(sc(b).notice).toMatch(/fresh shell .* restored/);
    expect(existsSync(join(ws, "POISONED_HELD"))).toBe(false);
    await fresh();
  }, 180_000);

  it("state-poison (N4), timed: a program that writes the state file and then ignores C-c is killed at its timeout; the fresh shell restores the state of the last verified prompt", async () => {
    await sb.callTool("bash", { command: "ORIGINAL=kept" }, c1);
    await writeProgram("ignore.py", [
      "import glob, os, signal, time",
      "signal.signal(signal.SIGINT, signal.SIG_IGN)",
      "poison = b'ORIGINAL=poisoned; ls() { touch POISONED_TIMED; }\\n'",
      "try: os.write(251, poison)",
      "except OSError: pass",
      "for f in glob.glob('/tmp/sandshell-*/rt-*/shell-*/env.state.*'): open(f, 'ab').write(poison)",
      "time.sleep(60)",
    ]);
    const r = await sb.callTool("bash", { command: "python3 ignore.py", timeout: 1 }, c1);
    expect(sc(r).status).toBe("timeout");
    expect(sc(r).notice).toMatch(/killed/);
    const b = await sb.callTool("bash", { command: "ls >/dev/null; echo $ORIGINAL" }, c2);
    expect(text(b)).toMatch(/^kept\n/);
    expect(existsSync(join(ws, "POISONED_TIMED"))).toBe(false);
  }, 120_000);

  it("a .inputrc that project code writes in the workspace (HOME) binds no key of the agent's shell: a macro on Enter adds nothing to later commands", async () => {
    await sb.callTool("write_file", { path: "w.py", content: `open('.inputrc', 'w').write('"\\\\C-m": " ; touch INPUTRC_RAN\\\\C-j"\\n')\n` }, c1);
    await sb.callTool("bash", { command: "python3 w.py; exit" }, c1);
    const r = await sb.callTool("bash", { command: "echo hi" }, c2);
    expect(text(r)).toMatch(/^hi\n/);
    expect(existsSync(join(ws, "INPUTRC_RAN"))).toBe(false);
  }, 60_000);
});

describe("is_input into a shell is whole lines, checked by the guard (red team N9, L4)", () => {
  let sb: Sandbox;
  let ws: string;
  const asked: string[] = [];

  beforeAll(async () => {
    // Approves exactly the nested-shell starters below, denies everything else.
    sb = await createSandbox({
      runtime: "node",
      approver: (req) => (asked.push(req.command), ["bash", "python3 spawn.py", "script -qc bash /dev/null"].includes(req.command)),
      shell: { promptQuietMs: 300 },
    });
    ws = sb.runtimeInfo.workspace;
    await sb.callTool("bash", { command: "mkdir -p precious && touch precious/a" });
    await sb.callTool("write_file", { path: "spawn.py", content: "import pty\npty.spawn(['/bin/bash', '--norc', '-i'])\n" });
  });

  afterAll(async () => {
    await sb?.close();
  });

  /** Sends is_input `rm -rf precious` until it is checked: the nested shell starts a moment after the program that runs it. */
  async function rmUntilChecked(): Promise<CallToolResult> {
    let denied: CallToolResult | undefined;
    for (let i = 0; i < 40; i++) {
      denied = await sb.callTool("bash", { command: "rm -rf precious", is_input: true });
      if (sc(denied).verdict !== undefined) break;
      await sleep(100);
    }
    return denied!;
  }

  async function leave(): Promise<void> {
    for (let i = 0; i < 3 && (await sb.callTool("bash", { command: "exit", is_input: true })).structuredContent.status === "running"; i++);
    expect(text(await sb.callTool("bash", { command: "echo back" }))).toMatch(/^back\n/);
  }

  it("nested-keys (N9): after an approved `bash`, text without Enter and editing keys are refused, so `echo rm -rf precious`, C-a, C-d ×5, Enter runs nothing; C-c is taken", async () => {
    const nb = await sb.callTool("bash", { command: "bash" });
    expect(sc(nb).status).toBe("running");
    // checked as a command: `rm -rf` asks, and this sandbox's approver denies all but the nested shells' starters
    const direct = await sb.callTool("bash", { command: "rm -rf precious", is_input: true });
    expect(direct.isError).toBe(true);
    expect(sc(direct)).toMatchObject({ status: "denied", verdict: { decision: "ask", rule: "deletion" } });
    const steps: Array<[string, boolean]> = [["echo rm -rf precious", false], ["C-a", true], ["C-d", true], ["C-d", true], ["C-d", true], ["C-d", true], ["C-d", true], ["Enter", true], ["Tab", true], ["Up", true]];
    for (const [input, enter] of steps) {
      const r = await sb.callTool("bash", { command: input, is_input: true, enter });
      expect({ input, isError: r.isError, text: text(r) }).toMatchObject({ input, isError: true, text: expect.stringMatching(/whole lines only.*Nothing was sent/) });
    }
    const tab = await sb.callTool("bash", { command: "ls pre\tcious", is_input: true });
    expect(text(tab)).toMatch(/tab in it would be completion/);
    const cc = await sb.callTool("bash", { command: "C-c", is_input: true });
    expect(cc.isError).toBeFalsy();
    const ok = await sb.callTool("bash", { command: "echo inside-nested", is_input: true });
    expect(text(ok)).toContain("inside-nested");
    expect(sc(ok).verdict).toMatchObject({ decision: "allow" });
    await leave();
    expect(existsSync(join(ws, "precious/a"))).toBe(true);
  }, 60_000);

  it("session-input (L4): bash under python's pty.spawn and under `script -qc bash` is a shell reading commands: is_input `rm -rf precious` is checked (asked, denied), `echo` runs, both audited with the shell as reader", async () => {
    for (const starter of ["python3 spawn.py", "script -qc bash /dev/null"]) {
      const st = await sb.callTool("bash", { command: starter });
      expect(sc(st).status).toBe("running");
      const denied = await rmUntilChecked();
      expect({ starter, result: sc(denied), isError: denied.isError }).toMatchObject({ starter, result: { status: "denied", verdict: { decision: "ask", rule: "deletion" } }, isError: true });
      const keys = await sb.callTool("bash", { command: "echo rm -rf precious", is_input: true, enter: false });
      expect(text(keys)).toMatch(/reads this input as command lines/);
      const ok = await sb.callTool("bash", { command: "echo under-$((6*7))", is_input: true });
      expect(text(ok)).toContain("under-42");
      expect(sc(ok)).toMatchObject({ verdict: { decision: "allow" }, readBy: "bash" });
      await leave();
      expect({ starter, precious: existsSync(join(ws, "precious/a")) }).toEqual({ starter, precious: true });
    }
    const inputs = sb.auditLog().filter((e) => e.type === "input") as Array<{ readBy?: string; verdict?: { decision: string } }>;
    expect(inputs.filter((e) => e.readBy === "bash" && e.verdict?.decision === "allow").length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  // Red team round 5, R2: `sh /dev/tty` took /dev/tty for a script (so "not a shell"), and a bash linked as `./tool`
  // goes by the name `tool`: is_input `rm -rf precious` into either ran unchecked and removed precious.
  it("nested-tty (R2): `sh /dev/tty`, `bash /dev/tty` and a bash linked as `./tool` are shells reading commands: is_input `rm -rf precious` is checked (asked, denied)", async () => {
    // allowed project code makes the link; `ln -s` would be as good
    const link = await sb.callTool("bash", { command: "python3 -c \"import os; os.symlink('/bin/bash', 'tool')\"" });
    expect(sc(link)).toMatchObject({ status: "completed", verdict: { decision: "allow" } });
    for (const [starter, reader] of [["sh /dev/tty", "sh"], ["bash /dev/tty", "bash"], ["./tool", "bash"]] as const) {
      const st = await sb.callTool("bash", { command: starter });
      expect({ starter, status: sc(st).status }).toEqual({ starter, status: "running" });
      const denied = await rmUntilChecked();
      expect({ starter, result: sc(denied), isError: denied.isError }).toMatchObject({ starter, result: { status: "denied", verdict: { decision: "ask", rule: "deletion" } }, isError: true });
      const ok = await sb.callTool("bash", { command: "echo under-$((6*7))", is_input: true });
      expect(text(ok)).toContain("under-42");
      expect({ starter, result: sc(ok) }).toMatchObject({ starter, result: { verdict: { decision: "allow" }, readBy: reader } });
      await leave();
      expect({ starter, precious: existsSync(join(ws, "precious/a")) }).toEqual({ starter, precious: true });
    }
  }, 120_000);
});
