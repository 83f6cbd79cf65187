/** Rendered code blocks get a `code-copy` button (its label drawn by CSS, so the code's text is unchanged). */

import { copyText } from "../common/clipboard";
import { el } from "../common/dom";
import "./code-blocks.css";

/** The language a rendered code block was labelled with (markdown-it's `language-` class), or "". */
export function codeLanguage(code: Element): string {
  return /language-([\w+#-]+)/.exec(code.className)?.[1] ?? "";
}

export function decorateCodeBlocks(root: ParentNode): void {
  for (const pre of root.querySelectorAll<HTMLPreElement>("pre")) {
    const code = pre.querySelector("code");
    if (!code || pre.querySelector('[data-testid="code-copy"]')) continue;
    const language = codeLanguage(code);
    const copy = el("button", {
      type: "button",
      class: "code-copy",
      "data-testid": "code-copy",
      "data-label": "Copy",
      title: "Copy the code",
      "aria-label": "Copy the code",
    });
    copy.addEventListener("click", () => {
      void copyText(code.textContent ?? "").then((ok) => {
        copy.dataset.label = ok ? "Copied" : "Copy failed";
        setTimeout(() => (copy.dataset.label = "Copy"), 1500);
      });
    });
    pre.classList.add("code-block");
    if (language) pre.dataset.language = language;
    pre.prepend(copy);
  }
}
