// "WebContainer is ready: switch?" in a real page (Chromium): shown only when a late boot completes and the fallback
// still serves; never switches while a command runs; switches on a click when idle.

import { describe, expect, it } from "vitest";
import { createNotices } from "../../src/ui/notices.ts";
import { offerLateSwitch } from "../../src/ui/switch-offer.ts";

function setup(ready: Promise<boolean>, state: { busy: boolean; applies: boolean }) {
  const notices = createNotices();
  document.body.append(notices.element);
  let switched = 0;
  offerLateSwitch({
    notices,
    whenReady: () => ready,
    applies: () => state.applies,
    busy: () => state.busy,
    switchNow: async () => {
      switched++;
    },
  });
  const offer = () => notices.element.querySelector<HTMLElement>('[data-notice="switch-offer"]');
  return { notices, offer, switched: () => switched };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("the late-boot switch offer", () => {
  it("appears when the boot completes; a click while a command runs does not switch, a click when idle does", async () => {
    let resolve!: (v: boolean) => void;
    const state = { busy: true, applies: true };
    const { offer, switched } = setup(new Promise((r) => (resolve = r)), state);
    await tick();
    expect(offer()).toBeNull();
    resolve(true);
    await tick();
    expect(offer()!.textContent).toContain("WebContainer is ready: switch?");
    offer()!.querySelector("button")!.click();
    expect(switched()).toBe(0);
    expect(offer()!.textContent).toContain("nothing is switched under an agent");
    state.busy = false;
    offer()!.querySelector("button")!.click();
    expect(switched()).toBe(1);
    expect(offer()).toBeNull();
  });

  it("is not offered when the boot failed, or when the fallback no longer serves", async () => {
    const a = setup(Promise.resolve(false), { busy: false, applies: true });
    const b = setup(Promise.resolve(true), { busy: false, applies: false });
    await tick();
    expect(a.offer()).toBeNull();
    expect(b.offer()).toBeNull();
  });
});
