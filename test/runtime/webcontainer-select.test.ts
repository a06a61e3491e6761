// selectRuntime's decisions: when WebContainer serves, when (and how fast) "auto" falls back to the embedded shell and
// what it says, the retry path, and "node" only in Node. fetch, boot and the embedded factory are injected.

import { afterEach, describe, expect, it } from "vitest";
import { WEBCONTAINER } from "../../src/limits.ts";
import {
  retryWebContainer,
  type RuntimeProgress,
  selectRuntime,
  type SelectRuntimeOptions,
  webContainerStatus,
  WebContainerUnavailableError,
  whenWebContainerBoots,
} from "../../src/runtime/select.ts";
import { bootFrameUrl, WEBCONTAINER_API_VERSION } from "../../src/runtime/webcontainer/boot.ts";
import { readFileSync } from "node:fs";
import type { Runtime } from "../../src/runtime/types.ts";
import { makeWorld } from "./webcontainer-fake.ts";
import { createShellSession } from "../../src/shell/session.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A stand-in embedded runtime (the real one has its own tests). */
function fakeEmbedded(): { create: (o?: unknown) => Promise<Runtime>; calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    create: async (o?: unknown) => {
      calls.push(o);
      return {
        kind: "embedded",
        workspace: "/home/project",
        capabilities: { heredocs: true, pipes: true, redirects: true, lists: true, background: false, exportVars: true, programs: {} },
        markerNonce: null,
        spawnShell: () => Promise.reject(new Error("not in this test")),
        spawnJob: () => Promise.reject(new Error("not in this test")),
        fs: {} as Runtime["fs"],
        on: () => () => undefined,
        dispose: async () => undefined,
      };
    },
  };
}

const reachable = async () => ({ headers: new Headers(), ok: false, status: 0 }); // an opaque no-cors answer
const unreachable = async (): Promise<never> => {
  throw new TypeError("Failed to fetch");
};
const never = (): Promise<never> => new Promise(() => undefined);

function browser(w: ReturnType<typeof makeWorld>, extra: Partial<SelectRuntimeOptions> = {}) {
  const embedded = fakeEmbedded();
  const progress: RuntimeProgress[] = [];
  const options: SelectRuntimeOptions = {
    browser: true,
    fetch: reachable,
    createEmbedded: embedded.create,
    canary: createShellSession,
    onProgress: (p) => progress.push(p),
    ...extra,
    webcontainer: { api: w.api, isolation: { isolated: true }, probe: false, ...extra.webcontainer },
  };
  return { options, embedded, progress };
}

function world() {
  const w = makeWorld();
  cleanups.push(w.cleanup);
  return w;
}

