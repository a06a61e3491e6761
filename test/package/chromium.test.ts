// scripts/chromium.ts: how `npm test` gets a Chromium when the machine has none. The fetch itself downloads packages
// and needs root, so it is exercised by scripts/chromium-fetch-exercise.sh (figures in docs/testing.md); here, the
// choice of apt-get arguments that the exercise showed wrong once.
import { describe, expect, it } from "vitest";
import { aptArguments } from "../../scripts/chromium.ts";

describe("the system package fallback", () => {
  it("installs chromium where dpkg has none", () => {
    expect(aptArguments([])).toEqual(["install", "-y", "-qq", "chromium"]);
  });

  it('reinstalls where dpkg counts it installed but the browser is gone (a plain install says "already the newest version" and does nothing)', () => {
    expect(aptArguments(["chromium", "chromium-common"])).toEqual(["install", "--reinstall", "-y", "-qq", "chromium", "chromium-common"]);
    expect(aptArguments(["chromium"])).toEqual(["install", "--reinstall", "-y", "-qq", "chromium"]);
  });
});
