/**
 * The header's live indicator: "● live", "○ connecting…", or while the page waits before it
 * connects again (live.ts decides how long: a refusal's retry hint may be minutes) the wait
 * counted down each second, with "retry now" to connect at once. A bare "offline" left the
 * visitor guessing whether the page would ever come back.
 *
 * `#live` carries `data-status` and, while offline, `data-retry-in` (whole seconds left). The
 * text is a polite live region, so a screen reader hears each change of status; the ticking
 * number inside it is a timer, which is not read out every second.
 */
import { h, mount } from "./dom.js";
import type { LiveStatus } from "./live.js";

/** Shows `status` (null hides the indicator: the page has no live view); `retryNow` backs the button while offline. */
export type ShowLive = (status: LiveStatus | null, retryInMs?: number, retryNow?: () => void) => void;

export function liveIndicator(root: HTMLElement): ShowLive {
  const text = h("span", { id: "live-text", role: "status", "aria-live": "polite" });
  const button = h("button", { id: "live-retry", type: "button", hidden: true }, "retry now");
  root.replaceChildren(text, " ", button);
  let retryNow: (() => void) | undefined;
  button.addEventListener("click", () => retryNow?.());
  let tick: ReturnType<typeof setTimeout> | undefined;
  /** Whether this page's connection has failed before: connecting again is "reconnecting". */
  let failed = false;

  const countDown = (deadline: number, countdown: HTMLElement) => {
    const left = Math.max(0, deadline - Date.now());
    const seconds = Math.ceil(left / 1000);
    countdown.textContent = String(seconds);
    root.dataset.retryIn = String(seconds);
    // Next at the moment the whole number changes; nothing after 0 (the attempt is under way).
    if (left > 0) tick = setTimeout(() => countDown(deadline, countdown), left % 1000 || 1000);
  };

  return (status, retryInMs, retry) => {
    clearTimeout(tick);
    retryNow = retry;
    root.hidden = status === null;
    root.dataset.status = status ?? "";
    delete root.dataset.retryIn;
    button.hidden = status !== "offline" || retry === undefined;
    if (status === null) failed = false;
    if (status === "live") mount(text, "● live");
    else if (status === "connecting") mount(text, failed ? "○ reconnecting…" : "○ connecting…");
    else if (status === "offline") {
      failed = true;
      if (retryInMs === undefined) {
        mount(text, "○ offline");
        return;
      }
      const countdown = h("span", { id: "live-countdown", role: "timer" });
      mount(text, "○ offline · reconnecting in ", countdown, " s");
      countDown(Date.now() + retryInMs, countdown);
    }
  };
}
