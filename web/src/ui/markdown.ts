/** Assistant text as sanitized markdown: markdown-it without raw HTML, then DOMPurify. */

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

export function renderMarkdown(text: string): string {
  // No images: a model could be steered into "showing" an image whose URL carries data out.
  return DOMPurify.sanitize(md.render(text), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["img", "style", "form", "input"],
    FORBID_ATTR: ["style"],
  });
}
