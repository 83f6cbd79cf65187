"""Delegation in real Pyodide: the chat's model delegates to ``explore``, whose request offers only the
explore tools and whose read runs in the child; the parent's next request gets the bounded result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pyodide.test_pyodide_runtime import CONFIG, STREAMS, _run

pytestmark = pytest.mark.pyodide


def _sse_call(name: str, arguments: dict[str, Any], call_id: str) -> str:
    delta = {
        "role": "assistant",
        "tool_calls": [
            {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    chunks = [
        {"choices": [{"index": 0, "delta": delta}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def _sse_text(text: str) -> str:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def test_a_delegated_turn_in_pyodide(tmp_path: Path) -> None:
    sse = "text/event-stream"
    delegate = _sse_call("delegate", {"agent": "explore", "task": "Read a.md"}, "d1")
    result = _run(
        tmp_path,
        {
            "timeout_ms": 90_000,
            "files": {"a.md": "the secret word is tidepool\n"},
            "send": [CONFIG, {"type": "user_message", "text": "Have explore read a.md", "turn_id": "t1"}],
            "responses": [
                {"status": 200, "type": sse, "body": delegate},
                {"status": 200, "type": sse, "body": _sse_call("read_file", {"path": "a.md"}, "r1")},
                {"status": 200, "type": sse, "body": _sse_text("It says the secret word is tidepool.")},
                {"status": 200, "type": sse, "body": (STREAMS / "openrouter_text.sse").read_text()},
            ],
            "until": "turn_finished",
        },
    )  # fmt: skip
    messages = result["received"]
    events = [m["event"] for m in messages if m["type"] == "event"]
    assert [e["reason"] for e in events if e["kind"] == "turn_finished"] == ["stop"]  # the child's stays inside
    tasks = [(e["agent"], e["status"], e["call_id"]) for e in events if e["kind"] == "agent_task"]
    assert tasks == [("explore", "running", "d1"), ("explore", "done", "d1")]
    assert [e["call_id"] for e in events if e["kind"] == "tool_finished"] == ["d1"]  # the child's read is its own
    bodies = [json.loads(m["body"]) for m in messages if m["type"] == "http_request"]
    assert len(bodies) == 4
    child_tools = {t["function"]["name"] for t in bodies[1]["tools"]}
    assert child_tools == {"list_files", "read_file", "search_files"}  # explore's (no skill: no activate_skill)
    assert "delegate" in {t["function"]["name"] for t in bodies[0]["tools"]}
    last = bodies[3]["messages"]
    (delegated,) = [m for m in last if m.get("role") == "tool"]
    assert "done" in delegated["content"] and "It says the secret word is tidepool." in delegated["content"]
    assert "r1" not in json.dumps(last)  # the child's call never reaches the parent's window