describe("selectRuntime: auto in a browser", () => {
  it("uses WebContainer when the page is isolated, StackBlitz answers and the boot completes", async () => {
    const w = world();
    const { options, embedded, progress } = browser(w);
    const rt = await selectRuntime("auto", options);
    cleanups.push(() => rt.dispose());
    expect(rt.kind).toBe("webcontainer");
    expect(rt.note).toBeUndefined();
    expect(embedded.calls).toHaveLength(0);
    expect(progress.map((p) => p.phase)).toEqual(["checking", "booting", "probing", "ready"]);
  });

  it("not cross-origin isolated: the embedded shell at once, and the note names the missing headers", async () => {
    const w = world();
    const { options, progress } = browser(w, {
      webcontainer: {
        isolation: { isolated: false, pageUrl: "http://localhost:5173/", fetch: async () => ({ headers: new Headers(), ok: true, status: 200 }) },
      },
    });
    const t0 = performance.now();
    const rt = await selectRuntime("auto", options);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toMatch(/^WebContainer could not be used: This page is not cross-origin isolated/);
    expect(rt.note).toMatch(/Cross-Origin-Opener-Policy: same-origin is missing/);
    expect(rt.note).toMatch(/Cross-Origin-Embedder-Policy: require-corp \(or credentialless\) is missing/);
    expect(rt.note).toMatch(/The embedded shell serves instead/);
    expect(w.api.bootCalls).toBe(0);
    expect(progress.map((p) => `${p.phase}:${p.runtime}`)).toEqual(["checking:webcontainer", "falling-back:embedded", "ready:embedded"]);
  });

  it("StackBlitz unreachable (fetch rejects): the embedded shell at once, no boot attempted, retry possible", async () => {
    const w = world();
    const { options, progress } = browser(w, { fetch: unreachable });
    const t0 = performance.now();
    const rt = await selectRuntime("auto", options);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toContain("StackBlitz (https://stackblitz.com/headless?coep=require-corp&version=1.6.4) could not be reached: Failed to fetch");
    expect(rt.note).toMatch(/tried again \(retry\)/);
    expect(w.api.bootCalls).toBe(0);
    expect(progress.find((p) => p.phase === "falling-back")?.message).toMatch(/^Falling back to the embedded shell: StackBlitz/);
    // later, online again: the retry button
    const again = await retryWebContainer({ ...options, fetch: reachable });
    cleanups.push(() => again.dispose());
    expect(again.kind).toBe("webcontainer");
  });

  it(`StackBlitz silent: falls back within ${WEBCONTAINER.unreachableFallbackMs} ms (the default), saying so`, async () => {
    const w = world();
    const { options } = browser(w, { fetch: never });
    const t0 = performance.now();
    const rt = await selectRuntime("auto", options);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThan(WEBCONTAINER.unreachableFallbackMs - 100);
    expect(took).toBeLessThan(WEBCONTAINER.unreachableFallbackMs + 400);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toMatch(/did not answer within 3 s/);
    expect(w.api.bootCalls).toBe(0);
  });

  it("a boot that hangs: falls back after the boot timeout; a retry joins the boot in flight instead of refusing", async () => {
    const w = world();
    w.api.mode = "hang";
    const { options, progress } = browser(w, { webcontainer: { bootTimeoutMs: 200 } });
    const t0 = performance.now();
    const rt = await selectRuntime("auto", options);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toMatch(/did not boot within/);
    expect(rt.note).toMatch(/goes on in the background: if it completes, a switch is offered/);
    expect(progress.map((p) => p.phase)).toContain("booting");
    expect(await webContainerStatus(options)).toMatchObject({ state: "booting", hung: true, reloadNeeded: false });
    const retry = await retryWebContainer(options).catch((e: unknown) => e);
    expect(retry).toBeInstanceOf(WebContainerUnavailableError);
    expect(retry).toMatchObject({ kind: "boot-timeout", reloadNeeded: false });
    expect((retry as Error).message).toMatch(/this retry joined the first attempt/);
    expect(w.api.bootCalls).toBe(1);
  });

  it("a slow boot: falls back, and when the boot completes later it is announced; switching then uses it (one boot)", async () => {
    const w = world();
    w.api.mode = "late";
    const { options } = browser(w, { webcontainer: { bootTimeoutMs: 100 } });
    const rt = await selectRuntime("auto", options);
    expect(rt.kind).toBe("embedded");
    const announced = whenWebContainerBoots(options);
    let said: boolean | null = null;
    void announced.then((v) => (said = v));
    await new Promise((r) => setTimeout(r, 50));
    expect(said).toBeNull(); // still booting
    w.api.release();
    expect(await announced).toBe(true);
    const switched = await retryWebContainer(options);
    cleanups.push(() => switched.dispose());
    expect(switched.kind).toBe("webcontainer");
    expect(w.api.bootCalls).toBe(1);
    expect(await whenWebContainerBoots(options)).toBe(false); // nothing in flight any more
  });

  it("a retry while the boot is still in flight joins it and gets WebContainer when it completes", async () => {
    const w = world();
    w.api.mode = "late";
    const { options } = browser(w, { webcontainer: { bootTimeoutMs: 100 } });
    expect((await selectRuntime("auto", options)).kind).toBe("embedded");
    const retry = retryWebContainer({ ...options, webcontainer: { ...options.webcontainer, bootTimeoutMs: 5_000 } });
    setTimeout(() => w.api.release(), 100);
    const rt = await retry;
    cleanups.push(() => rt.dispose());
    expect(rt.kind).toBe("webcontainer");
    expect(w.api.bootCalls).toBe(1);
  });

  it("a boot that rejects: falls back, and a retry may boot again", async () => {
    const w = world();
    w.api.mode = "reject";
    const { options } = browser(w);
    const rt = await selectRuntime("auto", options);
    expect(rt.kind).toBe("embedded");
    expect(rt.note).toMatch(/failed to boot: Unable to create more instances/);
    w.api.mode = "ok";
    const again = await retryWebContainer(options);
    cleanups.push(() => again.dispose());
    expect(again.kind).toBe("webcontainer");
  });

  it("the embedded runtime gets its options; the note is set on it", async () => {
    const w = world();
    const { options, embedded } = browser(w, { fetch: unreachable, embedded: { workspace: "/w" } as never });
    const rt = await selectRuntime("auto", options);
    expect(embedded.calls).toEqual([{ workspace: "/w" }]);
    expect(Object.getOwnPropertyDescriptor(rt, "note")?.value).toBe(rt.note);
  });
});

