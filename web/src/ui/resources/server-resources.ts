/**
 * A connected server's resources in its Tool servers entry: a toggle (`tool-server-resources`, with the count)
 * opens the list, one `tool-server-resource` (`data-uri`) each with its name, type and size, and an Attach
 * button (`resource-attach`) that puts it in the message being written (composer-resources.ts). Templates
 * (a URI with variables) are listed, not attached.
 */

import type { ToolServerResource } from "../../protocol/tool-servers";
import { el } from "../common/dom";

export type AttachResource = (server: string, resource: ToolServerResource) => void;

/** The entry's resources part; `open` says whether the list shows, `toggle` flips it. */
export function serverResources(
  server: string,
  resources: readonly ToolServerResource[],
  open: boolean,
  toggle: () => void,
  attach: AttachResource,
): HTMLElement | null {
  if (resources.length === 0) return null;
  const button = el(
    "button",
    {
      type: "button",
      class: "btn btn-ghost btn-small",
      "data-testid": "tool-server-resources",
      "aria-expanded": String(open),
    },
    `${resources.length} resource${resources.length === 1 ? "" : "s"}`,
  );
  button.addEventListener("click", toggle);
  const list = open
    ? el("ul", { class: "tool-server-resource-list" }, ...resources.map((r) => item(server, r, attach)))
    : null;
  return el("div", { class: "tool-server-resources" }, button, list);
}

function item(server: string, resource: ToolServerResource, attach: AttachResource): HTMLElement {
  const facts = [resource.mimeType, resource.size === undefined ? undefined : size(resource.size)].filter(Boolean);
  let action: HTMLElement;
  if (resource.template) action = el("span", { class: "hint" }, "template");
  else {
    action = el(
      "button",
      {
        type: "button",
        class: "btn btn-small",
        "data-testid": "resource-attach",
        "aria-label": `Attach ${resource.uri}`,
      },
      "Attach",
    );
    action.addEventListener("click", () => attach(server, resource));
  }
  return el(
    "li",
    { class: "tool-server-resource", "data-testid": "tool-server-resource", "data-uri": resource.uri },
    el("span", { class: "tool-server-resource-name", title: resource.uri }, resource.title ?? resource.name),
    facts.length ? el("span", { class: "hint" }, facts.join(", ")) : null,
    action,
  );
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
