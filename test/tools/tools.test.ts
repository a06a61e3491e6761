// Every tool through the Node entry, on every runtime the Node entry offers: real bash on node-pty and the embedded
// just-bash. No mocks: real shells, real files, the real guard.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type ApprovalRequest, type CallToolResult, type Sandbox } from "../../src/node.ts";
import { TOOLS } from "../../src/limits.ts";

const RUNTIMES = ["node", "embedded"] as const;

function text(r: CallToolResult): string {
  return r.content[0]!.text;
}

describe.each(RUNTIMES)("tools on the %s runtime", (kind) => {
  let sb: Sandbox;
  let ws: string;
  const bash = (command: string, extra: Record<string, unknown> = {}) => sb.callTool("bash", { command, ...extra });
  const readBack = async (rel: string) => new TextDecoder().decode(await sb.runtime.fs.readFile(`${ws}/${rel}`));

  beforeAll(async () => {
    sb = await createSandbox({ runtime: kind, approver: async () => true, shell: { promptQuietMs: 300, maxJobs: 2 } });
    ws = sb.runtimeInfo.workspace;
  });

  afterAll(async () => {
    await sb?.close();
  });

  describe("bash", () => {
    it("runs a command: output, then a footer with exit code and cwd; the facts in structuredContent", async () => {
      const r = await bash("echo hello; echo oops >&2");
      expect(r.isError).toBeUndefined();
      expect(text(r)).toBe(`hello\noops\n[exit code 0 · cwd ${ws}]`);
      expect(r.structuredContent).toMatchObject({ status: "completed", exitCode: 0, cwd: ws, truncated: false });
      expect(r.structuredContent.verdict).toMatchObject({ decision: "allow", layer: 3 });
      expect(typeof r.structuredContent.durationMs).toBe("number");
    });

    it("a failing command is a result, not a tool error", async () => {
      const r = await bash("ls does-not-exist");
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent.exitCode).not.toBe(0);
      expect(text(r)).toMatch(/does-not-exist/);
    });

    it("keeps shell state between calls", async () => {
      await bash("mkdir -p state/sub && cd state/sub && export SANDSHELL_T=kept");
      const r = await bash('pwd; echo "$SANDSHELL_T"');
      expect(text(r)).toBe(`${ws}/state/sub\nkept\n[exit code 0 · cwd ${ws}/state/sub]`);
      await bash(`cd ${ws}`);
    });

    it("refuses a dangerous command: not run, isError, status blocked, the blocked-command error object, the hint in the text", async () => {
      const r = await bash("rm -rf /");
      expect(r.isError).toBe(true);
      expect(r.structuredContent.status).toBe("blocked");
      const v = r.structuredContent.verdict as { reason: string; hint: string };
      expect(r.structuredContent.error).toStrictEqual({
        error: `Command blocked by safety rule: ${v.reason}`,
        rule: "recursive-delete-root",
        layer: 1,
      });
      expect(Object.keys(r.structuredContent.error as object)).toEqual(["error", "rule", "layer"]);
      expect(text(r)).toContain(`Hint: ${v.hint}`);
      expect(text(r)).toContain("The command was not run.");
    });

    it("the literal check refuses a Python literal sent as a command", async () => {
      const r = await bash("[{'default': {'ENGINE': 'sqlite3'}}]");
      expect(r.isError).toBe(true);
      expect(r.structuredContent.error).toMatchObject({ rule: "literal-argument", layer: 0 });
      expect(text(r)).toMatch(/write_file/);
    });

    it("is_input skips the guard: a literal typed into a running program is sent as it is", async () => {
      const start = await bash('read -p "> " line; echo "got $line"');
      expect(start.structuredContent.status).toBe("running");
      expect(text(start)).toMatch(/Hint: The command seems to wait for input/);
      const r = await sb.callTool("bash", { command: "[{'a': 1}]", is_input: true });
      expect(r.isError).toBeUndefined();
      expect(text(r)).toContain("got [{'a': 1}]");
      expect(r.structuredContent).toMatchObject({ status: "completed", exitCode: 0, input: true });
    });

    it("a heredoc typed line by line is held until complete, then checked as a whole and run", async () => {
      const open = await bash("cat << EOF");
      expect(open.structuredContent).toMatchObject({ status: "running", held: true });
      const line = await sb.callTool("bash", { command: "hello heredoc", is_input: true });
      expect(line.structuredContent).toMatchObject({ held: true });
      const done = await sb.callTool("bash", { command: "EOF", is_input: true });
      expect(done.structuredContent).toMatchObject({ status: "completed", exitCode: 0 });
      expect(done.structuredContent.verdict).toBeDefined();
      expect(text(done)).toMatch(/^hello heredoc\n/);
    });

    it("a command with a carriage return is refused before the guard, nothing is rewritten or run", async () => {
      const r = await bash("# note\rtouch cr-ran");
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/carriage return/);
      expect((await bash("ls cr-ran 2>&1 || echo absent")).content[0]).toMatchObject({ text: expect.stringMatching(/absent/) });
    });

    it("is_input with nothing running says so without sending anything", async () => {
      const r = await sb.callTool("bash", { is_input: true, command: "hello" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/No command is running/);
    });

    it("an empty command without is_input is an invalid argument with an example call", async () => {
      const r = await bash("   ");
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/"command" is empty/);
      expect(text(r)).toContain("Example call: bash");
    });

    it("clamps a timeout over the maximum and says so; reads 120000 as milliseconds", async () => {
      const big = await bash("echo x", { timeout: 99_999_999 });
      expect(text(big)).toMatch(/Note: timeout 99999999 s is more than the 600 s allowed; 600 s applies\./);
      const ms = await bash("echo x", { timeout: 120_000 });
      expect(text(ms)).toMatch(/120000 was read as milliseconds, so 120 s applies/);
    });

    it("stops a command at its timeout: status timeout, isError", async () => {
      const t0 = performance.now();
      const r = await bash("sleep 8", { timeout: "1" });
      expect(r.structuredContent.status).toBe("timeout");
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/timed out/);
      expect(performance.now() - t0).toBeLessThan(6_000);
    });

    it("an AbortSignal interrupts the command with C-c: status interrupted, and the shell goes on", async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      const t0 = performance.now();
      const r = await sb.callTool("bash", { command: "sleep 20" }, { signal: ac.signal });
      expect(r.structuredContent.status).toBe("interrupted");
      expect(performance.now() - t0).toBeLessThan(5_000);
      expect(text(await bash("echo after"))).toMatch(/^after\n/);
    });

    it("an already aborted signal runs nothing", async () => {
      const ac = new AbortController();
      ac.abort();
      const r = await sb.callTool("bash", { command: "touch never.txt" }, { signal: ac.signal });
      expect(r.structuredContent.status).toBe("interrupted");
      expect(await sb.runtime.fs.stat(`${ws}/never.txt`)).toBeNull();
    });

    it("streams output to onOutput while the command runs", async () => {
      const chunks: string[] = [];
      let firstAt = 0;
      const t0 = performance.now();
      const r = await sb.callTool(
        "bash",
        { command: "seq 1 120; sleep 0.6; echo done" },
        {
          onOutput: (c) => {
            if (chunks.length === 0) firstAt = performance.now() - t0;
            chunks.push(c);
          },
        },
      );
      const total = performance.now() - t0;
      expect(chunks.length).toBeGreaterThan(1);
      expect(firstAt).toBeLessThan(total - 300); // the first lines came before the sleep ended
      expect(chunks.join("")).toBe(text(r).slice(0, text(r).indexOf("[exit code")));
      expect(chunks.join("")).toMatch(/^1\n2\n[\s\S]*120\ndone\n$/);
    });
  });

  describe("background jobs", () => {
    it("start returns a job id; job_output waits for output and the end", async () => {
      const r = await bash("echo start; sleep 0.3; echo end", { run_in_background: true });
      expect(r.structuredContent).toMatchObject({ status: "running", jobId: "job-1" });
      expect(text(r)).toMatch(/job_output \{"id": "job-1"/);
      let out = "";
      let last: CallToolResult | undefined;
      for (let i = 0; i < 10 && last?.structuredContent.status !== "completed"; i++) {
        last = await sb.callTool("job_output", { id: "job-1", wait: 2 });
        out += text(last);
      }
      expect(out).toMatch(/start/);
      expect(out).toMatch(/end/);
      expect(last!.structuredContent).toMatchObject({ status: "completed", exitCode: 0, jobId: "job-1" });
    });

    it("job_kill stops a job; a second kill says it had already ended", async () => {
      const r = await bash("sleep 30", { run_in_background: true });
      const id = r.structuredContent.jobId as string;
      const killed = await sb.callTool("job_kill", { id });
      expect(killed.structuredContent).toMatchObject({ status: "interrupted", killed: true });
      expect(text(killed)).toMatch(new RegExp(`^Stopped ${id}`));
      expect(text(await sb.callTool("job_kill", { id }))).toMatch(/had already ended/);
    });

    it("refuses a job over the cap and names the running ones; takes a bare number as a job id", async () => {
      const a = await bash("sleep 30", { run_in_background: true });
      const b = await bash("sleep 30", { run_in_background: true });
      const c = await bash("sleep 30", { run_in_background: true });
      expect(c.isError).toBe(true);
      expect(text(c)).toMatch(/At most 2 background jobs can run at once/);
      for (const r of [a, b]) {
        const n = (r.structuredContent.jobId as string).replace("job-", "");
        expect((await sb.callTool("job_kill", { id: Number(n) })).structuredContent.killed).toBe(true);
      }
    });

    it("an unknown job id is an error that lists the known ones", async () => {
      const r = await sb.callTool("job_output", { id: "job-99" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/No background job "job-99"\. Known jobs: job-1/);
    });
  });

  describe("write_file and read_file", () => {
    it("write_file creates parent folders and writes byte for byte", async () => {
      const content = 'tab\there "quotes" $HOME `x` \\n stays\r\nünïcödé €\n';
      const r = await sb.callTool("write_file", { path: "deep/er/file.txt", content });
      expect(r.isError).toBeUndefined();
      expect(text(r)).toMatch(/^Wrote \d+ bytes \(2 lines\) to deep\/er\/file\.txt \(new file\)\.$/);
      expect(r.structuredContent).toMatchObject({ status: "completed", created: true, bytes: new TextEncoder().encode(content).length });
      expect(await readBack("deep/er/file.txt")).toBe(content);
      const again = await sb.callTool("write_file", { path: "deep/er/file.txt", content: "new\n" });
      expect(text(again)).toMatch(/replaced its content/);
    });

    it("read_file numbers lines like cat -n and reads from offset for limit lines", async () => {
      await sb.callTool("write_file", { path: "lines.txt", content: Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" });
      const all = await sb.callTool("read_file", { path: "lines.txt" });
      expect(text(all).split("\n")[0]).toBe("     1\tline 1");
      expect(all.structuredContent).toMatchObject({ totalLines: 10, startLine: 1, endLine: 10, truncated: false });
      const part = await sb.callTool("read_file", { path: "lines.txt", offset: 4, limit: 3 });
      expect(text(part)).toBe("     4\tline 4\n     5\tline 5\n     6\tline 6\n[lines 4–6 of 10; read on with offset=7]");
      const past = await sb.callTool("read_file", { path: "lines.txt", offset: 50 });
      expect(past.isError).toBe(true);
      expect(text(past)).toMatch(/past the end: lines.txt has 10 lines/);
    });

    it("read_file cuts long lines and long files and says how to read on", async () => {
      const long = "x".repeat(TOOLS.readMaxLineChars + 500);
      const many = Array.from({ length: 3_000 }, (_, i) => `row ${i + 1} ${"y".repeat(20)}`);
      await sb.callTool("write_file", { path: "big.txt", content: [long, ...many].join("\n") + "\n" });
      const r = await sb.callTool("read_file", { path: "big.txt" });
      const t = text(r);
      expect(t).toContain(`… [line cut: ${(TOOLS.readMaxLineChars + 500).toLocaleString("en-US")} characters]`);
      expect(t.length).toBeLessThan(TOOLS.readMaxChars + 1_000);
      const m = /\[lines 1–(\d+) of 3001 \(the 30,000-character limit of one read\); read on with offset=(\d+)\]/.exec(t);
      expect(m).not.toBeNull();
      expect(Number(m![2])).toBe(Number(m![1]) + 1);
      expect(r.structuredContent.truncated).toBe(true);
    });

    it("read_file refuses a binary file with its size and type", async () => {
      await bash("echo iVBORw0KGgoAAAANSUhEUg== | base64 -d > img.png");
      const r = await sb.callTool("read_file", { path: "img.png" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^img\.png is a binary file \(PNG image, 16 B\)/);
      expect(r.structuredContent).toMatchObject({ binary: true, sizeBytes: 16, fileType: "PNG image" });
    });

    it("read_file: a missing file suggests near names; a folder points to list_dir; an empty file says so", async () => {
      await sb.callTool("write_file", { path: "notes.md", content: "" });
      const missing = await sb.callTool("read_file", { path: "note.md" });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/No such file: note\.md\. Did you mean: notes\.md\?/);
      const typo = await sb.callTool("read_file", { path: "dep/er/file.txt" });
      expect(text(typo)).toMatch(/No such file: dep\/er\/file\.txt\. \(dep does not exist\.\) Did you mean: deep\/\?/);
      expect(text(await sb.callTool("read_file", { path: "deep" }))).toMatch(/is a folder.*list_dir/);
      expect(text(await sb.callTool("read_file", { path: "notes.md" }))).toBe("(notes.md is empty: 0 bytes)");
    });

    it("reads and writes in the temp folder as the shell sees it (/tmp; on node the sandbox's private one), and absolute paths inside the workspace", async () => {
      const name = `/tmp/sandshell-tools-${kind}-${process.pid}.txt`;
      // The guard treats /tmp as writable, and on this runtime it is: allowed, and it works.
      const made = await bash(`echo from-tmp > ${name}`);
      expect(made.structuredContent).toMatchObject({ status: "completed", exitCode: 0, verdict: { decision: "allow" } });
      try {
        expect(text(await sb.callTool("read_file", { path: name }))).toBe("     1\tfrom-tmp");
        expect(text(await sb.callTool("read_file", { path: `${ws}/lines.txt`, limit: 1 }))).toMatch(/^ {5}1\tline 1/);
        const w = await sb.callTool("write_file", { path: name, content: "from-tool\n" });
        expect(w.isError).toBeUndefined();
        expect(text(await bash(`cat ${name}`))).toMatch(/^from-tool\n/);
        const e = await sb.callTool("edit_file", { path: name, old_str: "tool", new_str: "edit" });
        expect(e.isError).toBeUndefined();
        expect(text(await bash(`cat ${name}`))).toMatch(/^from-edit\n/);
        expect(text(await sb.callTool("list_dir", { path: "/tmp" }))).toContain(`sandshell-tools-${kind}-${process.pid}.txt`);
      } finally {
        await bash(`rm -f ${name}`);
      }
    });
  });

  describe("path escapes", () => {
    it("refuses `..` that leaves the workspace, for reading and writing", async () => {
      const r = await sb.callTool("read_file", { path: "../../../../etc/hostname" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/resolves to \/etc\/hostname, which is outside the workspace .* and \/tmp, so it was refused/);
      const w = await sb.callTool("write_file", { path: "sub/../../escaped.txt", content: "x" });
      expect(w.isError).toBe(true);
      expect(text(w)).toMatch(/outside the workspace/);
      expect(await sb.runtime.fs.stat(`${ws}/../escaped.txt`)).toBeNull();
    });

    it("refuses a symlink that points outside, for read_file, write_file, edit_file and list_dir", async () => {
      await bash("ln -s / up");
      for (const [tool, args] of [
        ["read_file", { path: "up/etc/hostname" }],
        ["write_file", { path: "up/home/x.txt", content: "x" }],
        ["edit_file", { path: "up/etc/hostname", old_str: "a", new_str: "b" }],
        ["list_dir", { path: "up/etc" }],
      ] as const) {
        const r = await sb.callTool(tool, args);
        expect(r.isError, tool).toBe(true);
        expect(text(r), tool).toMatch(/resolves through a symlink to \/.*, which is outside the workspace/);
      }
    });

    it("follows `..` and a symlink that stay inside the workspace", async () => {
      await sb.callTool("write_file", { path: "inner/target.txt", content: "inside\n" });
      await bash("ln -s inner/target.txt alias.txt");
      expect(text(await sb.callTool("read_file", { path: "alias.txt" }))).toBe("     1\tinside");
      expect(text(await sb.callTool("read_file", { path: "inner/../inner/./target.txt" }))).toBe("     1\tinside");
    });
  });

  describe("edit_file", () => {
    it("replaces a unique occurrence and shows the lines around it", async () => {
      const lines = Array.from({ length: 20 }, (_, i) => `const v${i + 1} = ${i + 1};`);
      await sb.callTool("write_file", { path: "e.js", content: lines.join("\n") + "\n" });
      const r = await sb.callTool("edit_file", { path: "e.js", old_str: "const v10 = 10;", new_str: "const v10 = 100;\nconst extra = 1;" });
      expect(r.isError).toBeUndefined();
      const t = text(r).split("\n");
      expect(t[0]).toBe("Edited e.js: replaced 1 occurrence at line 10.");
      expect(t[1]).toBe(`     ${10 - TOOLS.editSnippetLines}\tconst v6 = 6;`);
      expect(t).toContain("    10\tconst v10 = 100;");
      expect(t).toContain("    11\tconst extra = 1;");
      expect(t[t.length - 1]).toBe(`    ${11 + TOOLS.editSnippetLines}\tconst v14 = 14;`);
      expect(await readBack("e.js")).toContain("const v10 = 100;\nconst extra = 1;\nconst v11 = 11;");
    });

    it("refuses an ambiguous old_str and lists the line of every match; replace_all replaces them all", async () => {
      await sb.callTool("write_file", { path: "dup.txt", content: "a = 1\nb = 2\na = 1\nc\na = 1\n" });
      const r = await sb.callTool("edit_file", { path: "dup.txt", old_str: "a = 1", new_str: "a = 9" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/old_str occurs 3 times in dup\.txt, at lines 1, 3, 5; nothing was changed/);
      expect(r.structuredContent.matchLines).toEqual([1, 3, 5]);
      expect(await readBack("dup.txt")).toBe("a = 1\nb = 2\na = 1\nc\na = 1\n");
      const all = await sb.callTool("edit_file", { path: "dup.txt", old_str: "a = 1", new_str: "a = $&9", replace_all: true });
      expect(all.structuredContent.replacements).toBe(3);
      expect(await readBack("dup.txt")).toBe("a = $&9\nb = 2\na = $&9\nc\na = $&9\n");
    });

    it("says why old_str was not found: whitespace differs, and where its first line is", async () => {
      await sb.callTool("write_file", { path: "ws.py", content: "def f():\n    return 1\n" });
      const r = await sb.callTool("edit_file", { path: "ws.py", old_str: "def f():\n  return 1", new_str: "x" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/not found in ws\.py; nothing was changed\. It matches when whitespace is ignored/);
      expect(text(r)).toMatch(/Its first line occurs at line 1/);
    });

    it("matches a file with CRLF line endings and keeps them", async () => {
      await sb.callTool("write_file", { path: "crlf.txt", content: "one\r\ntwo\r\nthree\r\n" });
      const r = await sb.callTool("edit_file", { path: "crlf.txt", old_str: "one\ntwo", new_str: "1\n2" });
      expect(r.isError).toBeUndefined();
      expect(await readBack("crlf.txt")).toBe("1\r\n2\r\nthree\r\n");
    });

    it("points to write_file for a file that does not exist", async () => {
      const r = await sb.callTool("edit_file", { path: "nope.txt", old_str: "a", new_str: "b" });
      expect(text(r)).toMatch(/No such file: nope\.txt.*use write_file/);
    });
  });

  describe("list_dir", () => {
    it("shows a tree with sizes, folders marked, node_modules and .git by name only", async () => {
      await sb.callTool("write_file", { path: "proj/src/a.ts", content: "12345" });
      await sb.callTool("write_file", { path: "proj/src/deeper/more/b.ts", content: "x" });
      await sb.callTool("write_file", { path: "proj/node_modules/pkg/index.js", content: "x" });
      await sb.callTool("write_file", { path: "proj/.git/HEAD", content: "ref" });
      await sb.callTool("write_file", { path: "proj/README.md", content: "hello" });
      const r = await sb.callTool("list_dir", { path: "proj", depth: 2 });
      expect(text(r)).toBe(
        [
          `${ws}/proj/`,
          "  .git/ (not listed)",
          "  node_modules/ (not listed)",
          "  src/",
          "    deeper/ (1 entry)",
          "    a.ts (5 B)",
          "  README.md (5 B)",
          "[4 folders, 2 files shown]",
        ].join("\n"),
      );
      const deep = await sb.callTool("list_dir", { path: "proj/src", depth: 5 });
      expect(text(deep)).toContain("\n    more/\n      b.ts (1 B)\n");
    });

    it("lists the workspace by default and clamps the depth", async () => {
      const r = await sb.callTool("list_dir", { depth: 99 });
      expect(text(r).split("\n")[0]).toBe(`${ws}/`);
      expect(text(r)).toMatch(new RegExp(`Note: depth 99 is more than the ${TOOLS.listMaxDepth} allowed`));
      const file = await sb.callTool("list_dir", { path: "proj/README.md" });
      expect(text(file)).toMatch(/is a file .* use read_file/);
    });
  });

  describe("tolerant arguments through callTool", () => {
    it("takes the raw JSON string of a tool call", async () => {
      const r = await sb.callTool("bash", '{"command": "echo raw-string"}');
      expect(text(r)).toMatch(/^raw-string\n/);
      expect(r.structuredContent.repairedArguments).toBeUndefined();
    });

    it("repairs a heredoc with raw newlines and quotes, runs it, and reports the repair", async () => {
      // (`print("hi", {"a": 1})` on one line is refused: a string, a comma, then `{"a":` is shaped like a second field.)
      const raw = '{"command": "cat > hd.py <<\'EOF\'\nprint("hi")\nx = {"a": 1}\nEOF"}';
      const r = await sb.callTool("bash", raw);
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent.repairedArguments).toEqual({ command: "cat > hd.py <<'EOF'\nprint(\"hi\")\nx = {\"a\": 1}\nEOF" });
      expect(text(r)).toMatch(/Note: The arguments were not valid JSON/);
      expect(await readBack("hd.py")).toBe('print("hi")\nx = {"a": 1}\n');
    });

    it("ignores unknown parameters with one line in the text and a list in structuredContent", async () => {
      const r = await sb.callTool("write_file", { path: "k.txt", content: "kw", overwrite: true, encoding: "utf-8" });
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent.ignoredParameters).toEqual(["overwrite", "encoding"]);
      expect(text(r).split("\n").filter((l) => l.includes("ignored"))).toEqual(["Note: ignored unknown parameters overwrite, encoding."]);
    });

    it('coerces "60" and "true", and joins a command array with quoting', async () => {
      const r = await sb.callTool("bash", { command: ["printf", "%s|", "a b", "it's"], timeout: "60", is_input: "false" });
      expect(text(r)).toMatch(/^a b\|it's\|/);
      expect(text(r)).toMatch(/Note: The command array was joined into one command line: printf '%s\|' 'a b' 'it'\\''s'/);
    });

    it("a missing argument is isError with the parameter, the problem and an example call", async () => {
      const r = await sb.callTool("read_file", { file: undefined, limit: 5 });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ status: "error", parameter: "path" });
      expect(text(r)).toMatch(/Parameter "path" is missing: a string is required/);
      expect(text(r)).toContain('Example call: read_file {"path":"src/index.ts","offset":1,"limit":200}');
    });

    it("an unknown tool is isError listing the tools", async () => {
      const r = await sb.callTool("approve", { id: "approval-1" });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('Unknown tool "approve". The tools are: bash, read_file, write_file, edit_file, list_dir, job_output, job_kill.');
    });
  });
});

describe.each(RUNTIMES)("approvals on the %s runtime", (kind) => {
  let sb: Sandbox;
  let answer: (req: ApprovalRequest) => Promise<unknown>;
  const asked: ApprovalRequest[] = [];

  beforeAll(async () => {
    sb = await createSandbox({
      runtime: kind,
      approver: async (req) => {
        asked.push(req);
        return (await answer(req)) as boolean;
      },
    });
  });

  afterAll(async () => {
    await sb?.close();
  });

  const exists = async (name: string) => (await sb.runtime.fs.stat(`${sb.runtimeInfo.workspace}/${name}`)) !== null;

  it("allow: the command runs and the result says a person approved it", async () => {
    await sb.callTool("write_file", { path: "a.txt", content: "x" });
    answer = async () => true;
    const r = await sb.callTool("bash", { command: "rm a.txt" });
    expect(asked.at(-1)).toMatchObject({ command: "rm a.txt", rule: "deletion", suggestedRule: "rm:*", route: "function" });
    expect(r.isError).toBeUndefined();
    expect(text(r)).toMatch(/^Approved by this sandbox's approver for this one run\./);
    expect(r.structuredContent.approval).toMatchObject({ decision: "allow", by: "function" });
    expect(await exists("a.txt")).toBe(false);
  });

  it("deny with a note: not run, status denied, isError, the note goes back to the agent", async () => {
    await sb.callTool("write_file", { path: "b.txt", content: "x" });
    answer = async () => ({ decision: "deny", note: "keep b.txt, it is the fixture" });
    const r = await sb.callTool("bash", { command: "rm b.txt" });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.status).toBe("denied");
    expect(text(r)).toMatch(/This sandbox's approver denied this command\. It was not run\./);
    expect(text(r)).toContain("Note from the approver: keep b.txt, it is the fixture");
    expect(await exists("b.txt")).toBe(true);
  });

  it("always allow adds a rule, so the next such call is not asked", async () => {
    answer = async () => ({ decision: "always", rule: "rm c*.txt" });
    await sb.callTool("write_file", { path: "c1.txt", content: "x" });
    await sb.callTool("write_file", { path: "c2.txt", content: "x" });
    const before = asked.length;
    const r = await sb.callTool("bash", { command: "rm c1.txt" });
    expect(text(r)).toMatch(/allowed `rm c\*\.txt` for the rest of this session/);
    expect(asked.length).toBe(before + 1);
    expect(sb.rules().allow).toContain("rm c*.txt");
    const next = await sb.callTool("bash", { command: "rm c2.txt" });
    expect(asked.length).toBe(before + 1);
    expect(next.structuredContent.verdict).toMatchObject({ decision: "allow", rule: "user-allow" });
    expect(await exists("c2.txt")).toBe(false);
    expect(sb.auditLog().some((e) => e.type === "rule" && e.rule === "rm c*.txt" && e.source === "approval")).toBe(true);
  });

  it("write_file and edit_file get the verdict bash gets for the same write: package.json and .yarnrc.yml ask (config-write), a source file does not", async () => {
    answer = async () => true;
    let before = asked.length;
    const src = await sb.callTool("write_file", { path: "src/app.ts", content: "export {};\n" });
    expect(src.isError).toBeUndefined();
    expect(asked.length).toBe(before);
    const pkg = await sb.callTool("write_file", { path: "package.json", content: '{"scripts":{"test":"node t.js"}}\n' });
    expect(asked.at(-1)).toMatchObject({ tool: "write_file", command: "tee package.json", rule: "config-write", suggestedRule: "tee package.json" });
    expect(text(pkg)).toMatch(/^Approved by this sandbox's approver for this one run\.\nWrote /);
    expect(asked.length).toBe(before + 1);
    // Denied: nothing written, and the result says why in the file tool's words.
    answer = async () => ({ decision: "deny", note: "not the registry" });
    before = asked.length;
    const yarnrc = await sb.callTool("write_file", { path: ".yarnrc.yml", content: "npmRegistryServer: http://evil\n" });
    expect(asked.length).toBe(before + 1);
    expect(yarnrc.structuredContent).toMatchObject({ status: "denied", path: `${sb.runtimeInfo.workspace}/.yarnrc.yml` });
    expect(text(yarnrc)).toMatch(/^\.yarnrc\.yml was not written: write_file is judged as the same write from bash \(`tee \.yarnrc\.yml`\)/);
    expect(await exists(".yarnrc.yml")).toBe(false);
    const edit = await sb.callTool("edit_file", { path: "package.json", old_str: "node t.js", new_str: "curl x | sh" });
    expect(asked.at(-1)).toMatchObject({ tool: "edit_file", command: "tee package.json" });
    expect(edit.structuredContent.status).toBe("denied");
    expect(new TextDecoder().decode(await sb.runtime.fs.readFile(`${sb.runtimeInfo.workspace}/package.json`))).toContain("node t.js");
    // "Always" adds the exact rule (tee package.json), never tee:*: the next write of package.json is not asked, one of
    // .yarnrc.yml still is.
    answer = async () => ({ decision: "always" });
    await sb.callTool("edit_file", { path: "package.json", old_str: "node t.js", new_str: "node test.js" });
    expect(sb.rules().allow).toContain("tee package.json");
    before = asked.length;
    expect((await sb.callTool("write_file", { path: "package.json", content: "{}\n" })).isError).toBeUndefined();
    expect(asked.length).toBe(before);
    answer = async () => false;
    expect((await sb.callTool("write_file", { path: ".yarnrc.yml", content: "x\n" })).structuredContent.status).toBe("denied");
    expect(asked.length).toBe(before + 1);
  });
});

describe.each(RUNTIMES)("strict is read-only on the %s runtime: every write asks, the file tools' too", (kind) => {
  let sb: Sandbox;
  let answer: (req: ApprovalRequest) => Promise<unknown>;
  const asked: ApprovalRequest[] = [];

  beforeAll(async () => {
    sb = await createSandbox({
      runtime: kind,
      policy: "strict",
      approver: async (req) => {
        asked.push(req);
        return (await answer(req)) as boolean;
      },
    });
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("strict is read-only: write_file and edit_file of a source file ask (strict-write), a read does not", async () => {
    answer = async () => true;
    const wrote = await sb.callTool("write_file", { path: "src/app.ts", content: "export const a = 1;\n" });
    expect(asked.at(-1)).toMatchObject({ tool: "write_file", command: "tee src/app.ts", rule: "strict-write" });
    expect(text(wrote)).toMatch(/^Approved by this sandbox's approver for this one run\.\nWrote /);
    let before = asked.length;
    expect((await sb.callTool("read_file", { path: "src/app.ts" })).isError).toBeUndefined();
    expect(asked.length).toBe(before);
    answer = async () => false;
    const edit = await sb.callTool("edit_file", { path: "src/app.ts", old_str: "a = 1", new_str: "a = 2" });
    expect(asked.at(-1)).toMatchObject({ tool: "edit_file", command: "tee src/app.ts", rule: "strict-write" });
    expect(edit.structuredContent.status).toBe("denied");
    expect(new TextDecoder().decode(await sb.runtime.fs.readFile(`${sb.runtimeInfo.workspace}/src/app.ts`))).toContain("a = 1");
    // The same from bash: a redirect to a file asks; one to /dev/null does not.
    before = asked.length;
    expect((await sb.callTool("bash", { command: "echo x > notes.txt" })).structuredContent.verdict).toMatchObject({ rule: "strict-write" });
    expect(asked.length).toBe(before + 1);
    expect((await sb.callTool("bash", { command: "echo x > /dev/null" })).isError).toBeUndefined();
    expect(asked.length).toBe(before + 1);
  });
});

describe.each(RUNTIMES)("approvals answered in the UI on the %s runtime", (kind) => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await createSandbox({ runtime: kind, approver: "ui", approvalExpiryMs: 400 });
  });

  afterAll(async () => {
    await sb?.close();
  });

  it("a pending approval nobody answers expires: denied, and the result says so", async () => {
    const t0 = performance.now();
    const r = await sb.callTool("bash", { command: "rm -f nothing.txt" });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.status).toBe("denied");
    expect(r.structuredContent.approval).toMatchObject({ decision: "deny", by: "expiry" });
    expect(text(r)).toMatch(/No one answered the approval request within 400 ms, so it was denied/);
  });

  it("the UI sees the pending request and its answer lets the command run", async () => {
    const seen: string[] = [];
    const off = sb.approvals.on((e) => {
      if (e.type === "requested") {
        seen.push(e.request.command);
        sb.approvals.answer(e.request.id, { decision: "allow" });
      }
    });
    const r = await sb.callTool("bash", { command: "rm -f nothing.txt" });
    off();
    expect(seen).toEqual(["rm -f nothing.txt"]);
    expect(r.structuredContent.status).toBe("completed");
    expect(r.structuredContent.approval).toMatchObject({ decision: "allow", by: "ui" });
    expect(text(r)).toMatch(/^Approved by a person for this one run\./);
  });
});
