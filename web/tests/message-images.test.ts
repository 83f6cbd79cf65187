/** Images in the chat: which SVGs get the card's width, and base64 both ways for message images. */

import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "../src/protocol/base64";
import { fluidSvg } from "../src/ui/images/message-images";

const svg = (root: string): Uint8Array => new TextEncoder().encode(`<?xml version="1.0"?>\n${root}<rect/></svg>`);

describe("an SVG's own size", () => {
  it.each([
    { root: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 600">', fluid: true, why: "no width" },
    { root: '<svg width="100%" viewBox="0 0 800 600">', fluid: true, why: "a percent width (pygal)" },
    { root: "<svg width='640' height='480'>", fluid: false, why: "a width in pixels" },
    { root: '<svg width="10px">', fluid: false, why: "a width with a unit" },
    { root: '<svg\n  width = "50%">', fluid: true, why: "spaces and a line break" },
  ])("$why: fluid is $fluid", ({ root, fluid }) => {
    expect(fluidSvg(svg(root))).toBe(fluid);
  });
});

describe("base64", () => {
  it("round-trips every byte value, and more than one slice of them", () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const text = toBase64(bytes);
    expect(text).toBe(Buffer.from(bytes).toString("base64"));
    expect(fromBase64(text)).toEqual(bytes);
  });
});
