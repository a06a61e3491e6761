// What approver=host leaves to the person: every class of change to the shared shell's own process
// (src/sandbox/shell-process.ts) counts, in its examples; its near misses do not. Plus the red team's spellings.

import { beforeAll, describe, expect, it } from "vitest";
import { createLastingCheck, type LastingCheck } from "../../src/sandbox/lasting.ts";
import { SHELL_PROCESS_ROWS } from "../../src/sandbox/shell-process.ts";

let check: LastingCheck;
beforeAll(async () => {
  check = await createLastingCheck({ policy: "balanced", workspace: "/ws" });
});

describe("changes to the shared shell's own process outlast the call (src/sandbox/shell-process.ts)", () => {
  for (const row of SHELL_PROCESS_ROWS) {
    it(`${row.id}: its examples count, its near misses do not`, () => {
      for (const command of row.examples) expect(check(command, "/ws"), command).not.toBeNull();
      for (const command of row.nearMisses) expect(check(command, "/ws"), command).toBeNull();
    });
  }

  it("the red team's N5 spellings (attacks/lasting-probe.ts) are all the person's: replace, end, stop, move the shell, its jobs", () => {
    for (const command of ["exec bash --rcfile poison.sh -i", "kill -STOP $$", "kill -9 $$", "logout", "suspend -f", "cd /etc", "pushd /etc", "disown -a", "kill %1"]) {
      const found = check(command, "/ws");
      expect(found, command).not.toBeNull();
      expect(found!.why, command).toMatch(/shared shell|running processes/);
    }
  });

  it("any part counts, behind another ask or a wrapper", () => {
    for (const command of ["rm -f x && exec bash", "rm -f x; builtin cd /", "true | kill -STOP $$", "nohup kill -9 $$", "echo $(kill -9 $$)"]) {
      expect(check(command, "/ws"), command).not.toBeNull();
    }
  });
});
