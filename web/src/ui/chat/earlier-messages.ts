/**
 * A long session opens with its last messages (the runtime's view holds 50); the rest of its past comes a
 * page at a time, EARLIER_STEP messages before the first one shown, when the person scrolls near the top
 * or presses this button, first in the list. Each page is drawn above what is shown (history.ts), so what
 * the page holds grows with what the person reads, never with what the session stores.
 */

import type { SessionView } from "../../protocol/requests";

export const EARLIER_STEP = 200;
/** Within this many screens of the top, scrolling up asks for the next page. */
const NEAR_TOP_SCREENS = 1;

/** The `count` messages before seq `before`, as a session view (null: they could not be read). */
export type LoadEarlier = (before: number, count: number) => Promise<SessionView | null>;

/**
 * `messages-earlier` (`data-earlier`: how many are not shown) for `view`, whose first message (drawn, or
 * about to be) the first page ends before; `load` reads a page, `show` draws it above what is shown.
 */
export function earlierButton(
  view: SessionView,
  scroller: HTMLElement,
  load: LoadEarlier,
  show: (page: SessionView) => void,
): HTMLElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-small messages-earlier";
  button.dataset.testid = "messages-earlier";
  let earlier = view.earlier;
  let first = view.messages[0]?.seq ?? 0;
  const label = (): void => {
    button.dataset.earlier = String(earlier);
    button.textContent =
      earlier === 1
        ? "Show the earlier message"
        : earlier <= EARLIER_STEP
          ? `Show the ${earlier} earlier messages`
          : `Show ${EARLIER_STEP} earlier messages (${earlier} in all)`;
  };
  const more = async (): Promise<void> => {
    if (button.disabled || !button.isConnected) return;
    button.disabled = true;
    const page = await load(first, EARLIER_STEP);
    if (!button.isConnected) return; // another session (or version) is shown now
    button.disabled = false;
    if (!page) return; // said where it failed; the button stays for another try
    if (page.session.id !== view.session.id) return; // answered after a switch: its view replaces this one
    show(page);
    earlier = page.earlier;
    first = page.messages[0]?.seq ?? first;
    if (earlier > 0 && page.messages.length) label();
    else {
      button.remove();
      scroller.removeEventListener("scroll", onScroll);
    }
  };
  const onScroll = (): void => {
    if (!button.isConnected) scroller.removeEventListener("scroll", onScroll);
    else if (scroller.scrollTop < scroller.clientHeight * NEAR_TOP_SCREENS) void more();
  };
  label();
  button.addEventListener("click", () => void more());
  scroller.addEventListener("scroll", onScroll, { passive: true });
  return button;
}
