/**
 * The chat's images in one place: the composer's attachments, the images shown in user messages and
 * tool cards, and the images a user message carries again when it is edited or regenerated.
 */

import { isJsonObject } from "../../protocol/codec";
import type { ImageAttachment } from "../../protocol/messages";
import type { RequestResult } from "../../protocol/main-worker-messages";
import type { WorkspaceRequest } from "../../protocol/workspace";
import { byTestId } from "../common/dom";
import { ComposerAttachments, type SentImage } from "./composer-attachments";
import type { Requester } from "../../protocol/requests";
import { ImageLoader, sentImages, storedImages, type StoredImageRef } from "./message-images";
import { ComposerResources } from "../resources/composer-resources";

export interface ChatMediaDeps {
  request: Requester;
  workspace(request: WorkspaceRequest): Promise<RequestResult>;
  /** Read a tool server's resource (the worker's `mcp_read`). */
  readResource(server: string, uri: string): Promise<RequestResult>;
  /** Whether the chosen model takes images (null: not known), and its id. */
  vision(): boolean | null;
  model(): string | null;
}

/** The chat's images, wired to the page: the composer, the chat area, the runtime's image requests. */
export function mountChatMedia(deps: ChatMediaDeps): ChatMedia {
  const input = byTestId<HTMLTextAreaElement>("chat-input");
  const composer = input.closest<HTMLElement>(".composer") ?? input;
  const chatArea = input.closest<HTMLElement>(".chat") ?? composer;
  const attachments = new ComposerAttachments(composer, input, chatArea, {
    vision: () => deps.vision(),
    model: () => deps.model(),
    toWorkspace: async (files) => {
      const data = await Promise.all(
        files.map(async (f) => ({ name: f.name, data: new Uint8Array(await f.arrayBuffer()) })),
      );
      const reply = await deps.workspace({ op: "upload", files: data });
      if (!reply.ok) return reply.message;
      const changed = isJsonObject(reply.value) && Array.isArray(reply.value.changed) ? reply.value.changed : [];
      return changed.filter((n): n is string => typeof n === "string");
    },
  });
  const resources = new ComposerResources(composer, input, {
    read: (server, uri) => deps.readResource(server, uri),
    vision: () => deps.vision(),
  });
  return new ChatMedia(attachments, new ImageLoader(deps.request), resources);
}

export class ChatMedia {
  private readonly carried = new WeakMap<HTMLElement, () => Promise<ImageAttachment[]>>();

  constructor(
    readonly attachments: ComposerAttachments,
    readonly loader: ImageLoader,
    readonly resources: ComposerResources | null = null,
  ) {}

  /** Show the images just sent in their message. */
  showSent(node: HTMLElement, images: readonly SentImage[]): void {
    if (images.length === 0) return;
    node.querySelector(".message-body")?.before(sentImages(images));
    const attachments = images.map((i) => i.attachment);
    this.carried.set(node, () => Promise.resolve(attachments));
  }

  /** Show a stored message's images (read one by one). */
  showStored(node: HTMLElement, refs: readonly StoredImageRef[]): void {
    if (refs.length === 0) return;
    node.querySelector(".message-body")?.before(storedImages(refs, this.loader));
    this.carried.set(node, async () => {
      const loaded = await Promise.all(refs.map((r) => this.loader.message(r.id)));
      return loaded.flatMap((l) => (typeof l === "string" || !l.attachment ? [] : [l.attachment]));
    });
  }

  /** The images a user message carries, to send again with it. */
  imagesOf(node: HTMLElement): Promise<ImageAttachment[]> {
    return this.carried.get(node)?.() ?? Promise.resolve([]);
  }
}
