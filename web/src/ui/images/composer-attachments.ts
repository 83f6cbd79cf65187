/**
 * Images pasted or dropped into the composer, and files dropped on the chat.
 *
 * For a model that takes images (the model list's `vision`), a pasted or dropped image is prepared
 * (`image-prep.ts`) and shown as a thumbnail (`composer-attachment`, with `composer-attachment-remove`)
 * until the message goes. For a model that takes none, the composer says so
 * (`composer-attachment-notice`) and offers to put the image in the workspace instead
 * (`composer-attachment-to-workspace`). Any other file dropped on the composer, and every file dropped
 * elsewhere on the chat, is uploaded to the workspace and named in the message text.
 */

import { IMAGES_PER_MESSAGE, MESSAGE_IMAGES_MAX_BYTES, type ImageAttachment } from "../../protocol/messages";
import { el } from "../common/dom";
import { isImageFile, prepareImage, type PreparedImage } from "./image-prep";
import { rasterDataUrl } from "./safe-image";
import { ChipTray } from "../common/chip-tray";
import "./attachments.css";

export interface AttachmentHost {
  /** Whether the chosen model takes images: true, false, or null when not known. */
  vision(): boolean | null;
  model(): string | null;
  /** Upload files to the workspace root; the names written, or why not. */
  toWorkspace(files: File[]): Promise<string[] | string>;
}

export interface SentImage {
  attachment: ImageAttachment;
  /** A data: URL of the image (a raster type: safe-image.ts). */
  src: string;
}

export class ComposerAttachments {
  private readonly notice = el("div", {
    class: "composer-notice",
    "data-testid": "composer-attachment-notice",
    role: "status",
    "aria-live": "polite",
  });
  private readonly tray: ChipTray<{ prepared: PreparedImage; src: string }>;
  private pending = 0;

  constructor(
    composer: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    chatArea: HTMLElement,
    private readonly host: AttachmentHost,
  ) {
    const tray = el("div", { class: "composer-attachments", "aria-label": "Images to send" });
    this.tray = new ChipTray(tray, input);
    this.notice.hidden = true;
    composer.prepend(this.notice, tray);
    input.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])].filter(isImageFile);
      if (files.length === 0) return; // text pastes as usual
      e.preventDefault();
      void this.addImages(files);
    });
    chatArea.addEventListener("dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    });
    chatArea.addEventListener("drop", (e) => {
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      e.preventDefault();
      const onComposer = e.target instanceof Node && composer.contains(e.target);
      const images = onComposer ? files.filter(isImageFile) : [];
      void this.addImages(images);
      void this.upload(files.filter((f) => !images.includes(f)));
    });
  }

  /** True while images are still being prepared (Send waits for them). */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** The images to send with the message now, emptied from the composer. */
  take(): SentImage[] {
    const out = this.tray.take().map((i) => ({ attachment: i.prepared.attachment, src: i.src }));
    this.say("");
    return out;
  }

  private async addImages(files: File[]): Promise<void> {
    if (files.length === 0) return;
    if (this.host.vision() === false) return this.refuse(files);
    this.say("");
    this.pending += 1;
    try {
      for (const file of files) {
        if (this.tray.size >= IMAGES_PER_MESSAGE)
          return this.say(`A message can carry at most ${IMAGES_PER_MESSAGE} images.`);
        const prepared = await prepareImage(file);
        if (typeof prepared === "string") {
          this.say(prepared);
          continue;
        }
        const total = this.tray.values.reduce((n, i) => n + i.prepared.bytes.length, 0) + prepared.bytes.length;
        if (total > MESSAGE_IMAGES_MAX_BYTES) {
          this.say(
            `The images of one message may be ${MESSAGE_IMAGES_MAX_BYTES / (1024 * 1024)} MiB in all; “${prepared.attachment.name}” was not added.`,
          );
          continue;
        }
        this.show(prepared);
        if (prepared.scaled) this.say(`“${prepared.attachment.name}” was scaled down to fit.`);
      }
    } finally {
      this.pending -= 1;
    }
  }

  private show(prepared: PreparedImage): void {
    const name = prepared.attachment.name;
    const src = rasterDataUrl(prepared.attachment.data, prepared.attachment.media_type);
    if (!src) return this.say(`“${name}” could not be shown.`); // prepareImage gives raster types only
    const remove = el(
      "button",
      {
        type: "button",
        class: "attachment-remove",
        "data-testid": "composer-attachment-remove",
        "aria-label": `Remove ${name}`,
        title: "Remove",
      },
      "✕",
    );
    const node = el(
      "figure",
      { class: "attachment", "data-testid": "composer-attachment", "data-name": name },
      el("img", { src, alt: name }),
      remove,
    );
    this.tray.add({ prepared, src }, node, remove);
  }

  private refuse(files: File[]): void {
    const model = this.host.model() ?? "The chosen model";
    const offer = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "composer-attachment-to-workspace" },
      "Put it in the workspace instead",
    );
    offer.addEventListener("click", () => void this.upload(files));
    this.say(
      `${model} does not take images, so nothing was attached. Choose a model with the “vision” badge in Settings, or `,
      offer,
    );
  }

  private async upload(files: File[]): Promise<void> {
    if (files.length === 0) return;
    const written = await this.host.toWorkspace(files);
    if (typeof written === "string") return this.say(`Not added to the workspace: ${written}`);
    const names = written.map((n) => `\`${n}\``).join(", ");
    this.mention(`Attached: ${names} (in the workspace)`);
    this.say(`Added to the workspace: ${written.join(", ")}.`);
  }

  /** Name the files in the message being written (on a line of its own). */
  private mention(line: string): void {
    const text = this.input.value.replace(/\s+$/, "");
    this.input.value = text ? `${text}\n${line}` : line;
    this.input.dispatchEvent(new Event("input"));
    this.input.focus();
  }

  private say(text: string, ...extra: Node[]): void {
    this.notice.replaceChildren(text, ...extra);
    this.notice.hidden = text === "";
  }
}
