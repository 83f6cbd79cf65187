/**
 * An image file made ready for a message: decoded (so a file that is not really an image is refused
 * here), scaled down so its longer side is at most MAX_EDGE, and re-encoded when it is too large or of
 * a type models do not take. What comes out is one of the types vision models take, at most
 * IMAGE_MAX_BYTES; anything else is a sentence saying why not.
 */

import { IMAGE_MAX_BYTES, IMAGE_MEDIA_TYPES, type ImageAttachment, type ImageMediaType } from "../../protocol/messages";
import { toBase64 } from "../../protocol/base64";

/** Longer side after scaling: what providers scale to anyway (more only costs tokens and bytes). */
export const MAX_EDGE = 2048;

function modelType(type: string): ImageMediaType | null {
  return IMAGE_MEDIA_TYPES.find((t) => t === type) ?? null;
}

export interface PreparedImage {
  attachment: ImageAttachment;
  bytes: Uint8Array;
  scaled: boolean;
}

const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

export function isImageFile(file: File): boolean {
  return file.type.startsWith("image/");
}

/** The image ready to send, or why it cannot go. */
export async function prepareImage(file: File): Promise<PreparedImage | string> {
  const name = file.name || "pasted image";
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return `“${name}” could not be read as an image.`;
  }
  try {
    const edge = Math.max(bitmap.width, bitmap.height);
    const asIs = modelType(file.type);
    if (asIs && file.size <= IMAGE_MAX_BYTES && edge <= MAX_EDGE) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      return { attachment: { media_type: asIs, name, data: toBase64(bytes) }, bytes, scaled: false };
    }
    const scale = Math.min(1, MAX_EDGE / edge);
    const canvas = new OffscreenCanvas(
      Math.max(1, Math.round(bitmap.width * scale)),
      Math.max(1, Math.round(bitmap.height * scale)),
    );
    const ctx = canvas.getContext("2d");
    if (!ctx) return `“${name}” could not be scaled down here.`;
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    for (const [type, quality] of [
      ["image/png", undefined],
      ["image/jpeg", 0.85],
      ["image/jpeg", 0.7],
    ] as const) {
      if (type === "image/png" && file.type !== "image/png") continue; // photos go to JPEG
      const blob = await canvas.convertToBlob({ type, quality });
      if (blob.size <= IMAGE_MAX_BYTES) {
        const bytes = new Uint8Array(await blob.arrayBuffer());
        return {
          attachment: { media_type: type, name: renamed(name, type), data: toBase64(bytes) },
          bytes,
          scaled: true,
        };
      }
    }
    return `“${name}” (${mib(file.size)}) is too large even scaled down; an image may be at most ${mib(IMAGE_MAX_BYTES)}.`;
  } finally {
    bitmap.close();
  }
}

function renamed(name: string, type: string): string {
  const ext = type === "image/png" ? ".png" : ".jpg";
  const dot = name.lastIndexOf(".");
  return `${dot > 0 ? name.slice(0, dot) : name}${ext}`;
}
