/**
 * A chat search's hit shown in its chat (the sessions panel → `ChatView.found.show`): the stored messages up to
 * the hit's message, read as a page of earlier messages is (`session_current` with `before`), that message
 * marked (`data-found`) and in view, and below them `messages-later`. Its `messages-later-more`, or the person
 * scrolling down near the end (scroll bar, wheel, finger or keys), draws the next LATER_STEP messages above it
 * (`session_current` with `after`), so the person reads on from the hit; once those reach the chat's latest
 * message the bar goes and the chat is as after any opening. Its `messages-latest` brings the latest messages
 * back at once (sending does too). The messages between the last one shown and the latest are not read: what
 * the page holds stays what it shows.
 */

import { el } from "../common/dom";
import type { SessionView } from "../../protocol/requests";
import type { LoadEarlier } from "./earlier-messages";
import type { Transcript } from "./transcript";

/** Messages shown up to the hit (earlier ones come a page at a time, as in any long chat). */
const FOUND_SHOWN = 40;
/** The latest messages shown again (the runtime's view of an opened session holds as many). */
const LATEST_SHOWN = 50;
/** Later messages drawn at a time below the hit (at once: a screen or two, not a slice drawn while idle). */
export const LATER_STEP = 50;
/** Within this many screens of the end, scrolling down draws the next later messages. */
const NEAR_END_SCREENS = 1;
/** How far a finger drawn up the screen at the end asks for them too. */
const SWIPE_PX = 24;
/** The keys that scroll a view down (Space without Shift). */
const DOWN_KEYS = new Set(["End", "PageDown", "ArrowDown", " "]);
/** What takes those keys itself when it has the focus (they do not scroll the chat then). */
const KEY_OWNERS = "input, textarea, select, button, summary, a[href], [role=button], [role=textbox], [role=menu]";

/** The `count` messages of the open session after seq `after`, as a session view (null: they could not be read). */
export type LoadLater = (after: number, count: number) => Promise<SessionView | null>;

export interface FoundHost {
  transcript: Transcript;
  /** Whether a turn runs (its reply streams below the latest messages: nothing is changed then). */
  running(): boolean;
  load: LoadEarlier;
  later: LoadLater;
  /** The open session's latest `shown` messages (null: they could not be read). */
  latest(shown: number): Promise<SessionView | null>;
  /** Draw a view in place of what is shown (it calls `forget`). */
  show(view: SessionView): void;
  /** Draw a page of later messages just above `bar`, leaving the view where it is. */
  drawLater(page: SessionView, bar: HTMLElement): void;
}

export class FoundMessage {
  private bar: LaterBar | null = null;

  constructor(private readonly host: FoundHost) {}

  /** Whether the messages shown end at a hit, not at the chat's latest. */
  get shown(): boolean {
    return this.bar !== null;
  }

  /** Show message `seq` of the open session `sessionId`: where it is, or with the messages up to it. */
  async show(sessionId: string, seq: number): Promise<void> {
    const { host } = this;
    if (host.running()) return;
    if (markFound(host.transcript.list, seq)) return host.transcript.scroll.hold(); // the hit is shown: at it
    const view = await host.load(seq + 1, FOUND_SHOWN);
    if (!view || host.running() || view.session.id !== sessionId) return; // another chat opened meanwhile
    host.show(view);
    if (view.later > 0) {
      const last = view.messages[view.messages.length - 1]?.seq ?? seq;
      const bar: LaterBar = new LaterBar(host.transcript, view.later, last, {
        back: () => void this.back(),
        more: (after) => this.more(bar, after),
      });
      this.bar = bar;
    }
    markFound(host.transcript.list, seq);
    host.transcript.scroll.hold(); // at the hit, not kept at the end as the messages around it take their size
    this.bar?.placed();
    host.transcript.placeActions(); // none on the last turn shown when it is not the chat's last
  }

  /** The latest messages again; false when they could not be read. */
  async back(): Promise<boolean> {
    if (!this.bar) return true;
    const view = await this.host.latest(LATEST_SHOWN);
    if (!view) return false;
    if (this.bar) this.host.show(view);
    return true;
  }

  /** Something else is drawn in place of the hit's messages. */
  forget(): void {
    this.bar?.remove();
    this.bar = null;
  }

  /** The next later messages after seq `after`, drawn above `bar`; resolves with the last seq shown then. */
  private async more(bar: LaterBar, after: number): Promise<number | null> {
    const page = await this.host.later(after, LATER_STEP);
    if (!page || this.bar !== bar) return null; // not read (said where), or the hit's view is gone
    this.host.drawLater(page, bar.root);
    const last = page.messages.at(-1);
    if (page.later > 0 && last) {
      bar.count(page.later);
      return last.seq;
    }
    this.forget(); // the chat's latest message is shown: it is the chat as opened, read on from the hit
    this.host.transcript.placeActions();
    return null;
  }
}

