/**
 * Images shown in the conversation, always as `<img src="data:image/…">` of a raster type (safe-image.ts:
 * an SVG is drawn to a PNG, so no script of it runs wherever the image is opened, and nothing shown has
 * the app's origin; no image markup is put into the page): the images a user message carries
 * (`message-image`), and the image files a tool call wrote, e.g. run_python's plots (`tool-image`).
 * Stored images are read one at a time from the runtime (`message_image`, `workspace_image`).
 */

import type { Answer, MessageImage, Requester, WorkspaceImage } from "../../protocol/requests";
import { IMAGE_MEDIA_TYPES, type ImageAttachment } from "../../protocol/messages";
import { el } from "../common/dom";
import { fromBase64 } from "../../protocol/base64";
import { shownImage, type ShownImage } from "./safe-image";
import "./attachments.css";

export interface StoredImageRef {
  id: number;
  name: string;
}

export interface LoadedImage {
  /** The image as a message carries it again (an edit or a regenerate); null for types models do not take (SVG). */
  attachment: ImageAttachment | null;
  shown: ShownImage;
  /** An SVG without a size of its own (width missing or in percent, as pygal writes): shown at the card's width. */
  fluid: boolean;
}

/** Whether an SVG's root element leaves its width open (read as text; the markup is never parsed into the page). */
export function fluidSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, 4096));
  const root = /<svg\b[^>]*>/i.exec(head)?.[0] ?? "";
  const width = /\swidth\s*=\s*["']([^"']*)["']/i.exec(root)?.[1];
  return width === undefined || width.trim().endsWith("%");
}

/** Reads stored images from the runtime, as data: URLs of raster types (each message image read once). */
export class ImageLoader {
  private readonly cache = new Map<string, Promise<LoadedImage | string>>();

  constructor(private readonly request: Requester) {}

  message(id: number): Promise<LoadedImage | string> {
    return this.once(`m${id}`, async () => this.load(await this.request("message_image", { id })));
  }

  workspace(path: string): Promise<LoadedImage | string> {
    return this.request("workspace_image", { path }).then((reply) => this.load(reply)); // the file may change between runs: never cached
  }

  private once(key: string, make: () => Promise<LoadedImage | string>): Promise<LoadedImage | string> {
    let found = this.cache.get(key);
    if (!found) {
      found = make();
      this.cache.set(key, found);
    }
    return found;
  }

  private async load(reply: Answer<MessageImage | WorkspaceImage>): Promise<LoadedImage | string> {
    if (!reply.ok) return reply.message;
    const v = reply.value;
    const name = ("name" in v ? v.name : v.path) || "image";
    const mediaType = IMAGE_MEDIA_TYPES.find((t) => t === v.media_type);
    const attachment = mediaType ? { media_type: mediaType, name, data: v.data } : null;
    const fluid = v.media_type === "image/svg+xml" && fluidSvg(fromBase64(v.data.slice(0, SVG_HEAD_BASE64)));
    const shown = await shownImage(v.data, v.media_type, fluid);
    return typeof shown === "string" ? shown : { attachment, shown, fluid };
  }
}

const SVG_HEAD_BASE64 = 5464; // base64 of the first 4098 bytes: enough for fluidSvg's look at the root element

function img(testid: string, shown: ShownImage, name: string): HTMLImageElement {
  const size = shown.width > 0 ? { width: String(shown.width), height: String(shown.height) } : {};
  return el("img", {
    src: shown.src,
    alt: name,
    title: name,
    "data-testid": testid,
    "data-name": name,
    loading: "lazy",
    decoding: "async",
    ...size,
  });
}

/** The images of a message just sent (their data: URLs already made). */
export function sentImages(images: readonly { src: string; attachment: ImageAttachment }[]): HTMLElement {
  return el(
    "div",
    { class: "message-images" },
    ...images.map((i) => img("message-image", { src: i.src, width: 0, height: 0 }, i.attachment.name)),
  );
}

/** The images of a stored message, filled in as they are read. */
export function storedImages(refs: readonly StoredImageRef[], loader: ImageLoader): HTMLElement {
  const box = el("div", { class: "message-images" });
  for (const ref of refs) {
    const slot = el("span", { class: "image-missing" }, `${ref.name}…`);
    box.append(slot);
    void loader
      .message(ref.id)
      .then((got) =>
        slot.replaceWith(
          typeof got === "string"
            ? el("span", { class: "image-missing" }, `${ref.name}: ${got}`)
            : img("message-image", got.shown, ref.name),
        ),
      );
  }
  return box;
}

/** The image files a tool call wrote, each with its path, read from the workspace now. */
export function toolImages(paths: readonly string[], loader: ImageLoader): HTMLElement {
  const box = el("div", { class: "tool-images", "aria-label": "Images the call wrote" });
  for (const path of paths) {
    const figure = el("figure", {}, el("span", { class: "image-missing" }, "loading…"), el("figcaption", {}, path));
    box.append(figure);
    void loader.workspace(path).then((got) => {
      if (typeof got !== "string") figure.classList.toggle("fluid", got.fluid);
      figure.firstElementChild?.replaceWith(
        typeof got === "string" ? el("span", { class: "image-missing" }, got) : img("tool-image", got.shown, path),
      );
    });
  }
  return box;
}
