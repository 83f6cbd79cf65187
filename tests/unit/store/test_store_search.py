"""Finding past conversations by their words: every word must appear, newest first, with an excerpt."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from runtime.store import Store, search
from runtime.store.export import content_text
from runtime.store.search import searched


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


def _indexed_rows(store: Store) -> tuple[set[int], set[int]]:
    """The rowids the search index holds, and those it should: every user and assistant message in view."""
    held = {r[0] for r in store._db.execute("SELECT id FROM messages_search_docsize")}
    due = {r[0] for r in store._db.execute(f"SELECT rowid FROM messages WHERE {searched()}")}
    return held, due


def test_the_index_follows_every_write(store: Store) -> None:
    sid = store.create_session("Birds").id
    store.append_message(sid, "user", "Tell me about herons", turn_id="t1")
    reply = store.append_message(sid, "assistant", "Herons wade.", turn_id="t1")
    store.append_message(sid, "tool", "a heron picture", turn_id="t1")
    store.update_message(sid, reply.seq, content="Herons wade in shallow water.")
    assert [h.excerpt for h in store.search_sessions("shallow")] == ["Herons wade in shallow water."]
    store.supersede_turn(sid, "t1")  # set aside: out of the index
    assert store.search_sessions("herons") == []
    store.show_branch(sid, reply.seq)  # back in view
    assert len(store.search_sessions("herons shallow")) == 1
    fork = store.fork_session(sid, reply.seq, "Birds, again")
    assert {h.session.id for h in store.search_sessions("shallow")} == {sid, fork.id}
    store.delete_session(sid)
    assert [h.session.id for h in store.search_sessions("shallow")] == [fork.id]
    held, due = _indexed_rows(store)
    assert held == due and len(due) == 2


def test_the_index_keeps_its_rows_through_vacuum(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with Store(path) as store:
        for n in range(30):
            sid = store.create_session(f"chat {n}").id
            store.append_message(sid, "user", f"question {n} about egrets", turn_id="t1")
        for s in store.list_sessions(50)[::3]:
            store.delete_session(s.id)  # gaps in the rowids, which a VACUUM could close
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")
    conn.close()
    with Store(path) as store:
        held, due = _indexed_rows(store)
        assert held == due and len(due) == 20
        assert len(store.search_sessions("egrets", limit=500)) == 20
        for s in store.list_sessions(50):
            store.delete_session(s.id)
        assert _indexed_rows(store) == (set(), set())


def test_search_reads_what_it_finds_not_what_is_stored(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    long = store.create_session("Long").id
    with store.atomic():
        for turn in range(200):
            store.append_message(long, "user", f"Question {turn} about tides?", turn_id=f"t{turn}")
            store.append_message(long, "assistant", f"Answer {turn}: the moon.", turn_id=f"t{turn}")
    short = store.create_session("Short").id
    store.append_message(short, "user", "What is a heron?", turn_id="h1")
    decoded: list[object] = []
    real = search.content_text
    monkeypatch.setattr(search, "content_text", lambda c: decoded.append(c) or real(c))
    assert [h.session.id for h in store.search_sessions("heron")] == [short]
    assert len(decoded) == 1  # the one message the index names
    decoded.clear()
    assert [h.excerpt for h in store.search_sessions("moon 199")] == ["Answer 199: the moon."]
    # each word's first row the index names ("Answer 0", "Question 199"), then the rarest word's rows for one
    # holding both ("Question 199", "Answer 199")
    assert len(decoded) == 4
    decoded.clear()
    assert [h.session.id for h in store.search_sessions("a", limit=1)] == [short]  # short words: a plain read
    assert len(decoded) == 1  # newest first, stopping at the limit


WORDS = [
    "heron",
    "Héron",
    "HERON",
    "tide",
    "tides",
    "06:12",
    "a",
    "ab",
    "x",
    "東京",
    "東京タワー",
    "ß",
    "straße",
    "Ωmega",
    '"quoted"',
    "back\\slash",
    "[image_url]",
    "co-op",
    "e.g.",
    "naïve",
    "ÉCOLE",
    "école",
    "1/2",
    "%",
    "_",
]


def _reference(store: Store, query: str) -> list[tuple[str, str, int | None]]:
    """The search as a plain scan of every message (what it did before the index), for comparison."""
    words = [w.casefold() for w in query.split()][:8]
    out = []
    for session in store.list_sessions(500):
        said = [m for m in store.list_messages(session.id) if m.kind == "message" and m.role in ("user", "assistant")]
        texts = [session.title] + [content_text(m.content) for m in said]
        folded = [t.casefold() for t in texts]
        if words and all(any(w in t for t in folded) for w in words):
            every = (i for i, t in enumerate(folded[1:], 1) if all(w in t for w in words))
            first = next(every, next((i for i, t in enumerate(folded[1:], 1) if words[0] in t), None))
            excerpt = "" if first is None else search._excerpt(texts[first], folded[first], words[0])
            out.append((session.id, excerpt, None if first is None else said[first - 1].seq))
    return out


def test_search_finds_what_a_plain_scan_finds(store: Store) -> None:
    rng = random.Random(25)
    for n in range(40):
        sid = store.create_session(" ".join(rng.sample(WORDS, 2)) if n % 4 == 0 else "").id
        for turn in range(rng.randint(0, 6)):
            role = rng.choice(["user", "assistant", "tool"])
            text = " ".join(rng.choice(WORDS) + rng.choice(["", ",", ".", "!"]) for _ in range(rng.randint(1, 8)))
            content: object = text if rng.random() < 0.7 else [{"type": "text", "text": text}, {"type": "image_url"}]
            store.append_message(sid, role, content, turn_id=f"t{turn}")  # type: ignore[arg-type]
            if rng.random() < 0.1:
                store.supersede_turn(sid, f"t{turn}")
    queries = list(WORDS)
    queries += [" ".join(rng.sample(queries, 2)) for _ in range(60)] + ["her", "ide", "ER", "京タ", "o-o", "e.g"]
    for query in queries:
        assert [(h.session.id, h.excerpt, h.seq) for h in store.search_sessions(query, limit=500)] == _reference(
            store, query
        ), query


@pytest.mark.parametrize("others", [1, 30], ids=["the rest smaller: rebuilt", "the rest larger: forgotten row by row"])
def test_a_long_chat_deleted_leaves_the_index_as_it_should(
    store: Store, monkeypatch: pytest.MonkeyPatch, others: int
) -> None:
    """A chat holding more text than all the others together leaves the index by its rebuild from the others
    (``SearchMixin._delete_messages``): either way the index then holds exactly the rows due, finds what a plain
    scan finds, and forgets the next deleted chat by its trigger, which is back as it was."""
    monkeypatch.setattr(search, "BULK_DELETE_CHARS", 500)
    rng = random.Random(others)
    trigger_sql = "SELECT sql FROM sqlite_master WHERE name = ?"
    trigger = store._db.execute(trigger_sql, [search.DELETE_TRIGGER]).fetchone()
    long_chat = store.create_session("long").id
    for turn in range(60):
        store.append_message(long_chat, "user", " ".join(rng.sample(WORDS, 5)), turn_id=f"t{turn}")
        store.append_message(long_chat, "assistant", " ".join(rng.sample(WORDS, 8)), turn_id=f"t{turn}")
    kept = []
    for n in range(others):
        kept.append(store.create_session(f"other {n}").id)
        for turn in range(10 if others > 1 else 2):  # 30 chats of 10 messages: more text than the long one
            store.append_message(kept[-1], "user", " ".join(rng.sample(WORDS, 10)), turn_id=f"t{turn}")
            store.append_message(kept[-1], "tool", "egret", turn_id=f"t{turn}")
    statements: list[str] = []
    store._db.conn.set_trace_callback(statements.append)
    store.delete_session(long_chat)
    store._db.conn.set_trace_callback(None)
    rebuilt = any("'delete-all'" in s for s in statements)
    assert rebuilt == (others == 1)
    held, due = _indexed_rows(store)
    assert held == due and due
    assert store._db.execute(trigger_sql, [search.DELETE_TRIGGER]).fetchone() == trigger
    for query in [*WORDS, "her", "ide"]:
        assert [(h.session.id, h.excerpt, h.seq) for h in store.search_sessions(query, limit=500)] == _reference(
            store, query
        ), query
    store.delete_session(kept[0])  # by the trigger
    held, due = _indexed_rows(store)
    assert held == due
