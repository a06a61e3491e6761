// The rule and limits tables (docs/rules.md, docs/limits.md) are generated from the rule rows and
// src/limits.ts, never written by hand; README is the front page.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { README, renderDocs } from "../scripts/readme.ts";

it("the docs' generated tables match the rule rows and the limits module (run `npm run readme`)", async () => {
  for (const { path, text } of await renderDocs()) expect(readFileSync(path, "utf8"), path).toBe(text);
});

it("README starts with the two commands that set everything up", () => {
  const text = readFileSync(README, "utf8");
  const head = text.slice(0, 600);
  expect(head).toContain("npm install && npm start");
  expect(head).toContain("npm test");
});
