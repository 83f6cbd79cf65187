import { describe, expect, it } from "vitest";
import {
  checkAnswer,
  REQUEST_METHODS,
  REQUEST_RESULT_SHAPES,
  REQUEST_SHAPES,
  type RequestMethod,
} from "../src/protocol/requests";

const session = {
  id: "s-1",
  title: "Notes",
  created: "2026-11-29T10:00:00.000Z",
  updated: "2026-11-29T11:00:00.000Z",
  model: null,
};
const call = {
  call_id: "c1",
  name: "write_file",
  arguments: { path: "a" },
  status: "ok",
  decision: null,
  duration_ms: 3,
  ok: true,
  result: "wrote",
  images: ["plot.svg"],
};
const message = {
  seq: 1,
  role: "assistant",
  turn_id: "t1",
  status: "complete",
  text: "",
  created: "2026-11-29T10:00:00.000Z",
  tool_calls: [call],
  reasoning: "",
  finish_reason: null,
  images: [],
};
const view = {
  session,
  messages: [message],
  earlier: 0,
  later: 0,
  pending_approvals: [],
  running_turn: null,
  agent: "general",
  agent_tasks: [],
};

/** `value` with `path`'s last key set to `to` (a copy; the fixtures stay as they are). */
function changed(value: unknown, path: (string | number)[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1] ?? ""] = to;
  return copy;
}

describe("a reply's result is checked against its method's result shape, once, in the client", () => {
  it("every method has a result table", () => {
    for (const method of REQUEST_METHODS) expect(REQUEST_SHAPES[REQUEST_RESULT_SHAPES[method]], method).toBeDefined();
  });

  it("a session view that conforms comes through typed", () => {
    const answer = checkAnswer("session_current", { ok: true, value: view });
    expect(answer.ok && answer.value.messages[0]?.tool_calls[0]?.call_id).toBe("c1");
  });

  it.each<[string, RequestMethod, unknown, RegExp]>([
    ["a session without an id", "session_open", changed(view, ["session", "id"], 3), /field 'session'/],
    [
      "an unknown call status",
      "session_current",
      changed(view, ["messages", 0, "tool_calls", 0, "status"], "strange"),
      /field 'messages'/,
    ],
    [
      "an earlier count that is not a number",
      "session_current",
      changed(view, ["earlier"], "many"),
      /field 'earlier' is not a integer/,
    ],
    [
      "a sessions list with junk rows",
      "sessions_list",
      { current: null, sessions: [session, "junk"] },
      /field 'sessions'/,
    ],
    [
      "memories with a tag that is not text",
      "memory_list",
      { total: 1, memories: [{ id: 7, text: "t", tags: [3], pinned: true, created: "", updated: "" }] },
      /field 'memories'/,
    ],
    [
      "an import report of an unknown state",
      "skill_import",
      { state: "maybe", reason: "", message: "", needs_confirmation: false, skills: [] },
      /field 'state'/,
    ],
    ["a model list that is not a list", "list_models", { models: "many" }, /field 'models'/],
    ["a result that is not an object", "ping", "pong", /not an object/],
  ])("%s fails as bad_reply", (_name, method, value, detail) => {
    const answer = checkAnswer(method, { ok: true, value });
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.code).toBe("bad_reply");
    expect(answer.message).toContain(method);
    expect(answer.message).toMatch(detail);
  });

  it("a failure is passed on as it came", () => {
    expect(checkAnswer("skills_list", { ok: false, code: "timeout", message: "no answer" })).toEqual({
      ok: false,
      code: "timeout",
      message: "no answer",
    });
  });
});
