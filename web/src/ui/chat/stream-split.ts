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
 * `piece` (ending where `stableCut` cuts) as blocks of at most `max` characters where one can be cut the
 * same way (a blank line, else a line end, outside fenced code); a line or a fenced block longer than
 * `max` stays whole. Joined, the blocks are `piece`.
 */
export function blockPieces(piece: string, max = BLOCK_CHARS): string[] {
  const out: string[] = [];
  let rest = piece;
  while (rest.length > max) {
    const cut = stableCut(rest.slice(0, max), 0, 0);
    if (cut === 0) break;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

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
