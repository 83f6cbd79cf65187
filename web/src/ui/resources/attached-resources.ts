/**
 * Which tool-server resources a user message carries, as the transcript shows them: after a send, the
 * composer's chips; after a reload, the runtime's wrappers in the stored text (runtime/tools/mcp_resources.py:
 * `<untrusted_content source="resource URI from tool server NAME" kind="resource">`, then a note line),
 * which are taken out of the shown text and listed by URI (`message-resource`).
 */

import { el } from "../common/dom";

const BLOCK =
  /\n*<untrusted_content source="resource ([^"]*) from tool server ([^"]*)" kind="resource">\n[\s\S]*?\n<\/untrusted_content>\n[^\n]*/g;

export interface ShownResource {
  uri: string;
  server: string;
}

/** The stored text without its resource blocks, and the resources they name. */
export function splitAttached(text: string): { text: string; resources: ShownResource[] } {
  const resources: ShownResource[] = [];
  const shown = text.replace(BLOCK, (_, uri: string, server: string) => {
    resources.push({ uri: unescape(uri), server: unescape(server) });
    return "";
  });
  return { text: resources.length ? shown.trim() : text, resources };
}

/** Name the message's resources above its text. */
export function showAttached(node: HTMLElement, resources: readonly ShownResource[]): void {
  if (resources.length === 0) return;
  const list = el(
    "ul",
    { class: "message-resources", "aria-label": "Attached resources" },
    ...resources.map((r) =>
      el(
        "li",
        { class: "message-resource", "data-testid": "message-resource", "data-uri": r.uri, title: `from ${r.server}` },
        `📎 ${r.uri}`,
      ),
    ),
  );
  node.querySelector(".message-body")?.before(list);
}

/** html.escape(quote=True)'s entities back to their characters. */
function unescape(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