describe("selectRuntime: explicit kinds", () => {
  it('"webcontainer" does not fall back: it throws the reason', async () => {
    const w = world();
    const { options, embedded } = browser(w, { fetch: unreachable });
    const err = await selectRuntime("webcontainer", options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebContainerUnavailableError);
    expect(err).toMatchObject({ kind: "unreachable", reloadNeeded: false });
    expect(embedded.calls).toHaveLength(0);
  });

  it('"webcontainer" works when everything is there', async () => {
    const w = world();
    const rt = await selectRuntime("webcontainer", browser(w).options);
    cleanups.push(() => rt.dispose());
    expect(rt.kind).toBe("webcontainer");
  });

  it('"embedded" goes straight to the embedded runtime', async () => {
    const w = world();
    const { options, embedded } = browser(w);
    expect((await selectRuntime("embedded", options)).kind).toBe("embedded");
    expect(embedded.calls).toHaveLength(1);
    expect(w.api.bootCalls).toBe(0);
  });

  it('"node" is refused in a browser page', async () => {
    await expect(selectRuntime("node", { browser: true })).rejects.toThrow(/only in Node/);
  });

  it('"node" in Node starts real bash (imported on demand)', async () => {
    const rt = await selectRuntime("node", { browser: false });
    cleanups.push(() => rt.dispose());
    expect(rt.kind).toBe("node");
  });

  it('"auto" in Node is the node runtime, or the embedded one with a note when node cannot start', async () => {
    const rt = await selectRuntime("auto", { browser: false });
    cleanups.push(() => rt.dispose());
    expect(rt.kind).toBe("node");
    const embedded = fakeEmbedded();
    const fallback = await selectRuntime("auto", {
      browser: false,
      createNode: async () => {
        throw new Error("node-pty could not be loaded");
      },
      createEmbedded: embedded.create,
    });
    expect(fallback.kind).toBe("embedded");
    expect(fallback.note).toMatch(/node runtime could not start: node-pty could not be loaded/);
  });

  it("an unknown kind is refused", async () => {
    await expect(selectRuntime("docker" as never, { browser: false })).rejects.toThrow(/Unknown runtime/);
  });

  it('"webcontainer" outside a browser, without an injected API, says it needs a browser', async () => {
    await expect(selectRuntime("webcontainer", { browser: false })).rejects.toMatchObject({ kind: "not-browser" });
    expect(await webContainerStatus({ browser: false })).toMatchObject({ state: "idle" });
  });
});

describe("reachability: exactly the URL the boot frame loads", () => {
  it("the fetch goes to /headless?coep=require-corp&version=…, as @webcontainer/api builds the frame's address", async () => {
    const w = world();
    const urls: string[] = [];
    const { options } = browser(w, {
      fetch: async (url: string) => {
        urls.push(url);
        return { headers: new Headers(), ok: false, status: 0 };
      },
    });
    const rt = await selectRuntime("auto", options);
    cleanups.push(() => rt.dispose());
    expect(urls).toEqual([`https://stackblitz.com/headless?coep=require-corp&version=${WEBCONTAINER_API_VERSION}`]);
  });

  it("coep and WEBCONTAINER_API_IFRAME_URL (only its origin counts, as in the API) shape it the same way", () => {
    expect(bootFrameUrl("credentialless")).toBe(`https://stackblitz.com/headless?coep=credentialless&version=${WEBCONTAINER_API_VERSION}`);
    const g = globalThis as { WEBCONTAINER_API_IFRAME_URL?: string };
    g.WEBCONTAINER_API_IFRAME_URL = "https://wc.example.com/some/path?x=1";
    try {
      expect(bootFrameUrl()).toBe(`https://wc.example.com/headless?coep=require-corp&version=${WEBCONTAINER_API_VERSION}`);
    } finally {
      delete g.WEBCONTAINER_API_IFRAME_URL;
    }
  });

  it("the version in that URL is the installed @webcontainer/api's", () => {
    const pkg = JSON.parse(readFileSync("node_modules/@webcontainer/api/package.json", "utf8")) as { version: string };
    expect(WEBCONTAINER_API_VERSION).toBe(pkg.version);
    const dist = readFileSync("node_modules/@webcontainer/api/dist/internal/iframe-url.js", "utf8");
    expect(dist).toContain("url.pathname = '/headless'");
    expect(dist).toContain(`url.searchParams.set('version', "${pkg.version}")`);
  });
});
