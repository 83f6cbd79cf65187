import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, type WireMessage } from "../src/protocol/codec";
import { Adapter } from "../src/worker/adapter";
import type { FlushOutcome } from "../src/worker/persistence";

/** An adapter whose frames to the runtime are decoded into `sent`. */
function adapterWith(flusher: () => Promise<FlushOutcome>): { adapter: Adapter; sent: WireMessage[] } {
  const sent: WireMessage[] = [];
  const decoder = new FrameDecoder();
  const adapter = new Adapter({
    toRuntime: (bytes) => {
      for (const item of decoder.feed(bytes)) if (item.kind === "message") sent.push(item.message);
    },
    toMain: () => undefined,
    appOrigin: "http://127.0.0.1:1",
  });
  adapter.enableFlush(flusher);
  adapter.start();
  adapter.onRuntimeBytes(encodeFrame({ type: "hello", protocol: 1 }));
  return { adapter, sent };
}

async function replyTo(flusher: () => Promise<FlushOutcome>): Promise<WireMessage | undefined> {
  const { adapter, sent } = adapterWith(flusher);
  adapter.onRuntimeBytes(encodeFrame({ type: "flush_request", id: "r7", what: "state", paths: ["current.sqlite"], rotate: false }));
  const end = Date.now() + 2000;
  while (!sent.some((m) => m.type === "reply") && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  expect(sent[0]).toMatchObject({ type: "hello", capabilities: expect.arrayContaining(["flush"]) });
  return sent.find((m) => m.type === "reply");
}

describe("every flush_request is answered (the runtime waits for it)", () => {
  it.each([
    ["saved", () => Promise.resolve<FlushOutcome>({ ok: true }), { ok: true, result: {} }],
    ["quota", () => Promise.resolve<FlushOutcome>({ ok: false, code: "quota_exceeded", message: "full" }), { ok: false, error: { code: "quota_exceeded", message: "full" } }],
    ["flusher threw", () => Promise.reject(new Error("disk gone")), { ok: false, error: { code: "storage_failed", message: "saving failed: disk gone" } }],
  ])("%s", async (_name, flusher, expected) => {
    expect(await replyTo(flusher)).toMatchObject({ type: "reply", id: "r7", ...expected });
  });
});