/** Mark message `seq` as the hit and bring it into view; false when it is not drawn. */
function markFound(list: HTMLElement, seq: number): boolean {
  const node = list.querySelector<HTMLElement>(`[data-testid="message"][data-seq="${seq}"]`);
  if (!node) return false;
  for (const old of list.querySelectorAll<HTMLElement>("[data-found]")) delete old.dataset.found;
  node.dataset.found = "true";
  node.scrollIntoView({ block: "center" });
  return true;
}

/** Whether `target` takes the keys itself (a text field, a button, a menu). */
function ownsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest(KEY_OWNERS) !== null;
}

/** The bar under messages that are not the chat's latest: the next ones (its button, or scrolling near it), or `back`. */
class LaterBar {
  readonly root: HTMLElement;
  private readonly text = el("span", {});
  private readonly next: HTMLButtonElement;
  private readonly scroller: HTMLElement;
  /** Where the view was at the last scroll: the next messages come when the person scrolls down, not before. */
  private top = 0;
  private readonly onScroll = (): void => {
    const top = this.scroller.scrollTop;
    if (top > this.top && this.nearEnd()) void this.step();
    this.top = top;
  };
  /** At the very end a wheel turned down moves nothing, and asks for the next messages all the same. */
  private readonly onWheel = (event: WheelEvent): void => {
    if (event.deltaY > 0 && this.nearEnd()) void this.step();
  };
  /** So does a finger drawn up the screen (where the touch began: `touchY`). */
  private touchY: number | null = null;
  private readonly onTouchStart = (event: TouchEvent): void => {
    this.touchY = event.touches[0]?.clientY ?? null;
  };
  private readonly onTouchMove = (event: TouchEvent): void => {
    const y = event.touches[0]?.clientY;
    if (this.touchY === null || y === undefined || this.touchY - y < SWIPE_PX || !this.nearEnd()) return;
    this.touchY = null;
    void this.step();
  };
  /** And a key that scrolls down (End, Page Down, …), unless it is typing or pressing a control. */
  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || !DOWN_KEYS.has(event.key) || (event.key === " " && event.shiftKey)) return;
    if (event.altKey || ownsKeys(event.target) || !this.nearEnd()) return;
    void this.step();
  };

  /** `after`: the last message shown; `more` draws the next ones and resolves with their last (null: none). */
  constructor(
    transcript: Transcript,
    later: number,
    private after: number,
    private readonly actions: { back: () => void; more: (after: number) => Promise<number | null> },
  ) {
    this.next = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "messages-later-more" },
      "Show later messages",
    );
    this.next.addEventListener("click", () => void this.step());
    const latest = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "messages-latest" },
      "Back to the latest",
    );
    latest.addEventListener("click", actions.back);
    this.root = el(
      "div",
      { class: "messages-later", "data-testid": "messages-later", role: "status" },
      this.text,
      this.next,
      latest,
    );
    this.count(later);
    transcript.list.append(this.root);
    this.scroller = transcript.scroll.scroller();
    this.scroller.addEventListener("scroll", this.onScroll, { passive: true });
    this.scroller.addEventListener("wheel", this.onWheel, { passive: true });
    this.scroller.addEventListener("touchstart", this.onTouchStart, { passive: true });
    this.scroller.addEventListener("touchmove", this.onTouchMove, { passive: true });
    document.addEventListener("keydown", this.onKey);
  }

  /** The view is where the hit put it: only the person's scrolling from here on asks for more. */
  placed(): void {
    this.top = this.scroller.scrollTop;
  }

  /** How many later messages are not shown (`data-later`). */
  count(later: number): void {
    this.root.dataset.later = String(later);
    this.text.textContent = later === 1 ? "1 later message is not shown." : `${later} later messages are not shown.`;
  }

  remove(): void {
    this.scroller.removeEventListener("scroll", this.onScroll);
    this.scroller.removeEventListener("wheel", this.onWheel);
    this.scroller.removeEventListener("touchstart", this.onTouchStart);
    this.scroller.removeEventListener("touchmove", this.onTouchMove);
    document.removeEventListener("keydown", this.onKey);
    this.root.remove();
  }

  private nearEnd(): boolean {
    const { scroller } = this;
    return (
      scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < scroller.clientHeight * NEAR_END_SCREENS
    );
  }

  private async step(): Promise<void> {
    if (this.next.disabled || !this.root.isConnected) return;
    this.next.disabled = true;
    const last = await this.actions.more(this.after);
    this.next.disabled = false;
    if (last !== null) this.after = last;
  }
}
