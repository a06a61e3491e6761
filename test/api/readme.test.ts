// The API page's host-page example is examples/host.html word for word, so what users paste is what is tested.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const readme = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
const host = readFileSync(new URL("../../examples/host.html", import.meta.url), "utf8");

it("docs/api.md shows examples/host.html verbatim", () => {
  const section = readme.slice(readme.indexOf("# postMessage API and client SDK"));
  expect(section.length).toBeGreaterThan(100);
  expect(section).toContain("```html\n" + host + (host.endsWith("\n") ? "" : "\n") + "```");
});

it("the example uses the fixed surface: the client SDK, the iframe's allow attribute, the sandbox origin", () => {
  expect(host).toContain('import { connectSandbox } from "../src/client/index.ts"');
  expect(host).toContain('allow="cross-origin-isolated"');
  expect(host).toContain("origin: sandboxUrl.origin");
  expect(host).toMatch(/listTools\(\)/);
  expect(host).toMatch(/callTool\("bash"/);
});
