/**
 * The adapter's wiring for the files panel and the sandbox: an `exec_request` runs through the exec
 * hook and its result (deleted files, a structured error) is framed as is, a runtime `cancel` for an
 * exec id reaches the sandbox, and every workspace flush tells the main thread what changed.
 */

import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, type WireMessage } from "../src/protocol/codec";
import { failure } from "../src/sandbox/messages";
import { Adapter, type AdapterIO } from "../src/worker/adapter";
import type { WorkerToMain } from "../src/worker/bridge";
import { toOutcome } from "../src/worker/sandbox-exec";

function harness(extra: Partial<AdapterIO> = {}) {
  const toRuntime: WireMessage[] = [];
  const toMain: WorkerToMain[] = [];
  const decoder = new FrameDecoder();
  const adapter = new Adapter({
    toRuntime: (bytes) => {
      for (const item of decoder.feed(bytes)) if (item.kind === "message") toRuntime.push(item.message);
    },
    toMain: (m) => toMain.push(m),
    appOrigin: "http://127.0.0.1:1",
    ...extra,
  });
  const fromRuntime = (m: WireMessage): void => adapter.onRuntimeBytes(encodeFrame(m));
  const until = async (check: () => boolean): Promise<void> => {
    const end = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out; sent: ${JSON.stringify(toRuntime)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { adapter, toRuntime, toMain, fromRuntime, until };
}

describe("exec wiring", () => {
  it("frames a timed-out run with its structured error and deleted files", async () => {
    const result = { ...failure("r4", "timeout", "stopped after 3 s"), deleted: ["old.txt"] };
    const h = harness({ exec: () => Promise.resolve(toOutcome(result)) });
    h.fromRuntime({ type: "exec_request", id: "r4", code: "while True: pass", timeout_s: 3, files: {} });
    await h.until(() => h.toRuntime.some((m) => m.type === "exec_result"));
    expect(h.toRuntime.find((m) => m.type === "exec_result")).toEqual({
      type: "exec_result",
      id: "r4",
      ok: false,
      stdout: "",
      stderr: "",
      files: {},
      deleted: ["old.txt"],
      error: { kind: "timeout", message: "stopped after 3 s" },
    });
  });

  it("passes a runtime cancel on to the sandbox", () => {
    const seen: string[] = [];
    const h = harness({ cancelExec: (id) => seen.push(id) });
    h.fromRuntime({ type: "cancel", id: "r7" });
    expect(seen).toEqual(["r7"]);
  });
});

describe("workspace change notices", () => {
  it.each([
    { id: "with-storage", storage: true },
    { id: "without-storage", storage: false },
  ])("posts workspace_changed after a workspace flush ($id)", async ({ storage }) => {
    const h = harness();
    if (storage) h.adapter.enableFlush(() => Promise.resolve({ ok: true }));
    h.fromRuntime({ type: "flush_request", id: "r2", what: "workspace", paths: ["notes/a.md", 3] });
    h.fromRuntime({ type: "flush_request", id: "r3", what: "state", paths: ["current.sqlite"], rotate: true });
    await h.until(() => h.toMain.some((m) => m.type === "workspace_changed"));
    await new Promise((r) => setTimeout(r, 20));
    expect(h.toMain.filter((m) => m.type === "workspace_changed")).toEqual([{ type: "workspace_changed", paths: ["notes/a.md"] }]);
  });
});
