/**
 * A reply as it streams: completed markdown blocks are rendered once and appended, only the unfinished
 * tail is rendered again each frame (see stableCut); the finished reply is rendered once as a whole.
 */

import { el } from "../common/dom";
import { highlighterLoaded, withoutGuessing } from "../markdown/highlight-loader";
import { renderInto } from "../markdown/markdown";
import { piecesDiffer, stableCut } from "./stream-split";

/** Up to this size a finished reply is rendered once more as a whole (loose lists, references). */
const FINAL_RENDER_MAX = 200_000;

export interface Segment {
  node: HTMLElement;
  text: string;
  stable: number; // characters already rendered for good into `done` (see stableCut)
  lineCut: boolean; // a piece ended at a line end, not a blank line (one endless paragraph)
  plainCode: boolean; // a piece shows code drawn before the highlighter had loaded
  done: HTMLElement;
  tail: HTMLElement;
}

/** A streaming reply in the message `node`, starting with `text`. */
export function startSegment(node: HTMLElement, text: string): Segment {
  const body = node.querySelector<HTMLElement>(".message-body") ?? node;
  const done = el("div", { class: "md-done" });
  const tail = el("div", { class: "md-tail" });
  body.replaceChildren(done, tail);
  return { node, text, stable: 0, lineCut: false, plainCode: false, done, tail };
}

/** Render what arrived: completed blocks once (appended), the unfinished rest again each time. */
export function renderSegment(seg: Segment): void {
  const cut = stableCut(seg.text, seg.stable);
  if (cut > seg.stable) {
    const block = el("div", { class: "md-block" });
    renderInto(block, seg.text.slice(seg.stable, cut));
    seg.done.append(block);
    seg.plainCode ||= !highlighterLoaded() && block.querySelector("pre") !== null;
    seg.stable = cut;
    seg.lineCut ||= !/\n[ \t]*\n$/.test(seg.text.slice(Math.max(0, cut - 80), cut));
  }
  withoutGuessing(() => renderInto(seg.tail, seg.text.slice(seg.stable)));
}

/**
 * The turn ended: where the pieces could read differently from the whole (piecesDiffer, or a piece
 * cut at a line end) or hold code drawn before the highlighter came, render the (not too long) reply once as a whole, exactly as markdown means it;
 * otherwise only the tail, once more with unlabelled code's language guessed. A long reply is not
 * drawn again for nothing at its end (a dropped frame of ~50 ms for 2,000 tokens).
 */
export function renderWhole(seg: Segment): void {
  const body = seg.node.querySelector(".message-body");
  if (!(body instanceof HTMLElement)) return;
  if (seg.lineCut || seg.plainCode || piecesDiffer(seg.text)) {
    if (seg.text.length <= FINAL_RENDER_MAX) renderInto(body, seg.text);
  } else {
    renderInto(seg.tail, seg.text.slice(seg.stable));
  }
}

/** A turn id unique in the workspace across reloads (protocol: `user_message.turn_id`). */
export function newTurnId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `u${Date.now().toString(36)}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
