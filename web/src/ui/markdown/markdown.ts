/**
 * Assistant text as sanitized markdown: markdown-it without raw HTML (code blocks highlighted through
 * its `highlight` hook once the highlighter has loaded), then DOMPurify. `renderInto` also gives each
 * code block its `code-copy` button.
 */

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { codeLanguage, decorateCodeBlocks } from "./code-blocks";
import { highlightCode } from "./highlight-loader";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, highlight: highlightCode });

/** Where a link may go: out of the app only. A relative, `blob:` or `filesystem:` link would open a
 * document of the app's origin (a blob of SVG or HTML runs its scripts with the app's storage). */
export const LINK_SCHEMES = /^(?:https?|mailto):/i;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (href !== null && !LINK_SCHEMES.test(href.trim())) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

// No images: a model could be steered into "showing" an image whose URL carries data out. Set once:
// a configuration passed to every `sanitize` call is parsed again each time (once per streamed frame).
// The sanitized nodes themselves are kept (a fragment): not written out as HTML and parsed once more.
DOMPurify.setConfig({
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["img", "style", "form", "input"],
  FORBID_ATTR: ["style"],
  RETURN_DOM_FRAGMENT: true,
});

/** `html` sanitized (the configuration set above): nodes, ready to insert. */
function sanitized(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true });
}

/** `text` as markdown: sanitized nodes, ready to insert. */
export function renderMarkdown(text: string): DocumentFragment {
  return sanitized(md.render(text));
}

/**
 * Each of `pieces` as markdown in a `div` of class `className`, sanitized in one pass, code blocks with their
 * copy buttons. Each piece is rendered on its own, as `renderInto` would; only DOMPurify's parse is shared: it
 * makes a document for every call, and a streamed frame's finished text comes in dozens of 4 KB blocks.
 * markdown-it without raw HTML writes balanced, escaped HTML, so no piece reaches into another's `div`.
 */
export function renderBlocks(pieces: readonly string[], className: string): DocumentFragment {
  const open = `<div class="${className}">`;
  const fragment = sanitized(pieces.map((piece) => open + md.render(piece) + "</div>").join(""));
  decorateCodeBlocks(fragment);
  return fragment;
}

/** Show `text` as markdown inside `target`, code blocks with their copy buttons. */
export function renderInto(target: HTMLElement, text: string): void {
  target.replaceChildren(renderMarkdown(text));
  decorateCodeBlocks(target);
}

/** How long one task highlights code in place before it lets the page go on (a frame's share). */
const HIGHLIGHT_SLICE_MS = 8;

/**
 * Highlight in place the code blocks under `root` drawn plain, before the highlighter had loaded: each block's
 * own text and label, through the same hook markdown-it calls, its HTML sanitized as any other. Nothing else is
 * drawn again (a long reply drawn whole would cost a frame or more for its code alone), and the blocks are taken
 * a few milliseconds at a time (2,400 of them at once held the page for ~400 ms).
 */
export function highlightPlainCode(root: ParentNode): void {
  inSlices(plainCode(root));
}

/** Highlight the code drawn plain in the finished assistant replies in `list` (all but those in `skip`). */
export function highlightRepliesCode(list: HTMLElement, skip: ReadonlySet<Element>): void {
  const replies = list.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="assistant"]');
  inSlices([...replies].filter((node) => !skip.has(node)).flatMap(plainCode));
}

function plainCode(root: ParentNode): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>("pre > code")].filter((code) => code.childElementCount === 0);
}

function inSlices(codes: readonly HTMLElement[], from = 0): void {
  const until = performance.now() + HIGHLIGHT_SLICE_MS;
  let next = from;
  while (next < codes.length && performance.now() < until) highlightInPlace(codes[next++]!);
  if (next < codes.length) setTimeout(() => inSlices(codes, next), 0);
}

function highlightInPlace(code: HTMLElement): void {
  if (!code.isConnected || code.childElementCount > 0) return; // gone, or highlighted meanwhile
  const html = highlightCode(code.textContent ?? "", codeLanguage(code));
  if (html) code.replaceChildren(sanitized(html));
}
