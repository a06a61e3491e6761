// The embedded runtime's memory stays bounded under what took a page to 2.6 GB (issue 11): a ~54 MB file, a 5 MB
// write_file, 16 background jobs, a 17th job and a 5 MB command (refused), then 16 jobs that each read the large file.
// Real just-bash in worker_threads, driven through sandbox.callTool; memory measured after full GCs (the page's heap
// and buffers here, each worker's through the runtime's memory report). The figures are bench/embedded-memory.ts's.

import { describe, expect, it } from "vitest";
import { embeddedBoundsScenario, embeddedMemoryScenario, type MemoryStep } from "../../bench/embedded-memory.ts";
import { EMBEDDED } from "../../src/limits.ts";

describe("embedded runtime memory", () => {
  it("a large file, 5 MB arguments and 16 jobs cost the file about once, not once per job; the page keeps no argument", async () => {
    const steps = await embeddedMemoryScenario();
    const at = (name: string): MemoryStep => {
      const s = steps.find((x) => x.step.startsWith(name));
      if (s === undefined) throw new Error(`no step ${name}`);
      return s;
    };
    const booted = at("booted");
    const file = at("a ~54 MB file");
    expect(file.said).toMatch(/^53777792 big\.txt/);
    expect(at("a 5 MB write_file").said).toMatch(/^Wrote 5,242,880 bytes/);
    expect(at("a 17th job").said).toMatch(/At most 16 background jobs/);
    expect(at("a 5 MB command").said).toMatch(/at most 1,048,576 are taken\. Nothing was run/);
    const last = at("16 jobs that each read");
    expect(last.fileMiB).toBeGreaterThan(55);
    // the page: its heap keeps none of the 5 MB arguments (the audit log keeps heads of its own, not slices of them);
    // its buffers hold the files at most once
    expect(last.pageHeapMiB - booted.pageHeapMiB).toBeLessThan(4);
    expect(last.pageBuffersMiB).toBeLessThanOrEqual((last.fileMiB ?? 0) + 1);
    // the workers: the shell and 16 jobs (and a standby) hold the interpreter and no copy of the 54 MB file each
    // (before, every job's worker started with a copy of every file); what a job read is given back after its statement
    const workers = last.workers ?? 0;
    expect(workers).toBeGreaterThanOrEqual(17);
    expect(last.workersBuffersMiB ?? Infinity).toBeLessThan(workers * 8);
    expect((last.workersHeapMiB ?? Infinity) / workers).toBeLessThan(24);
  }, 600_000);

  it("embedded-bounds: long folder names, links with long targets and a 64 MiB exported variable with 16 jobs stay within the bounds (names count as bytes, PATH_MAX, a job's environment)", async () => {
    const steps = await embeddedBoundsScenario();
    const at = (name: string): MemoryStep => {
      const s = steps.find((x) => x.step.startsWith(name));
      if (s === undefined) throw new Error(`no step ${name}`);
      return s;
    };
    const booted = at("booted");
    const bound = EMBEDDED.limits.maxFileSystemBytes / (1024 * 1024);
    // the red team's shapes: refused at once by PATH_MAX (nothing is made), not after gigabytes
    const names = at("long folder names");
    expect(names.said).toMatch(/stopped at 1\b/);
    expect(names.fileMiB).toBeLessThan(1);
    const links = at("links to a 100,000-character target");
    expect(links.said).toMatch(/stopped at 1\b/);
    expect(links.fileMiB).toBeLessThan(1);
    // the largest names the bounds allow: counted in the bytes bound, and what the page and the workers hold follows
    const largest = at("20,000 folders with paths just under PATH_MAX");
    expect(largest.fileMiB).toBeGreaterThan(60);
    expect(largest.fileMiB).toBeLessThanOrEqual(bound);
    expect(largest.pageHeapMiB - booted.pageHeapMiB).toBeLessThan(2 * bound);
    expect((largest.workersHeapMiB ?? Infinity) - (booted.workersHeapMiB ?? 0)).toBeLessThan(2 * bound);
    expect(at("removed").fileMiB).toBeLessThan(1);
    // every job refused by the bound on a job's environment: no worker got a copy
    const jobs = at("a 64 MiB exported variable");
    expect(jobs.said).toBe("16 of 16 jobs refused");
    expect(jobs.workers).toBeLessThanOrEqual(2);
  }, 600_000);
});
