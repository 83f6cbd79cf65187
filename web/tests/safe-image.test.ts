/** What the page shows images and saves files as: only raster data: URLs, only octet-stream downloads. */

import { describe, expect, it } from "vitest";
import { DOWNLOAD_TYPE, downloadBlob } from "../src/ui/common/save-file";
import { FLUID_WIDTH, MAX_DRAWN_EDGE, drawnSize, isRaster, rasterDataUrl } from "../src/ui/images/safe-image";

describe("image URLs", () => {
  it.each(["image/png", "image/jpeg", "image/gif", "image/webp", "IMAGE/PNG"])(
    "%s is shown as it is, from data:",
    (type) => {
      expect(isRaster(type)).toBe(true);
      expect(rasterDataUrl("iVBORw0K", type)).toBe(`data:${type.toLowerCase()};base64,iVBORw0K`);
    },
  );

  it.each([
    "image/svg+xml",
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml;charset=utf-8",
    "",
    "image/png;x=<svg",
  ])("%j never becomes a URL as it is (it is drawn to a PNG first, or refused)", (type) => {
    expect(isRaster(type)).toBe(false);
    expect(rasterDataUrl("PHN2Zz4=", type)).toBeNull();
  });
});

describe("the size an SVG is drawn at", () => {
  it("its own size, times the screen's pixel ratio", () => {
    expect(drawnSize({ width: 10, height: 10 }, false, 1)).toEqual({
      css: { width: 10, height: 10 },
      pixels: { width: 10, height: 10 },
    });
    expect(drawnSize({ width: 480, height: 300 }, false, 2)).toEqual({
      css: { width: 480, height: 300 },
      pixels: { width: 960, height: 600 },
    });
  });

  it("the card's width when it has none of its own, in its ratio", () => {
    expect(drawnSize({ width: 200, height: 150 }, true, 1)).toEqual({
      css: { width: FLUID_WIDTH, height: 480 },
      pixels: { width: 640, height: 480 },
    });
  });

  it("never more than MAX_DRAWN_EDGE device pixels on its longer side, never under one", () => {
    const huge = drawnSize({ width: 20_000, height: 10 }, false, 3);
    expect(huge?.css).toEqual({ width: 20_000, height: 10 });
    expect(huge?.pixels.width).toBe(MAX_DRAWN_EDGE);
    expect(huge?.pixels.height).toBe(2);
    expect(drawnSize({ width: 20_000, height: 1 }, false, 1)?.pixels.height).toBe(1);
  });

  it.each([
    { width: 0, height: 10 },
    { width: 10, height: 0 },
    { width: Number.NaN, height: 5 },
  ])("no size (%j): nothing to draw", (natural) => {
    expect(drawnSize(natural, false, 1)).toBeNull();
  });
});

describe("downloads", () => {
  it.each(["<svg onload=alert(1)>", new TextEncoder().encode("<html><script>")])(
    "are octet-stream whatever they hold",
    async (content) => {
      const blob = downloadBlob(content);
      expect(blob.type).toBe(DOWNLOAD_TYPE);
      expect(DOWNLOAD_TYPE).toBe("application/octet-stream");
      expect(new Uint8Array(await blob.arrayBuffer())).toEqual(
        typeof content === "string" ? new TextEncoder().encode(content) : content,
      );
    },
  );
});
