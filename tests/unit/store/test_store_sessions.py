"""Sessions, messages, settings, pending approvals and the tool-call ledger."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from runtime.store import Store, StoreError


def test_session_lifecycle(store: Store) -> None:
    a = store.create_session(model="m1")
    b = store.create_session("Second")
    assert a.id != b.id and a.id.startswith("s-")
    assert [s.id for s in store.list_sessions()] == [b.id, a.id]
    renamed = store.rename_session(a.id, "  Groceries  ")
    assert renamed.title == "Groceries" and renamed.updated > a.updated
    assert [s.id for s in store.list_sessions()] == [a.id, b.id]  # renaming touches it
    assert store.set_session_model(b.id, "m2").model == "m2"
    store.append_message(a.id, "user", "hi", turn_id="t1")
    store.ledger_append(a.id, "c1", "read_file", {"path": "x"}, turn_id="t1")
    store.approval_add(a.id, "c2", "write_file", {"path": "x"}, turn_id="t1")
    store.delete_session(a.id)
    assert [s.id for s in store.list_sessions()] == [b.id]
    assert store.list_messages(a.id) == []
    assert store.approvals_pending() == []
    with pytest.raises(StoreError) as err:
        store.ledger_get("c1")
    assert (err.value.code, err.value.entity) == ("not_found", "tool_call")


@pytest.mark.parametrize(
    ("call", "code"),
    [
        pytest.param(lambda s: s.get_session("nope"), "not_found", id="get-missing"),
        pytest.param(lambda s: s.rename_session("nope", "x"), "not_found", id="rename-missing"),
        pytest.param(lambda s: s.delete_session("nope"), "not_found", id="delete-missing"),
        pytest.param(lambda s: s.append_message("nope", "user", "x"), "not_found", id="append-missing"),
        pytest.param(lambda s: s.append_message(s.create_session().id, "robot", "x"), "invalid", id="bad-role"),
        pytest.param(
            lambda s: s.append_message(s.create_session().id, "user", "x", status="done"), "invalid", id="bad-status"
        ),
        pytest.param(lambda s: s.get_message(s.create_session().id, 1), "not_found", id="no-message"),
        pytest.param(lambda s: s.approval_resolve("nope"), "not_found", id="no-approval"),
        pytest.param(lambda s: s.ledger_update("nope", status="ok"), "not_found", id="no-call"),
    ],
)
def test_errors_have_codes(store: Store, call: Any, code: str) -> None:
    with pytest.raises(StoreError) as err:
        call(store)
    assert err.value.code == code


def test_messages_in_order_with_fields(store: Store) -> None:
    sid = store.create_session().id
    calls = [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a"}'}}]
    first = store.append_message(sid, "user", "Plan a trip to Lisbon in May, with trains", turn_id="t1")
    store.append_message(sid, "assistant", "", tool_calls=calls, turn_id="t1")
    store.append_message(sid, "tool", "contents", tool_call_id="c1", name="read_file", turn_id="t1")
    streaming = store.append_message(sid, "assistant", "Partial", status="streaming", turn_id="t1")
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    store.append_message(sid, "user", parts, turn_id="t2", meta={"source": "paste"})
    messages = store.list_messages(sid)
    assert [m.seq for m in messages] == [1, 2, 3, 4, 5]
    assert messages[1].tool_calls == tuple(calls)
    assert (messages[2].tool_call_id, messages[2].name) == ("c1", "read_file")
    assert messages[4].content == parts and messages[4].meta == {"source": "paste"}
    assert [m.seq for m in store.list_messages(sid, after_seq=3)] == [4, 5]
    assert first.created and store.get_session(sid).title == "Plan a trip to Lisbon in May, with trains"
    assert store.mark_interrupted() == 1
    assert store.get_message(sid, streaming.seq).status == "interrupted"
    updated = store.update_message(sid, streaming.seq, content="Partial answer", status="complete")
    assert (updated.content, updated.status, updated.meta) == ("Partial answer", "complete", {})
    assert store.update_message(sid, 5, status="error").meta == {"source": "paste"}  # meta kept
    assert store.update_message(sid, 5, meta={"edited": True}).meta == {"edited": True}


def test_long_first_message_makes_a_short_title(store: Store) -> None:
    sid = store.create_session().id
    store.append_message(sid, "user", "word " * 40)
    title = store.get_session(sid).title
    assert len(title) <= 60 and title.endswith("…")


def test_ledger_records_decisions_status_and_timings(store: Store) -> None:
    sid = store.create_session().id
    asked = store.ledger_append(sid, "c1", "write_file", {"path": "a.md"}, turn_id="t1", status="pending-approval")
    assert (asked.status, asked.decision, asked.finished) == ("pending-approval", None, None)
    running = store.ledger_update("c1", status="running", decision="allow")
    assert (running.status, running.decision, running.finished) == ("running", "allow", None)
    assert running.started > asked.started  # the tool's time starts when it runs, not when it was asked
    done = store.ledger_update("c1", status="ok", result_summary="x" * 5000)
    assert done.status == "ok" and done.decision == "allow"
    assert done.finished is not None and done.duration_ms == 1000  # the stepping clock: 1 s per reading
    assert done.result_summary is not None and len(done.result_summary) == 2000
    again = store.ledger_update("c1", status="error")
    assert again.finished == done.finished  # timings are stamped once
    store.ledger_append(sid, "c2", "web_fetch", {"url": "u"}, turn_id="t2", status="denied", decision="deny")
    assert [e.call_id for e in store.ledger_list(sid)] == ["c1", "c2"]
    assert [e.call_id for e in store.ledger_list(sid, turn_id="t2")] == ["c2"]
    assert store.ledger_get("c1").arguments == {"path": "a.md"}
    with pytest.raises(StoreError) as err:
        store.ledger_update("c1", status="finished")  # type: ignore[arg-type]
    assert err.value.code == "invalid"


def test_pending_approval_survives_a_reload(store: Store) -> None:
    sid = store.create_session().id
    store.approval_add(sid, "c1", "write_file", {"path": "notes.md", "content": "hi"}, turn_id="t1")
    store.approval_add(sid, "c2", "web_fetch", {"url": "https://example.org"}, turn_id="t1")
    reloaded = Store(store.serialize())
    try:
        pending = reloaded.approvals_pending(sid)
        assert [(p.call_id, p.tool, p.arguments) for p in pending] == [
            ("c1", "write_file", {"path": "notes.md", "content": "hi"}),
            ("c2", "web_fetch", {"url": "https://example.org"}),
        ]
        reloaded.approval_resolve("c1")
        assert [p.call_id for p in reloaded.approvals_pending()] == ["c2"]
    finally:
        reloaded.close()


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.ledger_append("nope", "c1", "read_file", {}), id="ledger"),
        pytest.param(lambda s: s.approval_add("nope", "c1", "write_file", {}), id="approval"),
    ],
)
def test_records_need_an_existing_session(store: Store, call: Any) -> None:
    with pytest.raises(StoreError) as err:
        call(store)
    assert (err.value.code, err.value.entity) == ("not_found", "session")


def test_foreign_keys_are_enforced(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store._db.execute(
            "INSERT INTO messages (session_id, seq, role, content, created) VALUES ('ghost', 1, 'user', '\"x\"', 'now')"
        )


def test_open_on_a_bytearray(store: Store) -> None:
    store.memory_save("kept")
    assert Store(bytearray(store.serialize())).memory_count() == 1
    assert Store(memoryview(store.serialize())).memory_count() == 1


def test_ledger_calls_reads_only_the_calls_asked_for_in_their_session(store: Store) -> None:
    sid = store.create_session("calls").id
    other = store.create_session("other").id
    for n in range(1200):  # more than one IN (...) query's worth
        store.ledger_append(sid, f"c{n}", "read_file", {"path": f"{n}.md"})
    store.ledger_append(other, "x1", "read_file", {"path": "x.md"})
    wanted = [f"c{n}" for n in range(0, 1200, 2)] + ["x1", "missing"]
    found = {entry.call_id for entry in store.ledger_calls(sid, wanted)}
    assert found == {f"c{n}" for n in range(0, 1200, 2)}
    assert store.ledger_calls(sid, []) == []


def test_ledger_list_unfinished_reads_only_running_and_waiting_calls(store: Store) -> None:
    sid = store.create_session("calls").id
    for n, status in enumerate(["ok", "running", "error", "pending-approval", "denied", "ok"]):
        store.ledger_append(sid, f"c{n}", "read_file", {"path": f"{n}.md"})
        if status != "running":
            store.ledger_update(f"c{n}", status=status)  # type: ignore[arg-type]
    assert [e.call_id for e in store.ledger_list(sid, unfinished=True)] == ["c1", "c3"]
    assert len(store.ledger_list(sid)) == 6
