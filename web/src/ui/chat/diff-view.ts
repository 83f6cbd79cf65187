/**
 * The approval card's preview: a unified diff (what write_file / edit_file would change) shown line
 * by line with added lines green and removed lines red; any other preview text is shown as is.
 */

import "./diff-view.css";
import { el } from "../common/dom";

export type DiffLineKind = "add" | "del" | "hunk" | "file" | "context";

export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

/** True when the text looks like a unified diff (has a hunk header or ---/+++ file lines). */
export function looksLikeDiff(text: string): boolean {
  const lines = text.split("\n");
  return (
    lines.some((l) => l.startsWith("@@")) ||
    (lines.some((l) => l.startsWith("--- ")) && lines.some((l) => l.startsWith("+++ ")))
  );
}

/** A `<pre class="tool-preview">`; a diff gets one span per line with a `diff-<kind>` class. */
export function renderPreview(text: string): HTMLElement {
  const pre = el("pre", { class: "tool-preview" });
  if (!looksLikeDiff(text)) {
    pre.textContent = text;
    return pre;
  }
  pre.classList.add("tool-diff");
  const lines = text.replace(/\n$/, "").split("\n");
  pre.append(...lines.map((line) => el("span", { class: `diff-line diff-${diffLineKind(line)}` }, `${line}\n`)));
  return pre;
}

/** The `code` argument of a call (run_python) when it is a string, else null. */
export function codeArgument(args: unknown): string | null {
  let value = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null) return null;
  const code = (value as Record<string, unknown>).code;
  return typeof code === "string" ? code : null;
}
