"""The store's backup dump and its restore (runtime/store/backup.py): every row of every branch comes
back, merge keeps what is newer by id, replace empties first, and a bad dump changes nothing."""

from __future__ import annotations

import json

import pytest

from runtime.store import Store
from runtime.store.errors import StoreError
from tests.unit.store.conftest import SteppingClock


def _profile(store: Store) -> str:
    session = store.create_session()
    user = store.append_message(session.id, "user", "draw a cat", turn_id="t1")
    store.add_images(session.id, user.seq, [("image/png", "cat.png", b"\x89PNG\x00\xff")])
    store.append_message(session.id, "assistant", "first try", turn_id="t1")
    store.supersede_turn(session.id, "t1")  # an earlier branch
    store.append_message(session.id, "user", "draw a cat", turn_id="t2")
    store.append_message(session.id, "assistant", "second try", turn_id="t2")
    store.memory_save("likes cats", ["pets"], pinned=True)
    return session.id


def _rows(store: Store) -> dict[str, list[tuple[object, ...]]]:
    db = store._db  # the test compares every row of every table the dump covers
    tables = ("sessions", "messages", "message_images", "tool_calls", "approvals", "memories", "agent_tasks")
    return {t: [tuple(r) for r in db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()] for t in tables}


def test_a_dump_through_json_restores_every_row_into_an_empty_store(clock: SteppingClock) -> None:
    source = Store(clock=clock)
    _profile(source)
    dump = json.loads(json.dumps(source.backup_dump()))  # what crosses the boundary is JSON
    target = Store(clock=clock)
    assert target.backup_restore(dump, "replace") == {"sessions": 1, "memories": 1}
    assert _rows(target) == _rows(source)
    assert target.memory_search("cats", limit=5)[0].memory.text == "likes cats"  # the full-text index follows
    earlier = [
        m for m in target.list_messages(target.list_sessions()[0].id, earlier_branches=True) if m.kind == "superseded"
    ]
    assert [m.content for m in earlier] == ["draw a cat", "first try"]


def test_merge_keeps_what_is_newer_here_and_takes_what_is_newer_in_the_backup(clock: SteppingClock) -> None:
    store = Store(clock=clock)
    sid = _profile(store)
    dump = store.backup_dump()
    store.append_message(sid, "user", "newer here", turn_id="t3")  # this session is now newer than the dump's
    other = store.create_session()
    store.append_message(other.id, "user", "only here")
    store.memory_update(1, text="changed here")
    assert store.backup_restore(dump, "merge") == {"sessions": 0, "memories": 0}
    assert store.list_messages(sid)[-1].content == "newer here"
    assert store.memory_get(1).text == "changed here"
    assert {s.id for s in store.list_sessions()} == {sid, other.id}

    fresh = Store(clock=clock)
    fresh_sid = _profile(fresh)
    fresh.append_message(fresh_sid, "user", "in the backup only", turn_id="t9")
    newer = fresh.backup_dump()
    newer["sessions"][0]["id"] = sid  # the same session, newer in the backup
    for table in ("messages", "message_images"):
        for row in newer["sessions"][0][table]:
            row["session_id"] = sid
    newer["memories"][0]["updated"] = "2999-01-01T00:00:00Z"
    assert store.backup_restore(newer, "merge") == {"sessions": 1, "memories": 1}
    assert store.list_messages(sid)[-1].content == "in the backup only"
    assert store.memory_get(1).text == "likes cats"
    assert any(s.id == other.id for s in store.list_sessions())  # merge never deletes


def test_replace_empties_the_store_first(clock: SteppingClock) -> None:
    store = Store(clock=clock)
    dump = Store(clock=clock).backup_dump()  # an empty profile
    _profile(store)
    store.backup_restore(dump, "replace")
    assert store.list_sessions() == [] and store.memory_count() == 0


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        (lambda d: d.update(format="something else"), "invalid"),
        (lambda d: d.update(schema=10_000), "newer_schema"),
        (lambda d: d["sessions"][0]["messages"][0].update(role=None), "invalid"),  # NOT NULL: fails mid-way
        (lambda d: d["sessions"][0].update(evil="x"), "invalid"),
        (lambda d: d["memories"].append({"id": "1; DROP TABLE memories"}), "invalid"),
        (lambda d: d["sessions"][0]["message_images"][0].update(data={"$b64": "!!"}), "invalid"),
    ],
)
def test_a_bad_dump_is_refused_and_nothing_changes(clock: SteppingClock, damage: object, code: str) -> None:
    source = Store(clock=clock)
    _profile(source)
    dump = source.backup_dump()
    damage(dump)  # type: ignore[operator]
    target = Store(clock=clock)
    kept = target.create_session()
    target.memory_save("kept")
    before = _rows(target)
    with pytest.raises(StoreError) as refused:
        target.backup_restore(dump, "replace")
    assert refused.value.code == code
    assert _rows(target) == before
    assert target.get_session(kept.id).id == kept.id


