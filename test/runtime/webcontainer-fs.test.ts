// The webcontainer runtime's file system: wc.fs (scoped to the workdir, no stat/appendFile/realpath, errors without
// `code`) mapped onto RuntimeFs, and the `node -e` helper for paths outside the workdir, run here by the real Node.

import { lstatSync, readFileSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createWebContainerRuntime, type WebContainerRuntime } from "../../src/runtime/webcontainer.ts";
import { createWcFs, errnoOf } from "../../src/runtime/webcontainer/fs.ts";
import { createShellSession } from "../../src/shell/session.ts";
import { makeWorld } from "./webcontainer-fake.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(): Promise<{ w: ReturnType<typeof makeWorld>; rt: WebContainerRuntime; ws: string }> {
  const w = makeWorld();
  cleanups.push(w.cleanup);
  const rt = await createWebContainerRuntime({ api: w.api, isolation: { isolated: true }, probe: false });
  cleanups.push(() => rt.dispose());
  return { w, rt, ws: rt.workspace };
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? "no code";
  }
  return "resolved";
}

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

describe("webcontainer fs inside the workdir (wc.fs)", () => {
  it("read, write, append, readdir, stat, mkdir, rm, rename, realpath", async () => {
    const { rt, ws, w } = await setup();
    const fs = rt.fs;
    await fs.writeFile(`${ws}/a.txt`, "hello");
    expect(text(await fs.readFile(`${ws}/a.txt`))).toBe("hello");
    await fs.appendFile(`${ws}/a.txt`, " world ✓");
    await fs.appendFile(`${ws}/new.log`, "first");
    expect(text(await fs.readFile(`${ws}/a.txt`))).toBe("hello world ✓");
    expect(text(await fs.readFile(`${ws}/new.log`))).toBe("first");
    await fs.writeFile(`${ws}/bin.dat`, new Uint8Array([0, 255, 10]));
    expect([...(await fs.readFile(`${ws}/bin.dat`))]).toEqual([0, 255, 10]);

    await fs.mkdir(`${ws}/d/e/f`, { recursive: true });
    await fs.mkdir(`${ws}/d/e/f`, { recursive: true }); // no error when it exists
    await fs.mkdir(`${ws}`, { recursive: true });
    const entries = (await fs.readdir(ws)).sort((x, y) => x.name.localeCompare(y.name));
    expect(entries).toEqual([
      { name: "a.txt", type: "file", size: 0 }, // readdir cannot tell sizes: 0
      { name: "bin.dat", type: "file", size: 0 },
      { name: "d", type: "dir", size: 0 },
      { name: "new.log", type: "file", size: 0 },
    ]);
    expect(await fs.stat(`${ws}/a.txt`)).toEqual({ type: "file", size: Buffer.byteLength("hello world ✓") });
    expect(await fs.stat(`${ws}/d/e`)).toEqual({ type: "dir", size: 0 });
    expect(await fs.stat(ws)).toEqual({ type: "dir", size: 0 });
    expect(await fs.stat(`${ws}/nope`)).toBeNull();
    expect(await fs.stat(`${ws}/nope/deeper`)).toBeNull();
    expect(await fs.stat(`${ws}/a.txt/under-a-file`)).toBeNull();

    symlinkSync(`${w.workdir}/a.txt`, `${w.workdir}/link`);
    expect(await fs.stat(`${ws}/link`)).toEqual({ type: "other", size: 0 }); // the API cannot see symlinks

    await fs.rename(`${ws}/a.txt`, `${ws}/d/b.txt`);
    expect(await fs.stat(`${ws}/a.txt`)).toBeNull();
    expect(text(await fs.readFile(`${ws}/d/b.txt`))).toBe("hello world ✓");
    expect(await fs.realpath(`${ws}/d/e/../b.txt`)).toBe(`${ws}/d/b.txt`);
    expect(await fs.realpath(`${ws}/d/./e/f/`)).toBe(`${ws}/d/e/f`);
    await fs.rm(`${ws}/d`, { recursive: true });
    expect(await fs.stat(`${ws}/d`)).toBeNull();
    await fs.rm(`${ws}/d`, { force: true });
  });

  it("errors carry errno codes although wc.fs's errors lose theirs", async () => {
    const { rt, ws } = await setup();
    const fs = rt.fs;
    await fs.writeFile(`${ws}/file`, "x");
    await fs.mkdir(`${ws}/dir`);
    expect(await code(fs.readFile(`${ws}/missing`))).toBe("ENOENT");
    expect(await code(fs.readFile(`${ws}/dir`))).toBe("EISDIR");
    expect(await code(fs.writeFile(`${ws}/no/such/dir/f`, "x"))).toBe("ENOENT");
    expect(await code(fs.mkdir(`${ws}/dir`))).toBe("EEXIST");
    expect(await code(fs.mkdir(ws))).toBe("EEXIST");
    expect(await code(fs.mkdir(`${ws}/file/sub`, { recursive: true }))).toBe("ENOTDIR");
    expect(await code(fs.readdir(`${ws}/missing`))).toBe("ENOENT");
    expect(await code(fs.readdir(`${ws}/file`))).toBe("ENOTDIR");
    expect(await code(fs.rm(`${ws}/missing`))).toBe("ENOENT");
    expect(await code(fs.rename(`${ws}/missing`, `${ws}/x`))).toBe("ENOENT");
    expect(await code(fs.realpath(`${ws}/missing`))).toBe("ENOENT");
    const err = await fs.readFile(`${ws}/missing`).catch((e: Error) => e);
    expect((err as Error).message).toBe(`ENOENT: no such file or directory, open '${ws}/missing'`);
    expect(errnoOf(new Error("EACCES: permission denied, open '/x'"))).toBe("EACCES");
    expect(errnoOf(new Error("weird"))).toBe("EIO");
    expect(errnoOf(Object.assign(new Error("x"), { code: "EBUSY" }))).toBe("EBUSY");
  });
});

