/**
 * docs/protocol.md rule 5 on the host side: a runtime message of a known type with missing or mistyped
 * fields (checked against the generated definition) is answered with `error` `bad_message`, naming the
 * message's id when it had one, and otherwise ignored. Unknown types are still skipped quietly.
 */

import { describe, expect, it } from "vitest";
import type { WireMessage } from "../src/protocol/codec";
import { AdapterHarness } from "./support/adapter-harness";

/** The adapter after the runtime's hello. */
function harness(): AdapterHarness {
  const h = new AdapterHarness();
  h.adapter.start();
  h.fromRuntime({ type: "hello", protocol: 1, capabilities: [], agent: "test" });
  return h;
}

const errors = (sent: WireMessage[]): WireMessage[] => sent.filter((m) => m.type === "error");

describe("a runtime message with bad fields", () => {
  it.each([
    {
      name: "a missing field",
      message: { type: "exec_request", id: "r4", code: "print(1)", files: {} },
      detail: "missing field 'timeout_s'",
    },
    {
      name: "a mistyped list",
      message: { type: "exec_request", id: "r5", code: "1", timeout_s: 5, files: {}, packages: "tabulate" },
      detail: "field 'packages' is not a list of strings",
    },
    {
      name: "a value outside its enumeration",
      message: { type: "flush_request", id: "r6", what: "everything", paths: [] },
      detail: 'field \'what\' is not one of "workspace", "state"',
    },
  ])("is answered with bad_message and its id: $name", ({ message, detail }) => {
    const h = harness();
    h.fromRuntime(message);
    expect(errors(h.toRuntime)).toEqual([
      { type: "error", code: "bad_message", message: `bad '${message.type}' message: ${detail}`, id: message.id },
    ]);
    expect(h.toRuntime.filter((m) => m.type === "exec_result")).toEqual([]);
  });

  it("is answered without an id when it had none, and the event does not reach the UI", () => {
    const h = harness();
    h.fromRuntime({ type: "event", event: { kind: "tool_finished", turn_id: "t1", call_id: "c1", name: "read_file" } });
    expect(errors(h.toRuntime)).toEqual([
      {
        type: "error",
        code: "bad_message",
        message: "bad 'event' message: field 'event' is not an object with a known 'kind'",
      },
    ]);
    expect(h.toMain.filter((m) => m.type === "event")).toEqual([]);
  });

  it("fails the UI request a broken reply answers, instead of leaving it waiting", () => {
    const h = harness();
    h.adapter.onMain({ type: "request", requestId: "ui-1", method: "ping", params: {} });
    const request = h.toRuntime.find((m) => m.type === "request");
    h.fromRuntime({ type: "reply", id: String(request?.id), ok: "yes" });
    expect(h.toMain).toContainEqual({
      type: "reply",
      requestId: "ui-1",
      result: { ok: false, code: "bad_message", message: "bad 'reply' message: field 'ok' is not a boolean" },
    });
  });

  it("of an unknown type is skipped without an answer", () => {
    const h = harness();
    h.fromRuntime({ type: "reasoning_delta", text: "hm" });
    expect(errors(h.toRuntime)).toEqual([]);
  });
});
