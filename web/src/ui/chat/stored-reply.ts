/**
 * A stored reply drawn when its chat opens. A long one is cut into the blocks a streamed reply is made of
 * (stream-split.ts), each shown at once as its plain text, then drawn as markdown: the blocks in or near the
 * view first, the rest a few at a time while the page is idle. So opening a chat whose reply holds megabytes
 * costs the blocks on screen, not the whole reply (1 MB drawn at once: one task of 2.2 s), and once the page
 * has been idle a moment the reply reads as it did when it streamed.
 */

import { el } from "../common/dom";
import { renderInto } from "../markdown/markdown";
import { charsPerLine, ONE_NODE_MAX, sized } from "./long-text";
import { blockPieces, endsParagraph, piecesDiffer, WHOLE_RENDER_MAX } from "./stream-split";

/** How far outside the view a block is drawn before it is scrolled to (a screen above and below). */
const NEAR_VIEW = "100% 0px";
/** The most one idle task draws for (a frame's share: a person scrolling meanwhile sees no stall). */
const IDLE_SLICE_MS = 12;

/** Each block waiting to be drawn: its markdown source, and what watches it come into view. */
const sources = new WeakMap<HTMLElement, string>();
const watchers = new WeakMap<HTMLElement, IntersectionObserver>();
/** The blocks still to draw while idle, oldest reply first. */
let waiting: HTMLElement[] = [];
let idle = 0;
/** Each scrolling list's watch on its waiting blocks (there is one list: the chat's). */
const observers = new WeakMap<Element, IntersectionObserver>();

/** Show the stored reply `text` in `body`, in the list scrolled by `scroller`: drawn whole, or in blocks when long. */
export function drawStoredReply(body: HTMLElement, text: string, scroller: Element): void {
  const blocks = text.length > ONE_NODE_MAX ? blockPieces(text) : [text];
  if (blocks.length === 1 || (text.length <= WHOLE_RENDER_MAX && blocksDiffer(text, blocks))) {
    renderInto(body, text);
    return;
  }
  const perLine = charsPerLine(scroller.clientWidth);
  const nodes = blocks.map((block) => {
    const node = sized(el("div", { class: "md-block md-waiting" }, block), block, perLine);
    sources.set(node, block);
    return node;
  });
  body.replaceChildren(el("div", { class: "md-done" }, ...nodes));
  const observer = watcherOf(scroller);
  for (const node of nodes) {
    observer.observe(node);
    watchers.set(node, observer);
  }
  waiting.push(...nodes);
  if (idle === 0) idle = requestIdleCallback(drawWhileIdle);
}

/**
 * As at a streamed reply's end (streaming-reply.ts): where the blocks could read differently from the whole
 * text (a paragraph cut at a line end, a loose list, a reference), a reply not too long is drawn whole.
 */
function blocksDiffer(text: string, blocks: readonly string[]): boolean {
  return blocks.slice(0, -1).some((block) => !endsParagraph(block)) || piecesDiffer(text);
}

function watcherOf(scroller: Element): IntersectionObserver {
  let observer = observers.get(scroller);
  if (!observer) {
    observer = new IntersectionObserver(seen, { root: scroller, rootMargin: NEAR_VIEW });
    observers.set(scroller, observer);
  }
  return observer;
}

function seen(entries: IntersectionObserverEntry[]): void {
  for (const entry of entries) if (entry.isIntersecting && entry.target instanceof HTMLElement) draw(entry.target);
}

function drawWhileIdle(deadline: IdleDeadline): void {
  idle = 0;
  const until = performance.now() + Math.min(deadline.timeRemaining(), IDLE_SLICE_MS);
  let next = 0;
  while (next < waiting.length && performance.now() < until) draw(waiting[next++]!);
  waiting = waiting.slice(next).filter((node) => sources.has(node));
  if (waiting.length > 0) idle = requestIdleCallback(drawWhileIdle);
}

/** Draw a waiting block as markdown (once). One whose chat is no longer shown is let go. */
function draw(node: HTMLElement): void {
  const source = sources.get(node);
  watchers.get(node)?.unobserve(node);
  sources.delete(node);
  if (source === undefined || !node.isConnected) return;
  node.classList.remove("md-waiting");
  renderInto(node, source);
}
