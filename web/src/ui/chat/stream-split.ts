/** Splitting a streaming markdown message into a part rendered once and a part rendered again. */

const FENCE = /^ {0,3}(```|~~~)/;
const LONG_TAIL = 8192;

/**
 * Where a streaming message may be split for rendering: the end of the last blank line at or after
 * `from` that is outside a fenced code block (`from` itself must be outside one), or `from` when there
 * is none. Everything before the cut can be rendered once and kept; only the rest is rendered again as
 * text arrives, so a long reply costs the same per frame as a short one.
 */
export function stableCut(text: string, from: number, longTail = LONG_TAIL): number {
  let cut = from;
  let lineCut = from; // the last line end outside a fence: a cut of last resort
  let inFence = false;
  let lineStart = from;
  while (lineStart < text.length) {
    const end = text.indexOf("\n", lineStart);
    if (end === -1) break; // the last line is not complete yet
    const line = text.slice(lineStart, end);
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === "" && lineStart > from) cut = end + 1;
    if (!inFence) lineCut = end + 1;
    lineStart = end + 1;
  }
  // One endless paragraph (no blank line) would be rendered whole on every frame: past `longTail`
  // characters, cut at a line end instead (the finished reply is rendered whole once anyway).
  if (cut === from && text.length - from > longTail) cut = lineCut;
  return cut;
}

/**
 * The most a finished block holds where it can be cut: an off-screen block costs no layout or paint
 * (chat.css), so a frame lays out the blocks near the view, not all the text that arrived since the last
 * one (an 8 MiB reply comes in 64 KiB pieces: 1.1 s → 0.65 s to show it all, the text shaping of what
 * was never on screen gone).
 */
export const BLOCK_CHARS = 4096;

/**
 * `piece` as blocks of at most `max` characters where one can be cut the same way as `stableCut` cuts (a
 * blank line, else a line end, outside fenced code); a line or a fenced block longer than `max` is one block
 * of its own, cut where it ends. Joined, the blocks are `piece`. A streamed frame's piece ends where
 * `stableCut` cut it; a stored reply's whole text (stored-reply.ts) may end anywhere: its last block is the rest.
 */
export function blockPieces(piece: string, max = BLOCK_CHARS): string[] {
  const out: string[] = [];
  let rest = piece;
  while (rest.length > max) {
    const cut = nextCut(rest, max);
    if (cut === 0 || cut >= rest.length) break;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/** The last cut within `text`'s first `max` characters, else the first one after them; 0 when there is none. */
function nextCut(text: string, max: number): number {
  const cut = stableCut(text.slice(0, max), 0, 0);
  return cut > 0 ? cut : firstCut(text);
}

/** After `text`'s first line that ends outside fenced code (a fence's closing line), with the blank lines after it. */
function firstCut(text: string): number {
  let inFence = false;
  let lineStart = 0;
  while (lineStart < text.length) {
    const end = text.indexOf("\n", lineStart);
    if (end === -1) return 0;
    if (FENCE.test(text.slice(lineStart, end))) inFence = !inFence;
    lineStart = end + 1;
    if (!inFence) break;
  }
  while (lineStart < text.length) {
    const end = text.indexOf("\n", lineStart);
    if (end === -1 || text.slice(lineStart, end).trim() !== "") break;
    lineStart = end + 1;
  }
  return lineStart >= text.length ? 0 : lineStart;
}

/** Whether a block ends a paragraph (a blank line): one that does not was cut at a line end, mid-paragraph. */
export function endsParagraph(block: string): boolean {
  return /\n[ \t]*\n$/.test(block.slice(-80));
}

/** Up to this size a reply whose blocks could read differently from its whole text is drawn whole. */
export const WHOLE_RENDER_MAX = 200_000;

const REFERENCE = /^ {0,3}\[[^\]\n]+\]:[ \t]*\S/m;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const INDENTED = /^(?: {2,}|\t)\S/;

/**
 * Whether a reply rendered piece by piece (split at blank lines by `stableCut`) can read differently
 * from the same text rendered whole: a reference definition (`[x]: url`) reaches links in other
 * pieces, and a list that goes on after a blank line (a loose list, or a list item's indented next
 * paragraph) is one list only when rendered whole. Fenced code is never split, so it never counts.
 */
export function piecesDiffer(text: string): boolean {
  if (REFERENCE.test(text)) return true;
  let inFence = false;
  let blank = false;
  let inList = false;
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    if (line.trim() === "") {
      blank = true;
      continue;
    }
    const item = LIST_ITEM.test(line);
    if (blank && inList && (item || INDENTED.test(line))) return true;
    inList = item || (inList && (!blank || INDENTED.test(line)));
    blank = false;
  }
  return false;
}
