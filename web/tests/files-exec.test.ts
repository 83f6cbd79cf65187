/**
 * The adapter's wiring for the files panel and the sandbox: an `exec_request` runs through the exec
 * hook and its result (deleted files, a structured error) is framed as is, a runtime `cancel` for an
 * exec id reaches the sandbox, and every workspace flush tells the main thread what changed.
 */

import { describe, expect, it } from "vitest";
import { failure } from "../src/protocol/sandbox-messages";
import { toOutcome } from "../src/worker/sandbox-exec";
import { AdapterHarness } from "./support/adapter-harness";

describe("exec wiring", () => {
  it("frames a timed-out run with its structured error and deleted files", async () => {
    const result = { ...failure("r4", "timeout", "stopped after 3 s"), deleted: ["old.txt"] };
    const h = new AdapterHarness({ exec: () => Promise.resolve(toOutcome(result)) });
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
    const h = new AdapterHarness({ cancelExec: (id) => seen.push(id) });
    h.fromRuntime({ type: "cancel", id: "r7" });
    expect(seen).toEqual(["r7"]);
  });
});

describe("workspace change notices", () => {
  it.each([
    { id: "with-storage", storage: true },
    { id: "without-storage", storage: false },
  ])("posts workspace_changed after a workspace flush ($id)", async ({ storage }) => {
    const h = new AdapterHarness();
    if (storage) h.adapter.enableFlush(() => Promise.resolve({ ok: true }));
    h.fromRuntime({ type: "flush_request", id: "r2", what: "workspace", paths: ["notes/a.md"] });
    h.fromRuntime({ type: "flush_request", id: "r3", what: "state", paths: ["current.sqlite"], rotate: true });
    await h.until(() => h.toMain.some((m) => m.type === "workspace_changed"));
    await new Promise((r) => setTimeout(r, 20));
    expect(h.toMain.filter((m) => m.type === "workspace_changed")).toEqual([
      { type: "workspace_changed", paths: ["notes/a.md"] },
    ]);
  });
});