def test_a_dry_run_says_what_would_be_written_and_changes_nothing(clock: SteppingClock) -> None:
    source = Store(clock=clock)
    _profile(source)
    target = Store(clock=clock)
    target.memory_save("kept")
    before = _rows(target)
    assert target.backup_restore(source.backup_dump(), "replace", dry_run=True) == {"sessions": 1, "memories": 1}
    assert _rows(target) == before


def _delegating(store: Store, agent: str = "researcher") -> tuple[str, str]:
    """A chat under ``agent`` that delegated one task (its child session answered): (chat id, child id)."""
    chat = store.create_session(title="tides")
    store.set_session_agent(chat.id, agent)
    store.append_message(chat.id, "user", "find the tides", turn_id="t1")
    child = store.create_session(title="explore: tides")
    store.append_message(child.id, "user", "read the tide tables", turn_id="task-1-turn")
    store.agent_task_add("task-1", chat.id, "t1", "call_d1", "explore", child.id, background=True)
    store.agent_task_finish("task-1", "done", "High water at 06:12.")
    return chat.id, child.id


def _links(store: Store) -> dict[str, list[tuple[object, ...]]]:
    db = store._db  # the rows the profile choice and the tasks live in
    return {
        "agent_tasks": [tuple(r) for r in db.execute("SELECT * FROM agent_tasks ORDER BY rowid").fetchall()],
        "settings": [tuple(r) for r in db.execute("SELECT key, value FROM settings ORDER BY key").fetchall()],
    }


@pytest.mark.parametrize("target_has_tasks", [pytest.param(False, id="empty"), pytest.param(True, id="with-tasks")])
def test_a_sessions_profile_and_its_delegated_tasks_come_back(clock: SteppingClock, target_has_tasks: bool) -> None:
    source = Store(clock=clock)
    chat, child = _delegating(source)
    dump = json.loads(json.dumps(source.backup_dump()))
    assert dump["version"] == 2 and dump["sessions"][0]["agent"] == "researcher"
    target = Store(clock=clock)
    if target_has_tasks:  # a replace empties tasks and profile choices too (a task's session is not in the way)
        _delegating(target, "worker")
    assert target.backup_restore(dump, "replace") == {"sessions": 1, "memories": 0}  # the child is no chat
    assert _links(target) == _links(source) and _rows(target) == _rows(source)
    assert target.session_agent(chat) == "researcher"
    assert [s.id for s in target.list_sessions()] == [chat]  # the child session is a task's again, not listed
    (task,) = target.agent_tasks(chat)
    assert (task.child_session, task.status, task.result) == (child, "done", "High water at 06:12.")


def test_merge_takes_the_profile_and_tasks_with_the_newer_session(clock: SteppingClock) -> None:
    store = Store(clock=clock)
    chat, _ = _delegating(store, "worker")
    older = store.backup_dump()
    store.set_session_agent(chat, "explore")
    store.append_message(chat, "user", "newer here", turn_id="t2")
    assert store.backup_restore(older, "merge") == {"sessions": 0, "memories": 0}
    assert store.session_agent(chat) == "explore"  # the session here is newer: its choice stays

    newer = store.backup_dump()
    for entry in newer["sessions"]:
        entry["updated"] = "2999-01-01T00:00:00Z"
    newer["sessions"][0]["agent"] = "researcher"
    newer["sessions"][0]["agent_tasks"][0]["status"] = "failed"
    store.backup_restore(newer, "merge")
    assert store.session_agent(chat) == "researcher" and store.agent_tasks(chat)[0].status == "failed"
    assert [s.id for s in store.list_sessions()] == [chat]


def test_a_version_1_dump_restores_its_sessions_under_general(clock: SteppingClock) -> None:
    source = Store(clock=clock)
    sid = _profile(source)
    dump = source.backup_dump()
    dump["version"] = 1  # what the app wrote before profiles and tasks were kept
    for entry in dump["sessions"]:
        del entry["agent_tasks"]
    target = Store(clock=clock)
    assert target.backup_restore(dump, "replace") == {"sessions": 1, "memories": 1}
    assert target.session_agent(sid) == "general" and target.agent_tasks(sid) == []


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d["sessions"].pop(1), id="child-session-missing"),
        pytest.param(lambda d: d["sessions"][0].update(agent=["x"]), id="agent-not-a-name"),
        pytest.param(lambda d: d["sessions"][0]["agent_tasks"][0].update(status=None), id="task-without-status"),
    ],
)
def test_a_bad_task_or_profile_in_a_dump_is_refused_and_nothing_changes(clock: SteppingClock, damage: object) -> None:
    source = Store(clock=clock)
    _delegating(source)
    dump = source.backup_dump()
    damage(dump)  # type: ignore[operator]
    target = Store(clock=clock)
    _delegating(target, "worker")
    before = (_rows(target), _links(target))
    for dry_run in (True, False):
        with pytest.raises(StoreError) as refused:
            target.backup_restore(dump, "replace", dry_run=dry_run)
        assert refused.value.code == "invalid"
    assert (_rows(target), _links(target)) == before
