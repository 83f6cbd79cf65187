"""Exporting a session as Markdown and as JSON."""

from __future__ import annotations

import json

import pytest

from runtime.store import Store


@pytest.fixture
def session_id(store: Store) -> str:
    sid = store.create_session("Export me", model="test/model").id
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a.md"}'}}
    store.append_message(sid, "user", "Read a.md please", turn_id="t1")
    store.append_message(sid, "assistant", "", tool_calls=[call], turn_id="t1")
    store.ledger_append(sid, "c1", "read_file", {"path": "a.md"}, turn_id="t1")
    store.ledger_update("c1", status="ok", result_summary="2 lines")
    store.append_message(sid, "tool", "line with ``` fence\nsecond", tool_call_id="c1", name="read_file", turn_id="t1")
    store.append_message(sid, "assistant", "It has **two** lines.", turn_id="t1")
    store.append_message(sid, "assistant", "Cut o", status="interrupted", turn_id="t2")
    return sid


def test_markdown_export(store: Store, session_id: str) -> None:
    md = store.export_markdown(session_id)
    assert md.startswith("# Export me\n")
    assert "- Model: test/model" in md
    assert md.index("## User\n\nRead a.md please") < md.index("## Assistant\n\nIt has **two** lines.")
    assert "**Tool call** `read_file` — ok" in md
    assert '```json\n{"path":"a.md"}\n```' in md
    # a tool result containing a fence is wrapped in a longer fence, so it cannot break out
    assert "## Tool result: `read_file`\n\n````\nline with ``` fence\nsecond\n````" in md
    assert "## Assistant (interrupted)\n\nCut o" in md


def test_json_export(store: Store, session_id: str) -> None:
    doc = store.export_json(session_id)
    text = json.dumps(doc)  # JSON-ready as it is
    assert json.loads(text) == doc
    assert (doc["format"], doc["version"]) == ("tidepool.session", 1)
    assert doc["session"]["title"] == "Export me"
    assert [m["role"] for m in doc["messages"]] == ["user", "assistant", "tool", "assistant", "assistant"]
    assert doc["messages"][1]["tool_calls"][0]["id"] == "c1"
    assert doc["messages"][4]["status"] == "interrupted"
    assert [(c["call_id"], c["status"], c["result_summary"]) for c in doc["tool_calls"]] == [("c1", "ok", "2 lines")]
