/**
 * Syntax highlighting for code blocks: highlight.js core with a bundled set of common languages.
 * Loaded only by a dynamic import (highlight-loader.ts) the first time a reply holds a code block,
 * so the first paint does not pay for it.
 */

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Guessing the language of an unlabelled block costs a pass per language: only for blocks up to this size, */
const AUTO_MAX_CHARS = 20_000;
/** ... and from this size (nothing to gain on a line or two). */
const AUTO_MIN_CHARS = 24;
/**
 * The languages a guess chooses from: all but those whose grammar alone takes about 50 ms to compile
 * (Java) or that a guess rarely needs (C++ reads as C, a shell session as Bash). Labelled blocks use any.
 */
const GUESS = [
  "bash",
  "c",
  "css",
  "diff",
  "go",
  "javascript",
  "json",
  "markdown",
  "python",
  "rust",
  "sql",
  "typescript",
  "xml",
  "yaml",
];
const HIGHLIGHT_MAX_CHARS = 200_000;

/**
 * The block's HTML (escaped, with `hljs-*` spans), or "" to leave it to markdown-it's plain escaping.
 * `guess`: whether an unlabelled block's language may be guessed (not in a reply's streaming tail,
 * which is drawn again every frame; the finished reply is drawn once more with guessing).
 */
export function highlight(code: string, lang: string, guess = true): string {
  if (code.length > HIGHLIGHT_MAX_CHARS) return "";
  const name = lang.trim().toLowerCase();
  try {
    if (name && hljs.getLanguage(name)) return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    if (!name && guess && code.length >= AUTO_MIN_CHARS && code.length <= AUTO_MAX_CHARS) {
      return hljs.highlightAuto(code, GUESS).value;
    }
  } catch (err) {
    console.warn("[highlight] a code block could not be highlighted:", err);
  }
  return "";
}

/**
 * Compile the grammars a guess uses ahead of need, one per idle moment: highlight.js compiles a
 * grammar on its first use, and the first guess would compile them all at once (about 100 ms: frames
 * dropped while a reply streams).
 */
export function warmUp(idle: (work: () => void) => void = whenIdle): void {
  const names = [...GUESS];
  const next = (): void => {
    const name = names.shift();
    if (name === undefined) return;
    hljs.highlight("", { language: name });
    idle(next);
  };
  idle(next);
}

function whenIdle(work: () => void): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(work, { timeout: 5_000 });
  else setTimeout(work, 50);
}
