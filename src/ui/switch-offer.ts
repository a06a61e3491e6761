// "WebContainer is ready: switch?" — when "auto" fell back because WebContainer booted too slowly, its boot goes on in
// the background; if it completes, the person is offered the switch. It is never made under a running agent: the
// button does nothing but say so while a command runs or an approval waits, and the switch itself is the Retry path
// (the startup canary included), which swaps the sandbox under open connections.

import { h } from "./dom.ts";
import type { Notices } from "./notices.ts";

export interface SwitchOfferOptions {
  notices: Notices;
  /** Resolves true when a WebContainer boot that was still in flight completes. */
  whenReady: () => Promise<boolean>;
  /** Whether the offer still applies (the fallback still serves). */
  applies: () => boolean;
  /** Whether a command runs or an approval waits now. */
  busy: () => boolean;
  switchNow: () => Promise<void>;
}

const KEY = "switch-offer";

export function offerLateSwitch(o: SwitchOfferOptions): void {
  const show = (body: string): void => {
    const button = h("button", { type: "button" }, "Switch to WebContainer");
    button.addEventListener("click", () => {
      if (!o.applies()) {
        o.notices.hide(KEY);
        return;
      }
      if (o.busy()) {
        show("A command is running or waiting for approval: switch when it has finished (nothing is switched under an agent).");
        return;
      }
      o.notices.hide(KEY);
      void o.switchNow();
    });
    o.notices.show({ kind: "info", key: KEY, title: "WebContainer is ready: switch?", body, actions: [button], dismissible: true });
  };
  void o.whenReady().then(
    (ready) => {
      if (ready && o.applies()) {
        show(
          "It finished booting after the embedded shell took over. Switching starts a fresh shell there (files of the " +
            "embedded shell are not carried over); agents keep their connection.",
        );
      }
    },
    () => undefined,
  );
}
