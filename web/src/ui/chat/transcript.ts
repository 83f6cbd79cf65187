/**
 * The conversation's messages as they are shown: user / assistant / error `message`s, `tool-call`
 * cards (one per call id), turn notes and runtime notices, each tagged with the turn it belongs to
 * (`data-turn-id`). It draws; what a turn does is the chat's (chat.ts), how a reply streams is
 * reply-stream.ts's.
 */

import type { ApprovalDecision } from "../../protocol/messages";
import { el } from "../common/dom";
import { clearRetryNotices, dropContinueButtons, markEnding, noticeNode } from "./endings";
import { showAttached, splitAttached } from "../resources/attached-resources";
import { attachActions, placeRegenerate, removeAfter, type MessageActionHost } from "./message-actions";
import { ScrollingList } from "./scrolling-list";
import { drawText } from "./long-text";
import { drawStoredReply } from "./stored-reply";
import { ToolCard } from "./tool-card";

export type Role = "user" | "assistant" | "error";

/** A user's message takes at most this share of the chat's width, less its padding (chat.css). */
const USER_WIDTH = 0.8;
const BUBBLE_PADDING_PX = 28;

export class Transcript {
  readonly list = document.querySelector<HTMLElement>(".messages") as HTMLElement;
  private readonly empty = document.querySelector<HTMLElement>(".empty-state") as HTMLElement;
  readonly scroll = new ScrollingList(this.list, this.empty);
  private readonly cards = new Map<string, ToolCard>();
  /** The turn whose messages arrive now. */
  turnId: string | null = null;

  constructor(
    private readonly host: MessageActionHost,
    private readonly decide: (callId: string, decision: ApprovalDecision) => void,
  ) {}

  addMessage(role: Role, text: string): HTMLElement {
    const body = el("div", { class: "message-body" });
    const attached = role === "user" ? splitAttached(text) : { text, resources: [] };
    const node = el("div", { class: `message message-${role}`, "data-testid": "message", "data-role": role }, body);
    if (role !== "assistant") this.showText(node, attached.text);
    else if (text) drawStoredReply(body, text, this.scroll.scroller()); // one about to stream starts empty
    showAttached(node, attached.resources); // a stored message's resources (runtime/tools/mcp_resources.py)
    if (this.turnId) node.dataset.turnId = this.turnId;
    attachActions(node, () => text, this.host);
    this.scroll.push(node);
    return node;
  }

  /** Show `text` as a user's or an error's message `node` says it: as written, in blocks when long (long-text.ts). */
  showText(node: HTMLElement, text: string): void {
    const body = node.querySelector<HTMLElement>(".message-body");
    if (!body) return;
    const share = node.classList.contains("message-user") ? USER_WIDTH : 1;
    const long = drawText(body, text, () => this.scroll.scroller().clientWidth * share - BUBBLE_PADDING_PX);
    node.classList.toggle("message-long", long);
  }

  /** The card of a call, made on first sight; `place` moves an existing one to the end (history). */
  card(callId: string, name: string, args: unknown, place = false): ToolCard {
    let card = this.cards.get(callId);
    if (!card) {
      card = new ToolCard(callId, name, args, this.decide);
      if (this.turnId) card.root.dataset.turnId = this.turnId;
      this.cards.set(callId, card);
      this.scroll.push(card.root);
    } else {
      if (args !== undefined) card.setArguments(args);
      if (place) this.scroll.push(card.root);
    }
    return card;
  }

  /** Live output of a call already shown (none for a call that is not). */
  output(callId: string, stream: "stdout" | "stderr", text: string): void {
    this.cards.get(callId)?.appendOutput(stream, text);
  }

  note(text: string): void {
    this.scroll.push(el("div", { class: "turn-note" }, text));
  }

  /** Something the runtime wants the person to know that is not a turn's error (a restored save, …). */
  notice(code: string, text: string): void {
    if (code === "retrying") this.clearRetrying();
    this.scroll.push(noticeNode(code, text));
  }

  /** The turn moved on: a "retrying in N s" notice is out of date. */
  clearRetrying(): void {
    clearRetryNotices(this.list);
  }

  /** How a reply ended, when it matters (cut off: with a Continue button, the only one shown). */
  markEnding(node: HTMLElement, reason: string, onContinue: () => void): void {
    dropContinueButtons(this.list);
    markEnding(node, reason, onContinue);
  }

  dropContinue(): void {
    dropContinueButtons(this.list);
  }

  /** The turns from `userNode` on leave the view (an edit or a regenerate sends them again). */
  removeFrom(userNode: HTMLElement): void {
    for (const gone of removeAfter(userNode)) if (gone.dataset.callId) this.cards.delete(gone.dataset.callId);
  }

  /** Empty the view for a redraw; returns the kept nodes (boot notices), to put back after it. */
  clear(): HTMLElement[] {
    const kept = [...this.list.querySelectorAll<HTMLElement>(".kept")];
    this.list.replaceChildren();
    this.cards.clear(); // call ids repeat across sessions (and providers)
    return kept;
  }

  /** A redraw is complete: the kept nodes go back last and the view shows the end. */
  redrawn(kept: HTMLElement[]): void {
    this.list.append(...kept);
    this.empty.hidden = this.list.childElementCount > 0;
    this.placeActions();
    this.scroll.toEnd();
  }

  /** Regenerate and retry go on the last turn (none while a turn runs). */
  placeActions(): void {
    placeRegenerate(this.list, this.host);
  }
}
