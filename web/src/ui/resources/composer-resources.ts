/**
 * Tool-server resources attached to the message being written: the Tool servers panel's Attach reads one
 * (in the worker, `mcp_read`) and it shows as a chip in the composer (`attachment`, `data-uri`, removable with
 * `attachment-remove`) until the message goes. What failed (too large, the server down) is said in
 * `resource-attach-notice`; the typed text is never touched.
 * On send, a text resource goes as its text (the runtime wraps it as outside text), an image blob as one of
 * the message's images when the model takes images, any other blob by its type and size.
 */

import type { AttachedResource, ImageAttachment, ImageMediaType } from "../../protocol/messages";
import type { RequestResult } from "../../protocol/main-worker-messages";
import type { ReadResource, ToolServerResource } from "../../protocol/tool-servers";
import { el } from "../common/dom";
import { IMAGE_MAX_BYTES, IMAGE_MEDIA_TYPES } from "../../protocol/messages";
import { ChipTray } from "../common/chip-tray";
import "./resources.css";

/** As runtime/tools/mcp_resources.py RESOURCES_PER_MESSAGE. */
export const RESOURCES_PER_MESSAGE = 8;

export interface ResourceHost {
  read(server: string, uri: string): Promise<RequestResult>;
  /** Whether the chosen model takes images (null: not known). */
  vision(): boolean | null;
}

export interface TakenResources {
  resources: AttachedResource[];
  images: ImageAttachment[];
}

export class ComposerResources {
  private readonly notice = el("div", {
    class: "composer-notice",
    "data-testid": "resource-attach-notice",
    role: "status",
    "aria-live": "polite",
  });
  private readonly tray: ChipTray<ReadResource>;
  private pending = 0;

  constructor(
    composer: HTMLElement,
    input: HTMLTextAreaElement,
    private readonly host: ResourceHost,
  ) {
    const tray = el("div", { class: "composer-resources", "aria-label": "Resources to send" });
    this.tray = new ChipTray(tray, input);
    this.notice.hidden = true;
    composer.prepend(this.notice, tray);
  }

  /** True while a resource is being read (Send waits for it). */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Read `resource` from `server` and show it as a chip, or say why not. */
  async attach(server: string, resource: ToolServerResource): Promise<void> {
    if (this.tray.values.some((read) => read.uri === resource.uri && read.server === server))
      return this.say(`${resource.uri} is attached already.`);
    if (this.tray.size >= RESOURCES_PER_MESSAGE)
      return this.say(`A message can carry at most ${RESOURCES_PER_MESSAGE} resources.`);
    this.say(`Reading ${resource.uri}…`);
    this.pending += 1;
    try {
      const result = await this.host.read(server, resource.uri);
      if (!result.ok) return this.say(`Not attached: ${result.message}`);
      this.say("");
      this.show(result.value as ReadResource);
    } finally {
      this.pending -= 1;
    }
  }

  /** The resources to send with the message now, emptied from the composer. */
  take(): TakenResources {
    const vision = this.host.vision() !== false;
    const taken: TakenResources = { resources: [], images: [] };
    for (const read of this.tray.take()) {
      const image = vision && read.blob !== undefined && isImage(read.mimeType) && read.size <= IMAGE_MAX_BYTES;
      if (image)
        taken.images.push({ media_type: read.mimeType as ImageMediaType, name: read.uri, data: read.blob ?? "" });
      taken.resources.push({
        server: read.server,
        uri: read.uri,
        name: read.name,
        size: read.size,
        ...(read.mimeType ? { mime_type: read.mimeType } : {}),
        ...(read.text !== undefined ? { text: read.text } : {}),
        ...(image ? { image: true } : {}),
      });
    }
    this.say("");
    return taken;
  }

  private show(read: ReadResource): void {
    const remove = el(
      "button",
      {
        type: "button",
        class: "resource-chip-remove",
        "data-testid": "attachment-remove",
        "aria-label": `Remove ${read.uri}`,
        title: "Remove",
      },
      "✕",
    );
    const what = read.text !== undefined ? "text" : (read.mimeType ?? "binary");
    const node = el(
      "span",
      {
        class: "resource-chip",
        "data-testid": "attachment",
        "data-uri": read.uri,
        title: `${read.uri} (${what}, ${read.size} bytes)`,
      },
      `📎 ${read.name}`,
      remove,
    );
    this.tray.add(read, node, remove);
  }

  private say(text: string): void {
    this.notice.textContent = text;
    this.notice.hidden = text === "";
  }
}

function isImage(mimeType: string | undefined): boolean {
  return mimeType !== undefined && (IMAGE_MEDIA_TYPES as readonly string[]).includes(mimeType);
}
