"""Finding past conversations by their words: every word must appear, newest first, with an excerpt."""

from __future__ import annotations

from runtime.store import Store


def test_sessions_are_found_by_every_word_of_what_was_said(store: Store) -> None:
    tides = store.create_session("Tides")
    store.append_message(tides.id, "user", "When is high water in Brest?", turn_id="t1")
    store.append_message(tides.id, "assistant", "High water at Brest is at 06:12 today.", turn_id="t1")
    bread = store.create_session()
    store.append_message(bread.id, "user", "A sourdough recipe, please", turn_id="t2")
    store.append_message(bread.id, "tool", "brest", turn_id="t2")  # tool output is not what was said
    assert [h.session.id for h in store.search_sessions("brest water")] == [tides.id]
    (hit,) = store.search_sessions("06:12 BREST")
    assert "06:12" in hit.excerpt
    assert [h.session.id for h in store.search_sessions("sourdough")] == [bread.id]
    assert [h.session.id for h in store.search_sessions("tides")] == [tides.id]  # the title counts
    assert store.search_sessions("brest sourdough") == []
    assert store.search_sessions("   ") == []


def test_replaced_turns_are_not_found(store: Store) -> None:
    sid = store.create_session("Birds").id
    store.append_message(sid, "user", "Tell me about herons", turn_id="t1")
    store.supersede_turn(sid, "t1")
    store.append_message(sid, "user", "Tell me about egrets", turn_id="t2")
    assert store.search_sessions("herons") == []
    assert len(store.search_sessions("egrets")) == 1
