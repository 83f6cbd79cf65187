"""An edited or regenerated turn: the turns it replaces become an earlier branch, kept but out of view."""

from __future__ import annotations

from runtime.store import Store


def _conversation(store: Store) -> str:
    sid = store.create_session().id
    for turn, (question, answer) in enumerate([("first?", "one"), ("second?", "two"), ("third?", "three")], 1):
        store.append_message(sid, "user", question, turn_id=f"t{turn}")
        store.append_message(sid, "assistant", answer, turn_id=f"t{turn}")
    return sid


def test_replacing_a_turn_sets_it_and_everything_after_it_aside(store: Store) -> None:
    sid = _conversation(store)
    assert store.supersede_turn(sid, "t2") == 4
    assert [m.content for m in store.list_messages(sid)] == ["first?", "one"]
    assert [m.content for m in store.context_messages(sid)] == ["first?", "one"]
    store.append_message(sid, "user", "second, better?", turn_id="t4")
    assert [m.content for m in store.list_messages(sid)] == ["first?", "one", "second, better?"]
    everything = store.list_messages(sid, earlier_branches=True)
    assert [m.content for m in everything] == ["first?", "one", "second?", "two", "third?", "three", "second, better?"]
    set_aside = [m for m in everything if m.kind == "superseded"]
    assert {m.meta["superseded"]["branch"] for m in set_aside} == {1}
    assert {m.meta["superseded"]["kind"] for m in set_aside} == {"message"}


def test_each_replacement_is_its_own_branch(store: Store) -> None:
    sid = _conversation(store)
    store.supersede_turn(sid, "t3")
    store.append_message(sid, "user", "third again", turn_id="t4")
    store.supersede_turn(sid, "t4")
    branches = [m.meta["superseded"]["branch"] for m in store.list_messages(sid, earlier_branches=True) if m.meta]
    assert branches == [1, 1, 2]


def test_a_turn_with_nothing_stored_changes_nothing(store: Store) -> None:
    sid = _conversation(store)
    assert store.supersede_turn(sid, "never-stored") == 0
    assert len(store.list_messages(sid)) == 6


def test_pending_approvals_of_a_replaced_turn_are_dropped(store: Store) -> None:
    sid = _conversation(store)
    store.approval_add(sid, "c1", "write_file", {"path": "x"}, turn_id="t3")
    store.approval_add(sid, "c0", "write_file", {"path": "y"}, turn_id="t1")
    store.supersede_turn(sid, "t2")
    assert [a.call_id for a in store.approvals_pending(sid)] == ["c0"]
