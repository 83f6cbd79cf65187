"""Importing sessions: Tidepool's own export round-trips exactly; chats from other apps keep their branches."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.chat_import import read_export
from runtime.store import Store
from runtime.store.errors import StoreError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "chat_import"


@pytest.fixture
def exported(store: Store) -> dict[str, Any]:
    sid = store.create_session("Round trip", model="test/model").id
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a.md"}'}}
    store.append_message(sid, "user", [{"type": "text", "text": "Read a.md"}], turn_id="t1")
    store.append_message(
        sid, "assistant", "", tool_calls=[call], turn_id="t1", reasoning="Look first.",
        reasoning_details=[{"type": "reasoning.text", "text": "Look first.", "signature": "sig"}],
    )  # fmt: skip
    store.ledger_append(sid, "c1", "read_file", {"path": "a.md"}, turn_id="t1")
    store.ledger_update("c1", status="ok", result_summary="2 lines")
    store.append_message(sid, "tool", "two\nlines", tool_call_id="c1", name="read_file", turn_id="t1")
    store.append_message(sid, "assistant", "Two lines.", turn_id="t1", finish_reason="stop", meta={"usage": {"in": 5}})
    store.append_message(sid, "assistant", "Cut o", status="interrupted", turn_id="t2")
    return store.export_json(sid)


def test_a_tidepool_export_round_trips_exactly_into_an_empty_profile(exported: dict[str, Any]) -> None:
    with Store() as fresh:
        session = fresh.import_session_document(exported)
        assert session.id == exported["session"]["id"]
        assert fresh.export_json(session.id) == exported


def test_a_session_with_branches_round_trips_with_every_version(store: Store) -> None:
    sid = store.create_session("Versions").id
    store.append_message(sid, "user", "first try", turn_id="t1")
    store.append_message(sid, "assistant", "answer one", turn_id="t1")
    store.supersede_turn(sid, "t1")
    store.append_message(sid, "user", "second try", turn_id="t2")
    store.append_message(sid, "assistant", "answer two", turn_id="t2")
    exported = store.export_json(sid)
    assert [m["kind"] for m in exported["messages"]] == ["superseded", "superseded", "message", "message"]
    with Store() as fresh:
        fresh.import_session_document(exported)
        assert fresh.export_json(sid) == exported
        assert [v.content for v in next(iter(fresh.versions(sid).values()))] == ["first try", "second try"]


def test_importing_the_same_export_twice_makes_a_second_session(store: Store, exported: dict[str, Any]) -> None:
    again = store.import_session_document(exported)
    assert again.id != exported["session"]["id"]
    doc = store.export_json(again.id)
    new_call = doc["tool_calls"][0]["call_id"]
    assert new_call != "c1" and doc["messages"][1]["tool_calls"][0]["id"] == new_call
    assert doc["messages"][2]["tool_call_id"] == new_call
    assert [m["content"] for m in doc["messages"]] == [m["content"] for m in exported["messages"]]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.update(format="other.app"), "not a Tidepool session export"),
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d["messages"][1].update(seq=1), "message 2 has no valid seq"),
        (lambda d: d["messages"][0].update(role="wizard"), "unknown role 'wizard'"),
        (lambda d: d.pop("messages"), "no messages"),
    ],
)
def test_a_bad_document_is_refused_and_nothing_is_stored(
    store: Store, exported: dict[str, Any], change: Callable[[dict[str, Any]], object], why: str
) -> None:
    before = len(store.list_sessions())
    bad = copy.deepcopy(exported)
    change(bad)
    with pytest.raises(StoreError, match=why):
        store.import_session_document(bad)
    assert len(store.list_sessions()) == before


def test_a_chatgpt_chat_keeps_its_shown_path_and_its_other_branch(store: Store) -> None:
    report = read_export((FIXTURES / "chatgpt_conversations.json").read_bytes(), "conversations.json")
    session = store.import_chat(report.chats[0])
    assert session.title == "Trip to Lisbon" and session.created == "2026-01-01T00:00:00.000Z"
    assert session.model == "gpt-5-thinking"
    shown = store.list_messages(session.id)
    assert [m.role for m in shown] == ["user", "assistant", "user", "assistant"]
    assert shown[3].reasoning == "The Gulbenkian fits day 1." and shown[0].created == "2026-01-01T00:00:01.000Z"
    earlier = [m for m in store.list_messages(session.id, earlier_branches=True) if m.kind == "superseded"]
    # the earlier reply comes with a copy of the message it answers: versions part at a user message
    assert [m.content for m in earlier] == ["Plan three days in Lisbon.", "Day 1: Alfama. Day 2: Belém. Day 3: Sintra."]
    assert earlier[0].parent is None and earlier[1].parent == earlier[0].seq
    (versions,) = store.versions(session.id).values()
    assert [v.in_view for v in versions] == [True, False]
    assert [m.role for m in store.context_messages(session.id)] == ["user", "assistant", "user", "assistant"]


def test_an_untitled_chat_is_named_from_its_first_message(store: Store) -> None:
    report = read_export((FIXTURES / "chatgpt_conversations.json").read_bytes(), "conversations.json")
    session = store.import_chat(report.chats[1])
    assert session.title == "Plot the numbers in this picture."  # not the placeholder of its image
