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


# -- the versions reachable again (show_branch), forks ------------------------------------------------


def _edit(store: Store, sid: str, turn: str, text: str, new_turn: str, answer: str) -> None:
    store.supersede_turn(sid, turn)
    store.append_message(sid, "user", text, turn_id=new_turn)
    store.append_message(sid, "assistant", answer, turn_id=new_turn)


def _seq_of(store: Store, sid: str, content: str) -> int:
    return next(m.seq for m in store.list_messages(sid, earlier_branches=True) if m.content == content)


def test_an_edit_is_a_sibling_of_the_message_it_replaced(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t2", "second, v2?", "t4", "two v2")
    _edit(store, sid, "t4", "second, v3?", "t5", "two v3")
    versions = store.versions(sid)
    assert list(versions) == [_seq_of(store, sid, "one")]
    group = versions[_seq_of(store, sid, "one")]
    assert [v.content for v in group] == ["second?", "second, v2?", "second, v3?"]
    assert [v.in_view for v in group] == [False, False, True]


def test_showing_an_earlier_version_brings_back_its_later_turns(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t2", "second, v2?", "t4", "two v2")
    store.append_message(sid, "user", "more on v2", turn_id="t5")
    _edit(store, sid, "t4", "second, v3?", "t6", "two v3")
    assert store.show_branch(sid, _seq_of(store, sid, "second, v2?")) == 3
    assert [m.content for m in store.list_messages(sid)] == ["first?", "one", "second, v2?", "two v2", "more on v2"]
    assert [m.content for m in store.context_messages(sid)][-1] == "more on v2"
    store.show_branch(sid, _seq_of(store, sid, "second?"))
    assert [m.content for m in store.list_messages(sid)] == ["first?", "one", "second?", "two", "third?", "three"]
    # a new turn continues the branch in view
    store.append_message(sid, "user", "fourth?", turn_id="t7")
    fourth = store.list_messages(sid)[-1]
    assert store.path_to(sid, fourth.seq) == [m.seq for m in store.list_messages(sid)]


def test_showing_a_version_already_in_view_changes_nothing(store: Store) -> None:
    sid = _conversation(store)
    assert store.show_branch(sid, _seq_of(store, sid, "two")) == 0
    assert len(store.list_messages(sid)) == 6


def test_below_a_version_the_turns_last_in_view_come_back(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t3", "third, v2?", "t4", "three v2")  # under "second?": two versions of the third turn
    store.show_branch(sid, _seq_of(store, sid, "third?"))  # the first version of the third turn in view
    _edit(store, sid, "t1", "first, v2?", "t5", "one v2")  # then the first turn is edited
    store.show_branch(sid, _seq_of(store, sid, "first?"))
    assert [m.content for m in store.list_messages(sid)][-2:] == ["third?", "three"]


def test_the_first_message_has_versions_too(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t1", "first, v2?", "t4", "one v2")
    assert list(store.versions(sid)) == [None]
    store.show_branch(sid, _seq_of(store, sid, "first?"))
    assert len(store.list_messages(sid)) == 6


def test_a_fork_copies_the_branch_up_to_a_message(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t2", "second, v2?", "t4", "two v2")
    store.show_branch(sid, _seq_of(store, sid, "second?"))
    before = [(m.seq, m.kind, m.content) for m in store.list_messages(sid, earlier_branches=True)]
    forked = store.fork_session(sid, _seq_of(store, sid, "two v2"), "Fork of x")  # from a version out of view
    assert store.get_session(forked.id).title == "Fork of x"
    assert [m.content for m in store.list_messages(forked.id)] == ["first?", "one", "second, v2?", "two v2"]
    assert [m.seq for m in store.list_messages(forked.id)] == [1, 2, 3, 4]
    assert all(m.kind == "message" and "superseded" not in m.meta for m in store.list_messages(forked.id))
    assert [(m.seq, m.kind, m.content) for m in store.list_messages(sid, earlier_branches=True)] == before
    store.append_message(forked.id, "user", "next", turn_id="t9")
    assert store.path_to(forked.id, 5) == [1, 2, 3, 4, 5]


def test_a_fork_from_a_reply_with_calls_keeps_their_results(store: Store) -> None:
    sid = store.create_session().id
    store.append_message(sid, "user", "list", turn_id="t1")
    call = {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
    asked = store.append_message(sid, "assistant", "", turn_id="t1", tool_calls=[call])
    store.append_message(sid, "tool", "a.txt", turn_id="t1", tool_call_id="c1", name="list_dir")
    store.append_message(sid, "assistant", "one file", turn_id="t1")
    forked = store.fork_session(sid, asked.seq, "f")
    assert [m.role for m in store.list_messages(forked.id)] == ["user", "assistant", "tool"]


def test_a_summary_in_a_fork_covers_the_same_messages(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t1", "first, v2?", "t4", "one v2")
    store.append_message(sid, "user", "later", turn_id="t5")
    summary = store.save_summary(sid, "they talked", _seq_of(store, sid, "one v2"))
    forked = store.fork_session(sid, summary.seq, "f")
    copied = store.list_messages(forked.id)[-1]
    assert copied.kind == "summary" and copied.meta["covers_to_seq"] == 2


def test_versions_from_a_parent_on_are_those_of_the_later_forks_only(store: Store) -> None:
    sid = _conversation(store)
    _edit(store, sid, "t1", "first, again?", "t4", "one again")  # a fork of the session's first message
    _edit(store, sid, "t4", "first, once more?", "t5", "one more")
    store.append_message(sid, "user", "fourth?", turn_id="t6")
    store.append_message(sid, "assistant", "four", turn_id="t6")
    _edit(store, sid, "t6", "fourth, better?", "t7", "four, better")
    everything = store.versions(sid)
    assert sorted(everything, key=str) == sorted([None, _seq(store, sid, "fourth?") - 1], key=str)
    later = _seq(store, sid, "fourth?") - 1
    assert list(store.versions(sid, later)) == [later]
    assert store.versions(sid, later)[later] == everything[later]
    assert store.versions(sid, later + 1) == {}


def _seq(store: Store, sid: str, text: str) -> int:
    return next(m.seq for m in store.list_messages(sid, earlier_branches=True) if m.content == text)
