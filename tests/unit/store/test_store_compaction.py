"""Context compaction: which older turns to summarize under a small budget, and the stored summary."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from runtime.store import Store, StoredMessage
from runtime.store.compaction import KEPT_ROWS, estimate_tokens, group_turns, select_for_compaction

WORDS_100_TOKENS = "x" * (4 * 96)  # 96 tokens of text + 4 of overhead = 100


def _turn(turn: str, seq: int, *, skill: bool = False) -> list[StoredMessage]:
    """A user message and an assistant reply (100 tokens each); optionally an activate_skill result."""
    msgs = [StoredMessage("s", seq, "user", WORDS_100_TOKENS, turn_id=turn)]
    if skill:
        msgs.append(StoredMessage("s", seq + 1, "tool", "SKILL BODY " + turn, turn_id=turn, name="activate_skill"))
    msgs.append(StoredMessage("s", seq + 2, "assistant", WORDS_100_TOKENS, turn_id=turn))
    return msgs


def _conversation(turns: int, *, system: bool = True, skill_in: str | None = None) -> list[StoredMessage]:
    msgs = [StoredMessage("s", 0, "system", "You are helpful.")] if system else []
    for i in range(1, turns + 1):
        msgs += _turn(f"t{i}", i * 10, skill=f"t{i}" == skill_in)
    return msgs


def _turns_of(messages: tuple[StoredMessage, ...]) -> list[str | None]:
    seen: list[str | None] = []
    for m in messages:
        if m.turn_id not in seen:
            seen.append(m.turn_id)
    return seen


def test_estimate_is_about_four_chars_per_token() -> None:
    assert estimate_tokens(StoredMessage("s", 1, "user", WORDS_100_TOKENS)) == 100
    call = {"id": "c", "function": {"name": "f", "arguments": "{}"}}
    assert estimate_tokens(StoredMessage("s", 1, "assistant", "", tool_calls=(call,))) > 4


@pytest.mark.parametrize(
    ("turns", "budget", "keep_last", "summarized_turns", "fits"),
    [
        pytest.param(3, 10_000, 2, [], True, id="fits-nothing-to-do"),
        pytest.param(5, 700, 2, ["t1", "t2"], True, id="oldest-two-turns"),
        pytest.param(5, 900, 2, ["t1"], True, id="one-turn-is-enough"),
        pytest.param(5, 500, 2, ["t1", "t2", "t3"], True, id="all-but-latest"),
        pytest.param(5, 300, 2, ["t1", "t2", "t3"], False, id="latest-turns-alone-too-big"),
        pytest.param(5, 300, 1, ["t1", "t2", "t3", "t4"], True, id="keep-only-the-last-turn"),
        pytest.param(2, 100, 2, [], False, id="nothing-old-enough"),
    ],
)
def test_selection_under_budget(
    turns: int, budget: int, keep_last: int, summarized_turns: list[str], fits: bool
) -> None:
    messages = _conversation(turns)
    plan = select_for_compaction(messages, budget, keep_last_turns=keep_last, summary_reserve=50)
    assert _turns_of(plan.summarize) == summarized_turns
    assert plan.fits == fits
    assert plan.tokens_before == sum(estimate_tokens(m) for m in messages)
    # the latest turns and the system message are always kept, in order
    kept = _turns_of(plan.keep)
    assert kept[0] is None and kept[-keep_last:] == [f"t{i}" for i in range(turns - keep_last + 1, turns + 1)]
    assert [m.seq for m in plan.keep] == sorted(m.seq for m in plan.keep)
    assert len(plan.keep) + len(plan.summarize) == len(messages)
    if plan.needed:
        assert plan.covers_to is plan.summarize[-1]
        assert plan.tokens_after == sum(estimate_tokens(m) for m in plan.keep) + 50


def test_skill_bodies_are_never_summarized() -> None:
    messages = _conversation(5, skill_in="t1")
    plan = select_for_compaction(messages, 300, keep_last_turns=1, summary_reserve=0)
    assert "t1" in _turns_of(plan.summarize)
    skill = [m for m in plan.keep if m.name == "activate_skill"]
    assert [m.content for m in skill] == ["SKILL BODY t1"]
    assert all(m.name != "activate_skill" for m in plan.summarize)


def test_an_earlier_summary_is_summarized_again() -> None:
    summary = StoredMessage("s", 5, "system", "Earlier: things happened.", kind="summary")
    messages = [summary, *_conversation(4, system=False)]
    plan = select_for_compaction(messages, 450, keep_last_turns=2, summary_reserve=0)
    assert plan.summarize[0] is summary and _turns_of(plan.summarize) == [None, "t1", "t2"]


@dataclass(frozen=True)
class LoopMessage:
    """Another message type (as the agent loop may have): only role, content and turn_id."""

    role: str
    content: str
    turn_id: str | None


def test_works_on_any_message_type() -> None:
    messages = [LoopMessage("user" if i % 2 == 0 else "assistant", "y" * 400, f"t{i // 2}") for i in range(8)]
    assert group_turns(messages) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    plan = select_for_compaction(messages, 450, keep_last_turns=2, summary_reserve=0)
    assert [m.turn_id for m in plan.summarize] == ["t0", "t0", "t1", "t1"]


def test_summary_is_stored_and_replaces_what_it_covers(store: Store) -> None:
    sid = store.create_session().id
    store.append_message(sid, "user", "old question " * 50, turn_id="t1")
    store.append_message(sid, "tool", "SKILL BODY", turn_id="t1", name="activate_skill", tool_call_id="c1")
    store.append_message(sid, "assistant", "old answer " * 50, turn_id="t1")
    store.append_message(sid, "user", "new question", turn_id="t2")
    store.append_message(sid, "assistant", "new answer", turn_id="t2")
    plan = select_for_compaction(store.list_messages(sid), 120, keep_last_turns=1, summary_reserve=20)
    assert plan.covers_to is not None and plan.covers_to.seq == 3
    summary = store.save_summary(sid, "The user asked an old question.", plan.covers_to.seq, turn_id="t2")
    assert (summary.kind, summary.meta) == ("summary", {"covers_to_seq": 3})
    context = store.context_messages(sid)
    assert [(m.kind, m.content) for m in context] == [
        ("summary", "The user asked an old question."),
        ("message", "SKILL BODY"),
        ("message", "new question"),
        ("message", "new answer"),
    ]
    assert len(store.list_messages(sid)) == 6  # the originals stay in the store
    store.append_message(sid, "user", "after the summary", turn_id="t3")
    assert store.context_messages(sid)[-1].content == "after the summary"


def test_the_model_view_of_a_long_session_reads_only_what_the_model_sees(store: Store) -> None:
    sid = store.create_session().id
    store.append_message(sid, "system", "Be brief.")
    for turn in range(1, 41):
        store.append_message(sid, "user", f"question {turn}", turn_id=f"t{turn}")
        if turn == 7:
            store.append_message(sid, "tool", "SKILL BODY", turn_id="t7", name="activate_skill", tool_call_id="c7")
        store.append_message(sid, "assistant", f"answer {turn}", turn_id=f"t{turn}")
    cut = store.list_messages(sid)[-3].seq  # everything but the last turn is summarized
    store.save_summary(sid, "Forty questions.", cut, turn_id="t40")
    store.append_message(sid, "user", "and now?", turn_id="t41")
    store.supersede_turn(sid, "t41")  # an edit replaced it: neither view has it
    store.append_message(sid, "user", "and then?", turn_id="t42")
    assert [m.content for m in store.context_messages(sid)] == [
        "Forty questions.", "Be brief.", "SKILL BODY", "question 40", "answer 40", "and then?"
    ]
    plans = store._db.execute(  # the kept rows come from their own index, not a walk over the summarized ones
        f"EXPLAIN QUERY PLAN SELECT * FROM messages WHERE session_id = ? AND seq <= ? AND {KEPT_ROWS}", [sid, cut]
    ).fetchall()
    assert any("USING INDEX messages_kept" in str(row) for row in plans), plans


def test_a_message_read_again_after_a_change_is_the_changed_one() -> None:
    """Reads reuse what they decoded before only for rows whose stored values are exactly the same."""
    store = Store()
    sid = store.create_session("s").id
    stored = store.append_message(sid, "user", [{"type": "text", "text": "first"}], status="streaming")
    assert store.list_messages(sid)[0].content == [{"type": "text", "text": "first"}]
    store.update_message(sid, stored.seq, content=[{"type": "text", "text": "second"}], status="complete")
    again = store.list_messages(sid)[0]
    assert again.content == [{"type": "text", "text": "second"}]
    assert again.status == "complete"
    assert store.list_messages(sid)[0] is again  # the same row read again: decoded once
