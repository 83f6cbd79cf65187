import { describe, expect, it } from "vitest";
import type { WireMessage } from "../src/protocol/codec";
import type { FlushOutcome } from "../src/worker/persistence";
import { AdapterHarness } from "./support/adapter-harness";

async function replyTo(flusher: () => Promise<FlushOutcome>): Promise<WireMessage | undefined> {
  const h = new AdapterHarness();
  h.adapter.enableFlush(flusher);
  h.adapter.start();
  h.fromRuntime({ type: "hello", protocol: 1 });
  h.fromRuntime({ type: "flush_request", id: "r7", what: "state", paths: ["current.sqlite"], rotate: false });
  await h.until(() => h.sent("reply").length > 0, 2000);
  expect(h.toRuntime[0]).toMatchObject({ type: "hello", capabilities: expect.arrayContaining(["flush"]) });
  return h.sent("reply")[0];
}

describe("every flush_request is answered (the runtime waits for it)", () => {
  it.each([
    ["saved", () => Promise.resolve<FlushOutcome>({ ok: true }), { ok: true, result: {} }],
    [
      "quota",
      () => Promise.resolve<FlushOutcome>({ ok: false, code: "quota_exceeded", message: "full" }),
      { ok: false, error: { code: "quota_exceeded", message: "full" } },
    ],
    [
      "flusher threw",
      () => Promise.reject(new Error("disk gone")),
      { ok: false, error: { code: "storage_failed", message: "saving failed: disk gone" } },
    ],
  ])("%s", async (_name, flusher, expected) => {
    expect(await replyTo(flusher)).toMatchObject({ type: "reply", id: "r7", ...expected });
  });
});
