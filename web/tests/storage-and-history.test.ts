import { describe, expect, it } from "vitest";
import { parseSessionView } from "../src/ui/chat/session-view";
import { safeParts } from "../src/worker/persistence";

describe("workspace paths from flush_request", () => {
  it.each([
    ["notes/a.md", ["notes", "a.md"]],
    ["./notes//a.md", ["notes", "a.md"]],
    [".", []],
    ["", []],
    [".agents/skills/x/SKILL.md", [".agents", "skills", "x", "SKILL.md"]],
  ])("%j is kept as %j", (path, parts) => {
    expect(safeParts(path)).toEqual(parts);
  });

  it.each(["../x", "a/../../x", "/etc/passwd", "C:/x", "a\\b", "a\0b"])("%j is refused", (path) => {
    expect(() => safeParts(path)).toThrow(/unsafe workspace path/);
  });
});

describe("session views", () => {
  const view = {
    session: { id: "s-1", title: "Notes" },
    messages: [
      { seq: 1, role: "user", status: "complete", text: "write", tool_calls: [], images: [{ id: 7, media_type: "image/png", name: "a.png", size: 3 }, { id: "x" }] },
      {
        seq: 2,
        role: "assistant",
        status: "complete",
        text: "",
        tool_calls: [
          { call_id: "c1", name: "write_file", arguments: { path: "a" }, status: "ok", result: "wrote", images: ["plot.svg", 3] },
          { call_id: "c2", name: "delete_file", arguments: {}, status: "strange", result: null },
          { name: "no id" },
        ],
      },
      { seq: 3, role: "system", status: "complete", text: "hidden" },
    ],
    pending_approvals: [{ call_id: "c3", turn_id: "t2", name: "delete_file", arguments: { path: "a" } }],
    running_turn: "t2",
  };

  it("keeps what the chat shows, and reads unknown call statuses as interrupted", () => {
    const parsed = parseSessionView(view);
    expect(parsed?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(parsed?.messages[1]?.calls).toEqual([
      { callId: "c1", name: "write_file", arguments: { path: "a" }, status: "ok", result: "wrote", images: ["plot.svg"] },
      { callId: "c2", name: "delete_file", arguments: {}, status: "interrupted", result: null, images: [] },
    ]);
    expect(parsed?.messages[0]?.images).toEqual([{ id: 7, name: "a.png" }]); // an image without an id is left out
    expect(parsed?.messages[1]?.images).toEqual([]);
    expect(parsed?.pending).toEqual([{ callId: "c3", name: "delete_file", arguments: { path: "a" } }]);
    expect(parsed?.runningTurn).toBe("t2");
  });

  it.each([null, {}, { session: {} }, { session: { id: 3 } }])("%j is not a session view", (value) => {
    expect(parseSessionView(value)).toBeNull();
  });
});

describe("a long session's view", () => {
  it("says how many earlier messages it leaves out", () => {
    const base = { session: { id: "s1", title: "t" }, messages: [], pending_approvals: [], running_turn: null };
    expect(parseSessionView({ ...base, earlier: 412 })?.earlier).toBe(412);
    expect(parseSessionView(base)?.earlier).toBe(0);
    expect(parseSessionView({ ...base, earlier: "many" })?.earlier).toBe(0);
  });
});
