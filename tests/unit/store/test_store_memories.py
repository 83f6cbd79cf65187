"""Memories: FTS5 kept in sync by triggers, bm25 ranking, and user text that never breaks a query."""

from __future__ import annotations

import pytest

from runtime.store import Store, StoreError
from runtime.store import memories as memories_module
from runtime.store.memories import fts_query


@pytest.fixture
def memories(store: Store) -> Store:
    store.memory_save("The user prefers green tea in the morning", ["preference", "drink"])
    store.memory_save("Coffee makes the user jittery; prefers decaf coffee after noon", ["preference"])
    store.memory_save("Project Lisbon deadline is Friday", ["work"])
    store.memory_save("Allergic to peanuts", ["health"])
    return store


@pytest.mark.parametrize(
    ("query", "expected_first"),
    [
        pytest.param("coffee", "Coffee makes", id="single-term"),
        pytest.param("decaf coffee noon", "Coffee makes", id="more-terms-matched-wins"),
        pytest.param("what does the user drink in the morning, tea?", "The user prefers green tea", id="stopwords"),
        pytest.param("lisbon friday", "Project Lisbon", id="two-terms"),
        pytest.param("health", "Allergic to peanuts", id="tags-are-searched"),
        pytest.param("peanut", "Allergic to peanuts", id="stemming"),
        pytest.param("PROJECT", "Project Lisbon", id="case-insensitive"),
    ],
)
def test_best_match_first(memories: Store, query: str, expected_first: str) -> None:
    hits = memories.memory_search(query)
    assert hits, query
    assert hits[0].memory.text.startswith(expected_first)
    assert [h.rank for h in hits] == sorted(h.rank for h in hits)


def test_better_match_ranks_above_weaker_one(store: Store) -> None:
    weak = store.memory_save("garden notes: water the tomatoes, buy soil, fix the fence, call the plumber")
    strong = store.memory_save("tomatoes tomatoes tomatoes")
    both = store.memory_save("tomatoes need water daily")
    hits = store.memory_search("tomatoes water")
    assert hits[0].memory.id == both.id  # matches both terms
    assert {h.memory.id for h in hits} == {weak.id, strong.id, both.id}
    assert store.memory_search("tomatoes")[0].memory.id == strong.id  # densest match


@pytest.mark.parametrize(
    "query",
    [
        pytest.param('"', id="lone-quote"),
        pytest.param('"coffee', id="unbalanced-quote"),
        pytest.param("*", id="star"),
        pytest.param("coff*", id="star-suffix"),
        pytest.param("AND", id="and-alone"),
        pytest.param("coffee AND", id="dangling-and"),
        pytest.param("OR NOT coffee", id="operators"),
        pytest.param("-", id="minus"),
        pytest.param("-coffee", id="minus-prefix"),
        pytest.param("NEAR(coffee tea", id="near-open"),
        pytest.param("coffee:tea", id="column-filter"),
        pytest.param("^coffee", id="caret"),
        pytest.param("(((", id="parens"),
        pytest.param("", id="empty"),
        pytest.param("   \t\n", id="blank"),
        pytest.param("café naïve", id="diacritics"),
        pytest.param("\x00coffee", id="nul"),
        pytest.param("word " * 100, id="many-terms"),
        pytest.param("_", id="underscore-only"),
        pytest.param("🙂", id="emoji"),
        pytest.param("{a b}:c", id="column-set"),
        pytest.param("NEAR/2", id="near-slash"),
        pytest.param("+", id="plus"),
        pytest.param("x" * 5000, id="huge-word"),
    ],
)
def test_odd_input_never_raises(memories: Store, query: str) -> None:
    for match in ("any", "all"):
        hits = memories.memory_search(query, match=match, prefix_last=True)
        assert isinstance(hits, list)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param('"coffee', "Coffee makes", id="quote-is-ignored"),
        pytest.param("-coffee", "Coffee makes", id="minus-is-not-negation"),
        pytest.param("coffee AND", "Coffee makes", id="and-is-a-word"),
    ],
)
def test_odd_input_still_finds_words(memories: Store, query: str, expected: str) -> None:
    assert memories.memory_search(query)[0].memory.text.startswith(expected)


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        pytest.param("coffee tea", {}, '"coffee" OR "tea"', id="any"),
        pytest.param("coffee tea", {"match": "all"}, '"coffee" AND "tea"', id="all"),
        pytest.param("cof", {"match": "all", "prefix_last": True}, '"cof"*', id="prefix"),
        pytest.param("the tea", {}, '"tea"', id="stopword-dropped"),
        pytest.param("the", {}, '"the"', id="only-stopwords-kept"),
        pytest.param('" * -', {}, None, id="nothing-searchable"),
    ],
)
def test_fts_query(text: str, kwargs: dict[str, object], expected: str | None) -> None:
    assert fts_query(text, **kwargs) == expected  # type: ignore[arg-type]


def test_filter_as_you_type_needs_every_word(memories: Store) -> None:
    hits = memories.memory_search("prefers cof", match="all", prefix_last=True)
    assert [h.memory.text[:12] for h in hits] == ["Coffee makes"]


def test_fts_follows_update_and_delete(memories: Store) -> None:
    (hit,) = memories.memory_search("peanuts")
    memories.memory_update(hit.memory.id, text="Allergic to shellfish", tags=["health", "food"])
    assert memories.memory_search("peanuts") == []
    (moved,) = memories.memory_search("shellfish food")
    assert moved.memory.tags == ("health", "food")
    memories.memory_delete(hit.memory.id)
    assert memories.memory_search("shellfish") == []
    assert memories.memory_count() == 3
    with pytest.raises(StoreError) as err:
        memories.memory_delete(hit.memory.id)
    assert (err.value.code, err.value.key) == ("not_found", hit.memory.id)


def test_list_pin_and_validation(store: Store) -> None:
    a = store.memory_save("  first  ", ["x", " x ", "", "y"])
    b = store.memory_save("second", pinned=True)
    assert (a.text, a.tags) == ("first", ("x", "y"))
    assert [m.id for m in store.memory_list()] == [b.id, a.id]
    assert [m.id for m in store.memory_pinned()] == [b.id]
    store.memory_update(a.id, pinned=True)
    assert [m.id for m in store.memory_pinned()] == [a.id, b.id]
    assert [m.id for m in store.memory_list(limit=1, offset=1)] == [b.id]
    for bad in ("", "   ", "x" * 20_001):
        with pytest.raises(StoreError) as err:
            store.memory_save(bad)
        assert err.value.code == "invalid"


def test_ranking_work_is_bounded_to_recent_matches(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    best = store.memory_save("kiwi kiwi kiwi kiwi")  # the oldest, and the densest match
    newer = [store.memory_save(f"kiwi note {i}") for i in range(4)]
    assert store.memory_search("kiwi")[0].memory.id == best.id
    monkeypatch.setattr(memories_module, "RANK_CANDIDATES", 3)
    hits = store.memory_search("kiwi")
    assert {h.memory.id for h in hits} == {m.id for m in newer[-3:]}
