/** Frames as an attacker writes them: nesting deep enough to exhaust a parser's stack (as in codec.py). */

import { describe, expect, it } from "vitest";
import { FrameDecoder, MAX_DEPTH, encodeFrame } from "../src/protocol/codec";

const encoder = new TextEncoder();

function rawFrame(payload: string): Uint8Array {
  const body = encoder.encode(payload);
  const head = encoder.encode(`\x1eTP1:${body.length}:`);
  const out = new Uint8Array(head.length + body.length + 1);
  out.set(head, 0);
  out.set(body, head.length);
  out[out.length - 1] = 0x0a;
  return out;
}

/** A message whose value nests arrays until the whole is `depth` containers deep. */
function nested(depth: number): string {
  return `{"type":"x","v":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const hello = { type: "hello", protocol: 1 };

describe("deeply nested frames", () => {
  it.each([MAX_DEPTH + 1, 5_000, 200_000])("%d levels: bad_message, and the next frame still arrives", (depth) => {
    const items = new FrameDecoder().feed(concat(rawFrame(nested(depth)), encodeFrame(hello)));
    expect(items.map((i) => i.kind)).toEqual(["malformed", "message"]);
    expect(items[0]).toMatchObject({ kind: "malformed", code: "bad_message" });
    expect(items[1]).toEqual({ kind: "message", message: hello });
  });

  it("counts objects like arrays", () => {
    const payload = `{"type":"x","v":${'{"a":'.repeat(MAX_DEPTH)}1${"}".repeat(MAX_DEPTH)}}`;
    const [item] = new FrameDecoder().feed(rawFrame(payload));
    expect(item).toMatchObject({ kind: "malformed", code: "bad_message" });
  });

  it("takes a message exactly MAX_DEPTH deep", () => {
    const [item] = new FrameDecoder().feed(rawFrame(nested(MAX_DEPTH)));
    expect(item?.kind).toBe("message");
  });
});
