"""serialize / open-from-bytes round trip, integrity checks, and falling back to the previous generation."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from runtime.store import Generations, Store, StoreError, check_integrity, integrity_ok
from runtime.store.durability import check_file_integrity

SteppingClock = Callable[[], datetime]
SAVED_AT = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def _filled(clock: SteppingClock) -> Store:
    store = Store(clock=clock)
    sid = store.create_session("Round trip", session_id="s-1").id
    store.append_message(sid, "user", "hello ✓", turn_id="t1")
    store.append_message(sid, "assistant", [{"type": "text", "text": "hi"}], turn_id="t1")
    store.ledger_append(sid, "c1", "read_file", {"path": "a"}, turn_id="t1", status="ok")
    store.memory_save("remember the milk", ["errand"], pinned=True)
    return store


def _snapshot(store: Store) -> tuple[object, ...]:
    return (
        store.list_sessions(),
        store.list_messages("s-1"),
        store.ledger_list("s-1"),
        store.memory_list(),
        [h.memory.id for h in store.memory_search("milk")],
    )


def test_serialize_round_trip(clock: SteppingClock) -> None:
    original = _filled(clock)
    data = original.serialize()
    assert data.startswith(b"SQLite format 3\x00") and integrity_ok(data)
    reopened = Store(data, clock=clock)
    assert reopened.migrated == []
    assert _snapshot(reopened) == _snapshot(original)
    # the copy is writable and independent of the original
    reopened.memory_save("only in the copy")
    assert reopened.memory_count() == 2 and original.memory_count() == 1
    assert Store(reopened.serialize()).memory_count() == 2


def test_serialize_refuses_inside_a_transaction(store: Store) -> None:
    with store.atomic():
        store.memory_save("not yet committed")
        with pytest.raises(StoreError) as err:
            store.serialize()
        assert err.value.code == "in_transaction"
    assert Store(store.serialize()).memory_count() == 1


def test_failed_step_is_not_persisted(store: Store) -> None:
    store.memory_save("kept")
    with pytest.raises(RuntimeError), store.atomic():
        store.memory_save("rolled back")
        raise RuntimeError("step failed")
    assert [m.text for m in Store(store.serialize()).memory_list()] == ["kept"]


def _good() -> bytes:
    store = Store()
    for i in range(200):
        store.memory_save(f"memory number {i} " + "padding " * 40)
    return store.serialize()


GOOD = _good()


def _overwrite_pages(data: bytes) -> bytes:
    rng = random.Random(1)
    page = 4096
    middle = bytes(rng.getrandbits(8) for _ in range(page * 3))
    return data[: page * 2] + middle + data[page * 5 :]


DAMAGES = [
    pytest.param(lambda d: d[: len(d) // 2], "page", id="truncated-half"),
    pytest.param(lambda d: d[:-1], "multiple of the page size", id="truncated-one-byte"),
    pytest.param(lambda d: d[: 4096 * 3], "header says", id="truncated-at-a-page-boundary"),
    pytest.param(lambda d: d[:100], "multiple of the page size", id="header-only"),
    pytest.param(lambda d: d[:50], "too short", id="shorter-than-header"),
    pytest.param(lambda d: b"", "too short", id="empty"),
    pytest.param(lambda d: b"\x00" * len(d), "bad magic", id="zeros"),
    pytest.param(lambda d: random.Random(2).randbytes(len(d)), "bad magic", id="random-garbage"),
    pytest.param(lambda d: d[:16] + b"\x03\x00" + d[18:], "bad page size", id="bad-page-size"),
    pytest.param(_overwrite_pages, "", id="pages-overwritten"),
]


@pytest.mark.parametrize(("damage", "reason_part"), DAMAGES)
def test_damaged_bytes_fail_the_integrity_check(damage: Callable[[bytes], bytes], reason_part: str) -> None:
    report = check_integrity(damage(GOOD))
    assert not report.ok
    assert reason_part in report.reason
    assert check_integrity(GOOD).ok


@pytest.mark.parametrize(("damage", "reason_part"), DAMAGES)
def test_a_damaged_file_fails_the_check_made_where_it_lies(
    tmp_path: Path, damage: Callable[[bytes], bytes], reason_part: str
) -> None:
    """The same verdicts as for bytes, from the file itself (no copy of it is made)."""
    path = tmp_path / "current.sqlite"
    path.write_bytes(damage(GOOD))
    report = check_file_integrity(path)
    assert not report.ok
    assert reason_part in report.reason
    path.write_bytes(GOOD)
    assert check_file_integrity(path).ok
    assert not check_file_integrity(tmp_path / "missing.sqlite").ok


def _store_with(*texts: str) -> bytes:
    store = Store()
    for text in texts:
        store.memory_save(text)
    return store.serialize()


OLD = _store_with("first")
NEW = _store_with("first", "second")


@pytest.mark.parametrize(
    ("current", "previous", "source", "notice", "damaged"),
    [
        pytest.param(NEW, OLD, "current", None, (), id="both-good"),
        pytest.param(NEW, None, "current", None, (), id="first-generation"),
        pytest.param(NEW, b"junk", "current", None, (), id="previous-damaged-is-ignored"),
        pytest.param(
            NEW[: len(NEW) // 2],
            OLD,
            "previous",
            "The last save was damaged; restored the previous one from 2026-03-01 09:30 UTC.",
            ("current",),
            id="truncated",
        ),
        pytest.param(
            b"garbage" * 1000,
            OLD,
            "previous",
            "The last save was damaged; restored the previous one from 2026-03-01 09:30 UTC.",
            ("current",),
            id="garbage",
        ),
        pytest.param(
            None,
            OLD,
            "previous",
            "The last save was missing; restored the previous one from 2026-03-01 09:30 UTC.",
            (),
            id="current-missing",
        ),
        pytest.param(None, None, "fresh", None, (), id="nothing-saved-yet"),
        pytest.param(b"x" * 4096, b"", "fresh", "every saved copy was damaged", ("current", "previous"), id="both-bad"),
    ],
)
def test_generations_choose(
    tmp_path: Path,
    current: bytes | None,
    previous: bytes | None,
    source: str,
    notice: str | None,
    damaged: tuple[str, ...],
) -> None:
    choice = Generations().choose(current, previous, SAVED_AT)
    assert choice.source == source
    assert choice.damaged == damaged
    if notice is None:
        assert choice.notice is None
    else:
        assert choice.notice is not None and notice in choice.notice
    assert choice.data == {"current": current, "previous": previous, "fresh": None}[source]
    assert choice.rotate_on_next_save == (source == "current")
    files = Generations().choose_files(_file(tmp_path / "c", current), _file(tmp_path / "p", previous), SAVED_AT)
    assert (files.source, files.damaged, files.notice) == (choice.source, choice.damaged, choice.notice)
    assert files.data == (previous if source == "previous" else None)  # the current file is opened where it is


def _file(path: Path, data: bytes | None) -> Path | None:
    if data is None:
        return None
    path.write_bytes(data)
    return path


def test_torn_save_opens_previous_generation_with_notice(clock: SteppingClock) -> None:
    live = Store(clock=clock)
    sid = live.create_session("Work", session_id="s-1").id
    live.append_message(sid, "user", "step one", turn_id="t1")
    generation_1 = live.serialize()  # persisted, then the next save is torn on disk
    live.append_message(sid, "user", "step two", turn_id="t2")
    generation_2 = live.serialize()

    intact, choice = Store.open_saved(generation_2, generation_1, previous_saved_at=SAVED_AT)
    assert choice.source == "current" and choice.notice is None
    assert [m.content for m in intact.list_messages(sid)] == ["step one", "step two"]  # nothing committed is lost

    torn = generation_2[: len(generation_2) - 4096]
    restored, choice = Store.open_saved(torn, generation_1, previous_saved_at=SAVED_AT)
    assert choice.source == "previous" and choice.damaged == ("current",)
    assert choice.notice == "The last save was damaged; restored the previous one from 2026-03-01 09:30 UTC."
    assert [m.content for m in restored.list_messages(sid)] == ["step one"]
    restored.append_message(sid, "user", "step two again")  # and it keeps working
    assert len(Store(restored.serialize()).list_messages(sid)) == 2


def test_both_generations_damaged_starts_empty_with_notice() -> None:
    store, choice = Store.open_saved(b"\x00" * 8192, GOOD[:4096])
    assert choice.source == "fresh" and choice.notice
    assert store.memory_count() == 0 and store.list_sessions() == []


def test_opening_damaged_bytes_directly_is_corrupt() -> None:
    with pytest.raises(StoreError) as err:
        Store(b"garbage" * 1000)
    assert err.value.code == "corrupt"


def test_every_store_keeps_a_page_cache_of_its_size(tmp_path: Path) -> None:
    """A page SQLite does not hold is a read of OPFS (a round trip in a private window): in memory, from a
    file and from saved bytes alike, the store keeps CACHE_KIB of pages, not SQLite's 2,000 KiB."""
    from runtime.store.store import CACHE_KIB

    path = tmp_path / "state.sqlite"
    saved = Store(path)
    data = saved.serialize()
    stores = [Store(), saved, Store(data), Store.open_saved(data, None)[0]]
    try:
        for store in stores:
            assert store._db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
    finally:
        for store in stores:
            store.close()
    assert CACHE_KIB > 2000
