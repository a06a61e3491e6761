// bash's job notices belong to the command that started the job: the filter that drops them from other commands' output.

import { describe, expect, it } from "vitest";
import { JobNotices, newNoticeState } from "../../src/shell/job-notices.ts";

function run(notices: JobNotices, owner: object, chunks: string[]): string {
  const state = newNoticeState();
  let out = "";
  chunks.forEach((c, i) => (out += notices.filter(state, owner, c, i === chunks.length - 1)));
  return out;
}

describe("job notices", () => {
  const starter = { name: "starter" };
  const later = { name: "later" };

  it("a notice in the starting command's own output stays; in a later command's output it is dropped", () => {
    const n = new JobNotices();
    expect(run(n, starter, ["[1] 4242\n"])).toBe("[1] 4242\n");
    expect(run(n, later, ["one\n[1]+  Done                    sleep 1\ntwo\n"])).toBe("one\ntwo\n");
    const own = new JobNotices();
    expect(run(own, starter, ["[1] 7\n", "[1]+  Done                    sleep 0.2\n"])).toBe("[1] 7\n[1]+  Done                    sleep 0.2\n");
  });

  it("a notice split across chunks, with its pipeline and directory lines, is dropped whole", () => {
    const n = new JobNotices();
    run(n, starter, ["[2] 99\n"]);
    const out = run(n, later, ["before\n[2", "]-  Exit 1                  false\n", "       Done                    | true\n(wd now: ~)\n", "after\n"]);
    expect(out).toBe("before\nafter\n");
  });

  it("lines like notices of jobs no command was seen starting, running jobs and `jobs` listings stay", () => {
    const n = new JobNotices();
    expect(run(n, later, ["[1]+  Done                    make\n"])).toBe("[1]+  Done                    make\n");
    run(n, starter, ["[1] 5\n"]);
    expect(run(n, later, ["[1]+  Running                 sleep 10 &\n[1]+  Stopped                 vim\n"])).toBe(
      "[1]+  Running                 sleep 10 &\n[1]+  Stopped                 vim\n",
    );
    expect(run(n, later, ["[INFO] build started\n[1] 5 files\n"])).toBe("[INFO] build started\n[1] 5 files\n");
  });

  it("a job number used again belongs to its new starter, and each notice is dropped once", () => {
    const n = new JobNotices();
    run(n, starter, ["[1] 10\n"]);
    expect(run(n, later, ["[1]+  Done                    a\n[1] 11\n"])).toBe("[1] 11\n");
    expect(run(n, later, ["[1]+  Done                    b\n"])).toBe("[1]+  Done                    b\n");
    expect(run(n, starter, ["[1]+  Terminated              c\n"])).toBe("[1]+  Terminated              c\n");
  });

  it("jobs the person started at the terminal are theirs: their notices never reach an agent's result", () => {
    const n = new JobNotices();
    const person = { name: "person" };
    n.idle("\x1b[?2004l\r\r\n[3] 77\r\n~$ ", person);
    expect(run(n, later, ["[3]+  Done                    sleep 1\nok\n"])).toBe("ok\n");
  });

  it("a fresh shell numbers its jobs afresh", () => {
    const n = new JobNotices();
    run(n, starter, ["[1] 10\n"]);
    n.reset();
    expect(run(n, later, ["[1]+  Done                    x\n"])).toBe("[1]+  Done                    x\n");
  });
});