describe("webcontainer fs outside the workdir (`node -e` helper)", () => {
  it("read, write, append, readdir with sizes, stat, mkdir, rm, realpath through a symlink", async () => {
    const { rt, w } = await setup();
    const fs = rt.fs;
    const out = w.outside;
    const spawnsBefore = w.instance.spawns.length;
    await fs.mkdir(`${out}/spill/deep`, { recursive: true });
    await fs.writeFile(`${out}/spill/a.log`, "one\n");
    await fs.appendFile(`${out}/spill/a.log`, "two ✓\n");
    expect(readFileSync(`${out}/spill/a.log`, "utf8")).toBe("one\ntwo ✓\n");
    expect(text(await fs.readFile(`${out}/spill/a.log`))).toBe("one\ntwo ✓\n");
    await fs.writeFile(`${out}/spill/bin`, new Uint8Array([0, 1, 2, 254, 255]));
    expect([...readFileSync(`${out}/spill/bin`)]).toEqual([0, 1, 2, 254, 255]);
    expect((await fs.readdir(`${out}/spill`)).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "a.log", type: "file", size: Buffer.byteLength("one\ntwo ✓\n") },
      { name: "bin", type: "file", size: 5 },
      { name: "deep", type: "dir", size: 0 },
    ]);
    expect(await fs.stat(`${out}/spill/a.log`)).toEqual({ type: "file", size: Buffer.byteLength("one\ntwo ✓\n") });
    expect(await fs.stat(`${out}/spill/none`)).toBeNull();
    symlinkSync(`${out}/spill/deep`, `${out}/link`);
    expect(await fs.stat(`${out}/link`)).toEqual({ type: "symlink", size: 0 });
    expect(await fs.realpath(`${out}/link/../spill/./a.log`)).toBe(`${out}/spill/a.log`);
    expect(await code(fs.readFile(`${out}/none`))).toBe("ENOENT");
    expect(await code(fs.mkdir(`${out}/spill`))).toBe("EEXIST");
    await fs.rm(`${out}/spill`, { recursive: true });
    expect(lstatSync(`${out}/spill`, { throwIfNoEntry: false })).toBeUndefined();
    const helperSpawns = w.instance.spawns.slice(spawnsBefore);
    expect(helperSpawns.every((sp) => sp.command === "node" && sp.args[0] === "-e")).toBe(true);
  });

  it("rename across the workdir's edge goes through the helper", async () => {
    const { rt, w, ws } = await setup();
    await rt.fs.writeFile(`${ws}/inside.txt`, "moving");
    await rt.fs.rename(`${ws}/inside.txt`, `${w.outside}/moved.txt`);
    expect(readFileSync(`${w.outside}/moved.txt`, "utf8")).toBe("moving");
    expect(await rt.fs.stat(`${ws}/inside.txt`)).toBeNull();
  });

  it("large writes go in pieces", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const fs = createWcFs(w.instance, { helperChunkBytes: 1_000 });
    const data = new Uint8Array(4_500).map((_, i) => i % 251);
    const before = w.instance.spawns.length;
    await fs.writeFile(`${w.outside}/big.bin`, data);
    expect(w.instance.spawns.length - before).toBe(5);
    expect(Buffer.compare(readFileSync(`${w.outside}/big.bin`), Buffer.from(data))).toBe(0);
    await fs.writeFile(`${w.outside}/empty`, "");
    expect(readFileSync(`${w.outside}/empty`, "utf8")).toBe("");
  });

  it("a helper that does not answer times out with ETIMEDOUT", async () => {
    const w = makeWorld();
    cleanups.push(w.cleanup);
    const real = w.instance.spawn.bind(w.instance);
    w.instance.spawn = async (command, args, options) => {
      if (command === "node") return real("jsh", ["-c", 'node -e "setInterval(()=>{},1000)"'], options);
      return real(command, args, options);
    };
    const fs = createWcFs(w.instance, { helperTimeoutMs: 200 });
    expect(await code(fs.readFile(`${w.outside}/x`))).toBe("ETIMEDOUT");
  });

  it("the session spills long output to a file outside the workdir through the helper", async () => {
    const { rt, w } = await setup();
    const s = await createShellSession(rt, { spillDir: `${w.outside}/spill`, maxOutputChars: 1_000 });
    cleanups.push(() => s.close());
    const long = "x".repeat(5_000);
    const r = await s.run(`echo ${long}`);
    expect(r.truncated).toBe(true);
    expect(r.fullOutputPath).toMatch(new RegExp(`^${w.outside}/spill/out-\\d+\\.log$`));
    expect(readFileSync(r.fullOutputPath!, "utf8")).toBe(`${long}\n`);
  });
});
