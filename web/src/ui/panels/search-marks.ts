/**
 * The words of a chat search marked in an entry's excerpt: the excerpt split into pieces, each a hit of
 * one of the words (case-insensitive) or the text between hits. The runtime decides what matches
 * (runtime/store/search.py); this only shows where.
 */

export interface Piece {
  text: string;
  hit: boolean;
}

/** `text` cut at each occurrence of any of the whitespace-separated words of `query` (longest first). */
export function markedPieces(text: string, query: string): Piece[] {
  const words = [...new Set(query.split(/\s+/).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!words.length || !text) return text ? [{ text, hit: false }] : [];
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "giu");
  const pieces: Piece[] = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    const start = match.index ?? 0;
    if (start > at) pieces.push({ text: text.slice(at, start), hit: false });
    pieces.push({ text: match[0], hit: true });
    at = start + match[0].length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), hit: false });
  return pieces;
}
