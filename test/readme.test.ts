// README's rule and limits tables are generated from the rule rows and src/limits.ts, never by hand.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { README, renderReadme } from "../scripts/readme.ts";

it("README's generated tables match the rule rows and the limits module (run `npm run readme`)", async () => {
  const text = readFileSync(README, "utf8");
  expect(await renderReadme(text)).toBe(text);
});

it("README starts with the two commands that set everything up", () => {
  const text = readFileSync(README, "utf8");
  const head = text.slice(0, 600);
  expect(head).toContain("npm install && npm start");
  expect(head).toContain("npm test");
});
