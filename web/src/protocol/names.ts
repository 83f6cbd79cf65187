/**
 * What a file name may hold, and how a name is shown: the runtime's rule (`runtime/names.py`), written
 * once more for the page's own entry points (uploads) and its listings; both are checked against the
 * shared vectors in `tests/vectors/names.json`.
 *
 * A name may not hold a control character (C0, DEL, C1), a line or paragraph separator, a format
 * character (bidirectional controls such as U+202E, invisible ones such as U+200B or U+FEFF) or a lone
 * surrogate (the joiners U+200C/U+200D are allowed), and no part of it may be over 255 bytes.
 */

// Format characters but the joiners U+200C/U+200D (Persian, Indic scripts, emoji sequences need them).
const UNSAFE = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const FORMAT = /\p{Cf}/u;
const SURROGATE = /\p{Cs}/u;
const MAX_COMPONENT_BYTES = 255;

export type UnsafeKind = "control" | "format" | "invalid";

export interface Unsafe {
  /** "U+000A" */
  code: string;
  kind: UnsafeKind;
}

const WORDS: Record<UnsafeKind, string> = {
  control: "a control character",
  format: "an invisible or bidirectional formatting character",
  invalid: "bytes that are not text",
};

/** The first character of `text` that no name may hold. */
export function firstUnsafe(text: string): Unsafe | null {
  for (const char of text) {
    if (!UNSAFE.test(char)) continue;
    const kind: UnsafeKind = FORMAT.test(char) ? "format" : SURROGATE.test(char) ? "invalid" : "control";
    return { code: `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`, kind };
  }
  return null;
}

/** Why `name` may not name a file (the end of a sentence), or null when it may. */
export function nameProblem(name: string): string | null {
  const bad = firstUnsafe(name);
  if (bad)
    return `it contains ${bad.code} (${WORDS[bad.kind]}); names may not hold control or invisible formatting characters`;
  const encoder = new TextEncoder();
  if (name.split("/").some((part) => encoder.encode(part).length > MAX_COMPONENT_BYTES))
    return `a part of it is over ${MAX_COMPONENT_BYTES} bytes`;
  return null;
}

/** `text` with every character a name may not hold written as `\uXXXX` (`\UXXXXXXXX` past U+FFFF). */
export function shown(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (!UNSAFE.test(char)) out += char;
    else
      out += code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return out;
}
