import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, FrameTooLargeError, type DecodedItem } from "../src/protocol/codec";
import { fromB64, toB64, vectors, type ExpectedItem } from "./vectors";

/** Items as the vectors state them, with adjacent strays merged (stray splits are not significant). */
function normalize(items: DecodedItem[]): ExpectedItem[] {
  const out: ExpectedItem[] = [];
  let stray: number[] | null = null;
  const flush = (): void => {
    if (stray) out.push({ kind: "stray", data_b64: toB64(new Uint8Array(stray)) });
    stray = null;
  };
  for (const item of items) {
    if (item.kind === "stray") {
      stray = [...(stray ?? []), ...item.data];
      continue;
    }
    flush();
    out.push(
      item.kind === "message" ? { kind: "message", message: item.message } : { kind: "malformed", code: item.code },
    );
  }
  flush();
  return out;
}

function decodeInPieces(input: Uint8Array, maxFrame: number, cuts: number[]): DecodedItem[] {
  const decoder = new FrameDecoder(maxFrame);
  const items: DecodedItem[] = [];
  let at = 0;
  for (const cut of [...cuts, input.length]) {
    items.push(...decoder.feed(input.subarray(at, cut)));
    at = cut;
  }
  return items;
}

describe("encode vectors", () => {
  it.each(vectors.encode.map((v) => [v.name, v] as const))("%s", (_name, v) => {
    expect(toB64(encodeFrame(v.message))).toBe(v.frame_b64);
  });

  it("refuses a frame over the limit", () => {
    expect(() => encodeFrame({ type: "x", pad: "0123456789" }, 16)).toThrow(FrameTooLargeError);
  });

  it("refuses a message without a string type", () => {
    expect(() => encodeFrame({ type: 3 } as unknown as { type: string })).toThrow(TypeError);
  });

  it("round-trips through the decoder", () => {
    const message = { type: "text_delta", text: "a\u001eTP1:5:\n\u0000 ☃ 𝄞" };
    expect(normalize(new FrameDecoder().feed(encodeFrame(message)))).toEqual([{ kind: "message", message }]);
  });
});

describe("decode vectors", () => {
  it.each(vectors.decode.map((v) => [v.name, v] as const))("%s (whole input)", (_name, v) => {
    const items = decodeInPieces(fromB64(v.input_b64), v.max_frame, []);
    expect(normalize(items)).toEqual(v.expect);
  });

  it.each(vectors.decode.map((v) => [v.name, v] as const))("%s (split at every byte)", (_name, v) => {
    const input = fromB64(v.input_b64);
    for (let cut = 0; cut <= input.length; cut++) {
      expect(normalize(decodeInPieces(input, v.max_frame, [cut])), `split at ${cut}`).toEqual(v.expect);
    }
  });

  it.each(vectors.decode.map((v) => [v.name, v] as const))("%s (one byte at a time)", (_name, v) => {
    const input = fromB64(v.input_b64);
    const cuts = Array.from({ length: input.length }, (_, i) => i);
    expect(normalize(decodeInPieces(input, v.max_frame, cuts))).toEqual(v.expect);
  });
});

describe("size limit", () => {
  it("skips an oversized frame without buffering it", () => {
    const decoder = new FrameDecoder(1024);
    const head = new TextEncoder().encode("\x1eTP1:100000000:");
    expect(normalize(decoder.feed(head))).toEqual([{ kind: "malformed", code: "too_large" }]);
    // The payload streams past and is dropped as it arrives; nothing is reported for it.
    const junk = new Uint8Array(1_000_000).fill(0x61);
    for (let i = 0; i < 100; i++) expect(decoder.feed(junk)).toEqual([]);
    const next = encodeFrame({ type: "after" });
    expect(normalize(decoder.feed(new Uint8Array([0x0a, ...next])))).toEqual([
      { kind: "message", message: { type: "after" } },
    ]);
  });
});
