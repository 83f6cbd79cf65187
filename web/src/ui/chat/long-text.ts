/**
 * Long text in the chat, laid out only where it is read. A message's text in one node is laid out whole
 * whenever it is drawn (a 1 MB paste: one task of 180–320 ms); cut at line ends into blocks the browser skips
 * off screen (`content-visibility`, chat.css), it costs the blocks in view. Each block is given a height from
 * its lines until it is first laid out, so the chat's length, its scroll bar and a jump to its end are about
 * right before it is read (stored-reply.ts does the same for a long reply's markdown blocks).
 */

import { el } from "../common/dom";

/** Up to this size a text is one node (a few milliseconds to lay out). */
export const ONE_NODE_MAX = 32 * 1024;
/** About this many characters in each block of a longer text. */
const BLOCK_CHARS = 4096;
/** A line of chat text is 1.5em high; an average character about half an em (15 px text) wide. */
const LINE_EM = 1.5;
const CHAR_PX = 7.5;

/**
 * Show `text` in `body` as written (its lines kept, `white-space: pre-wrap`): in one node, or in blocks when
 * long; `width` gives the width it wraps at, in pixels (read only then). Returns whether it was cut into blocks.
 */
export function drawText(body: HTMLElement, text: string, width: () => number): boolean {
  if (text.length <= ONE_NODE_MAX) {
    body.textContent = text;
    return false;
  }
  const perLine = charsPerLine(width());
  body.replaceChildren(
    ...lineBlocks(text).map((block) => sized(el("div", { class: "text-block" }, block), block, perLine)),
  );
  return true;
}

/** How many characters a line of chat text holds at `width` pixels. */
export function charsPerLine(width: number): number {
  return Math.max(20, Math.floor(width / CHAR_PX));
}

/** Give `node`, which shows `text`, the height of its lines until it is laid out. */
export function sized(node: HTMLElement, text: string, perLine: number): HTMLElement {
  node.style.containIntrinsicHeight = `auto ${linesOf(text, perLine) * LINE_EM}em`;
  return node;
}

/**
 * `text` cut at the first line end after each BLOCK_CHARS characters (a cut inside a line would break it in
 * two on screen), so a very long line stays whole in its block. Joined, the blocks are `text`.
 */
export function lineBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start + BLOCK_CHARS - 1);
    const stop = end < 0 ? text.length : end + 1;
    blocks.push(text.slice(start, stop));
    start = stop;
  }
  return blocks;
}

/** How many lines `text` takes wrapped at `perLine` characters. */
export function linesOf(text: string, perLine: number): number {
  let lines = 0;
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf("\n", start);
    const stop = end < 0 ? text.length : end;
    lines += Math.max(1, Math.ceil((stop - start) / perLine));
    start = stop + 1;
  }
  return lines;
}
