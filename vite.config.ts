import { fileURLToPath } from "node:url";
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import { lazyChromiumLaunchOptions } from "./scripts/chromium.ts";

// WebContainer needs a cross-origin isolated page; the same headers cost nothing for the embedded runtime.
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  // Lets a host page that is itself cross-origin isolated frame the playground.
  "Cross-Origin-Resource-Policy": "cross-origin",
};

export default defineConfig({
  server: { headers: isolation, port: 5173 },
  preview: { headers: isolation, port: 4173 },
  worker: { format: "es" },
  // Pre-bundled up front: discovered later, Vitest's browser mode would reload mid-run.
  optimizeDeps: {
    include: [
      "@modelcontextprotocol/sdk/client/index.js",
      "@modelcontextprotocol/sdk/server/index.js",
      "@modelcontextprotocol/sdk/types.js",
      "just-bash/browser",
      "web-tree-sitter",
      "jsonrepair",
      "zod",
    ],
  },
  // just-bash's browser build imports node:zlib (just-bash#81): gzip and friends then say they are not available.
  resolve: { alias: { "node:zlib": fileURLToPath(new URL("./src/runtime/embedded/zlib-shim.ts", import.meta.url)) } },
  build: {
    target: "es2022",
    sourcemap: true,
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL("index.html", import.meta.url)),
        "guard-worker": fileURLToPath(new URL("examples/guard-worker.html", import.meta.url)),
        host: fileURLToPath(new URL("examples/host.html", import.meta.url)),
      },
    },
  },
  test: {
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: "node", include: ["test/**/*.test.ts"], exclude: ["test/**/*.browser.test.ts"], environment: "node" },
      },
      {
        // The same code in Chromium (Vitest browser mode): the embedded runtime's Worker, the guard's wasm.
        extends: true,
        test: {
          name: "chromium",
          include: ["test/**/*.browser.test.ts"],
          browser: {
            enabled: true,
            headless: true,
            // Looked up (and fetched, if missing) when the browser launches: `vite build` needs no Chromium.
            provider: playwright({ launchOptions: lazyChromiumLaunchOptions() }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
