"""A context counted a batch at a time (the gauge of a session over the window, and the check that keeps
the next request from being prepared for one) gives exactly the estimate of the view held whole, across
batch boundaries, summaries, kept rows, images, interrupted and orphaned calls; and the store's cheap size
is never more than that estimate."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.chat.history import estimate_tokens, model_view, tokens_at_least
from runtime.conversation.context_meter import streamed_tokens
from runtime.store.store import Store
from runtime.store.values import MessageStatus

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


class Journal:
    def __init__(self, store: Store, session_id: str, batch: int) -> None:
        self.store, self.session_id, self.batch = store, session_id, batch

    def context_stream(self):  # type: ignore[no-untyped-def]
        return self.store.context_stream(self.session_id, self.batch)


def _call(cid: str, name: str = "read_file") -> dict[str, object]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": '{"path": "a.md"}'}}


def _fill(store: Store, session_id: str, turns: int, start: int = 0) -> None:
    for t in range(start, start + turns):
        tid = f"t{t}"
        user = store.append_message(session_id, "user", f'Question {t}? é ✓ "quoted"', turn_id=tid)
        if t % 3 == 0:
            store.add_images(session_id, user.seq, [("image/png", "a.png", PNG)])
        store.append_message(session_id, "assistant", "", turn_id=tid, tool_calls=[_call(f"c{t}")])
        if t % 4 != 1:  # every fourth call is left open: the view closes it as interrupted
            store.append_message(
                session_id,
                "tool",
                f"notes {t}\n\ttab",
                turn_id=tid,
                tool_call_id=f"c{t}",
                name="read_file",
                meta={"ok": t % 5 != 0},
            )
        if t % 7 == 2:  # a result whose call is not in the view
            store.append_message(session_id, "tool", "orphan", turn_id=tid, tool_call_id="gone", name="read_file")
        status: MessageStatus = "interrupted" if t % 6 == 5 else "complete"
        store.append_message(
            session_id, "assistant", "" if status == "interrupted" else f"Answer {t}.", turn_id=tid, status=status
        )


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = Store(tmp_path / "state.sqlite")
    yield s
    s.close()


def _whole(store: Store, session_id: str, prompt: str) -> int:
    return estimate_tokens(model_view(prompt, store.context_messages(session_id)), TOOLS)


@pytest.mark.parametrize("batch", [1, 3, 7, 256])
def test_the_streamed_count_is_the_whole_views_estimate(store: Store, batch: int) -> None:
    session = store.create_session("long").id
    empty = Journal(store, session, batch)
    assert streamed_tokens(empty, "You help.", TOOLS) == _whole(store, session, "You help.")
    _fill(store, session, 20)
    assert streamed_tokens(empty, "You help.", TOOLS) == _whole(store, session, "You help.")
    assert streamed_tokens(empty, "", []) == estimate_tokens(model_view("", store.context_messages(session)))


@pytest.mark.parametrize("batch", [2, 5, 256])
def test_a_summarized_context_streams_its_summary_kept_rows_and_later_messages(store: Store, batch: int) -> None:
    session = store.create_session("summarized").id
    _fill(store, session, 6)
    store.append_message(session, "system", "A note the summary never covers.")
    store.append_message(session, "assistant", "", tool_calls=[_call("s1", "activate_skill")])
    store.append_message(session, "tool", "# The skill's body", tool_call_id="s1", name="activate_skill")
    cut = store.list_messages(session)[-1].seq
    _fill(store, session, 2, start=6)
    store.save_summary(session, "Earlier: six questions.", cut)
    _fill(store, session, 9, start=8)
    context = store.context_messages(session)
    assert context[0].kind == "summary" and any(m.name == "activate_skill" for m in context)
    assert [m.seq for m in store.context_stream(session, batch)] == [m.seq for m in context]
    assert streamed_tokens(Journal(store, session, batch), "You help.", TOOLS) == _whole(store, session, "You help.")


def test_the_stores_size_is_never_more_than_the_estimate(store: Store) -> None:
    for turns in (0, 1, 5, 40):
        session = store.create_session(f"s{turns}").id
        _fill(store, session, turns)
        least = tokens_at_least(*store.context_size(session))
        assert least <= _whole(store, session, "")
        if turns:
            assert least > _whole(store, session, "") // 2, "near enough to tell a big context"
