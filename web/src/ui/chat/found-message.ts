/**
 * A chat search's hit shown in its chat (the sessions panel → `ChatView.found.show`): the stored messages up to
 * the hit's message, read as a page of earlier messages is (`session_current` with `before`), that message
 * marked (`data-found`) and in view, and below them `messages-later` with `messages-latest`, which brings the
 * chat's latest messages back (sending does too). The messages between the hit and the latest are not read:
 * what the page holds stays what it shows.
 */

import { el } from "../common/dom";
import type { SessionView } from "../../protocol/requests";
import type { LoadEarlier } from "./earlier-messages";
import type { Transcript } from "./transcript";

/** Messages shown up to the hit (earlier ones come a page at a time, as in any long chat). */
const FOUND_SHOWN = 40;
/** The latest messages shown again (the runtime's view of an opened session holds as many). */
const LATEST_SHOWN = 50;

export interface FoundHost {
  transcript: Transcript;
  /** Whether a turn runs (its reply streams below the latest messages: nothing is changed then). */
  running(): boolean;
  load: LoadEarlier;
  /** The open session's latest `shown` messages (null: they could not be read). */
  latest(shown: number): Promise<SessionView | null>;
  /** Draw a view in place of what is shown (it calls `forget`). */
  show(view: SessionView): void;
}

export class FoundMessage {
  private bar: HTMLElement | null = null;

  constructor(private readonly host: FoundHost) {}

  /** Whether the messages shown end at a hit, not at the chat's latest. */
  get shown(): boolean {
    return this.bar !== null;
  }

  /** Show message `seq` of the open session `sessionId`: where it is, or with the messages up to it. */
  async show(sessionId: string, seq: number): Promise<void> {
    const { host } = this;
    if (host.running() || markFound(host.transcript.list, seq)) return; // a turn runs, or the hit is in view
    const view = await host.load(seq + 1, FOUND_SHOWN);
    if (!view || host.running() || view.session.id !== sessionId) return; // another chat opened meanwhile
    host.show(view);
    this.bar = laterBar(host.transcript, () => void this.back());
    markFound(host.transcript.list, seq);
    host.transcript.placeActions(); // none on the last turn shown: it is not the chat's last
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
    this.bar = null;
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

/** The bar under messages that are not the chat's latest; `back` shows those. */
function laterBar(transcript: Transcript, back: () => void): HTMLElement {
  const button = el(
    "button",
    { type: "button", class: "btn btn-small", "data-testid": "messages-latest" },
    "Back to the latest",
  );
  button.addEventListener("click", back);
  const bar = el(
    "div",
    { class: "messages-later", "data-testid": "messages-later", role: "status" },
    el("span", {}, "Later messages are not shown."),
    button,
  );
  transcript.list.append(bar);
  return bar;
}
