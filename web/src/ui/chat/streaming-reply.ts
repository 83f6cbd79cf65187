/**
 * A reply as it streams: completed markdown blocks are rendered once and appended (a few KB each, see
 * blockPieces), only the unfinished tail is rendered again each frame (see stableCut); the finished
 * reply is rendered once as a whole.
 */

import { el } from "../common/dom";
import { highlighterLoaded, withoutGuessing } from "../markdown/highlight-loader";
import { highlightPlainCode, renderBlocks, renderInto } from "../markdown/markdown";
import { blockPieces, endsParagraph, piecesDiffer, stableCut, WHOLE_RENDER_MAX } from "./stream-split";

export interface Segment {
  node: HTMLElement;
  /** The text rendered for good into `done`, piece by piece (see stableCut); joined when read. */
  stable: string[];
  stableLength: number;
  /** The text after it: the unfinished tail, rendered again each frame. Only this string grows per frame, so
   * no frame copies the whole reply (a string built by `+=` is flattened by the first `slice` or `indexOf`). */
  pending: string;
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
  return { node, stable: [], stableLength: 0, pending: text, lineCut: false, plainCode: false, done, tail };
}

/** The whole text of the reply so far (its markdown source). */
export function segmentText(seg: Segment): string {
  if (seg.stable.length > 1) seg.stable = [seg.stable.join("")];
  return (seg.stable[0] ?? "") + seg.pending;
}

/** Render what arrived: completed blocks once (appended), the unfinished rest again each time. */
export function renderSegment(seg: Segment): void {
  const cut = stableCut(seg.pending, 0);
  if (cut > 0) {
    const pieces = blockPieces(seg.pending.slice(0, cut));
    const blocks = renderBlocks(pieces, "md-block");
    seg.plainCode ||= !highlighterLoaded() && blocks.querySelector("pre") !== null;
    seg.done.append(blocks);
    for (const piece of pieces) {
      seg.stable.push(piece);
      seg.lineCut ||= !endsParagraph(piece);
    }
    seg.stableLength += cut;
    seg.pending = seg.pending.slice(cut);
  }
  withoutGuessing(() => renderInto(seg.tail, seg.pending));
}

/**
 * The turn ended: where the pieces could read differently from the whole (piecesDiffer, or a piece cut at a
 * line end) or hold code drawn before the highlighter came, render the (not too long) reply once as a whole,
 * exactly as markdown means it. Otherwise only the tail, once more with unlabelled code's language guessed,
 * and the code drawn plain highlighted where it is: a long reply is not drawn again for nothing at its end (a
 * dropped frame of ~50 ms for 2,000 tokens).
 */
export function renderWhole(seg: Segment): void {
  const body = seg.node.querySelector(".message-body");
  if (!(body instanceof HTMLElement)) return;
  const redraw = seg.lineCut || seg.plainCode || piecesDiffer(segmentText(seg));
  if (redraw && seg.stableLength + seg.pending.length <= WHOLE_RENDER_MAX) {
    renderInto(body, segmentText(seg));
    return;
  }
  renderInto(seg.tail, seg.pending);
  if (seg.plainCode && highlighterLoaded()) highlightPlainCode(seg.done); // else when it comes (reply-stream.ts)
}

/** A turn id unique in the workspace across reloads (protocol: `user_message.turn_id`). */
export function newTurnId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `u${Date.now().toString(36)}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
