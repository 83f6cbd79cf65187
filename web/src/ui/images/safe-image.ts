/**
 * The one way the page turns image bytes (from the workspace, a run, a message, a model, an import) into
 * something it shows: a `data:` URL of a raster type, never a `blob:` URL. A `blob:` URL belongs to the
 * app's origin: opened as a document ("Open image in new tab", a drag, a navigation) an SVG's scripts run
 * there with the app's storage, the saved key included. A `data:` document has an opaque origin and
 * Chromium refuses to navigate a tab to one from the page; and since only raster types are ever put in
 * one, nothing runs in it wherever it is opened. SVG (and any other type) is drawn once, inside an
 * `<img>` where its scripts and handlers never run, onto a canvas and shown as the PNG that comes out.
 */

/** Types shown as they are: pixels only, no markup, nothing that runs. */
export const RASTER_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** CSS width an SVG without a size of its own is drawn for (the widest a tool card shows it). */
export const FLUID_WIDTH = 640;
/** Longest side of a drawn copy, in device pixels. */
export const MAX_DRAWN_EDGE = 4096;

export interface ShownImage {
  /** Always `data:image/<raster type>;base64,…`. */
  src: string;
  /** The size to show it at, in CSS pixels (a drawn copy has devicePixelRatio times as many pixels). */
  width: number;
  height: number;
}

export function isRaster(mediaType: string): boolean {
  return RASTER_TYPES.includes(mediaType.toLowerCase());
}

/** A `data:` URL for raster bytes already in base64; null for any type that is not a raster type. */
export function rasterDataUrl(base64: string, mediaType: string): string | null {
  return isRaster(mediaType) ? `data:${mediaType.toLowerCase()};base64,${base64}` : null;
}

/** The size to draw an image of `natural` size at: its own, or FLUID_WIDTH wide when it has none (kept in ratio). */
export function drawnSize(
  natural: { width: number; height: number },
  fluid: boolean,
  pixelRatio: number,
): { css: { width: number; height: number }; pixels: { width: number; height: number } } | null {
  if (!(natural.width > 0 && natural.height > 0)) return null;
  const width = fluid ? FLUID_WIDTH : natural.width;
  const height = fluid ? (FLUID_WIDTH * natural.height) / natural.width : natural.height;
  const ratio = Math.max(1, Math.min(pixelRatio, 3));
  const scale = Math.min(ratio, MAX_DRAWN_EDGE / Math.max(width, height));
  const px = (n: number): number => Math.max(1, Math.round(n * scale));
  return {
    css: { width: Math.round(width), height: Math.round(height) },
    pixels: { width: px(width), height: px(height) },
  };
}

/**
 * The image ready to show, or why it cannot be. Raster types come back as they are (sized by the browser:
 * width and height 0); anything else is drawn to a PNG, `fluid` giving it FLUID_WIDTH when it has no width.
 */
export async function shownImage(base64: string, mediaType: string, fluid = false): Promise<ShownImage | string> {
  const asIs = rasterDataUrl(base64, mediaType);
  if (asIs) return { src: asIs, width: 0, height: 0 };
  const img = new Image();
  img.src = `data:${mediaType.replace(/[^\w.+/-]/g, "")};base64,${base64}`;
  try {
    await img.decode();
  } catch {
    return "the image could not be read";
  }
  const size = drawnSize({ width: img.naturalWidth, height: img.naturalHeight }, fluid, window.devicePixelRatio || 1);
  if (!size) return "the image has no size to show it at";
  const canvas = new OffscreenCanvas(size.pixels.width, size.pixels.height);
  const ctx = canvas.getContext("2d");
  if (!ctx) return "the image could not be drawn here";
  ctx.drawImage(img, 0, 0, size.pixels.width, size.pixels.height);
  try {
    const png = await canvas.convertToBlob({ type: "image/png" });
    return { src: await blobDataUrl(png), ...size.css };
  } catch {
    return "this browser would not draw the image (an SVG with embedded HTML?)"; // a tainted canvas
  }
}

function blobDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === "string" ? resolve(reader.result) : reject(new Error("not read")));
    reader.onerror = () => reject(reader.error ?? new Error("not read"));
    reader.readAsDataURL(blob);
  });
}
