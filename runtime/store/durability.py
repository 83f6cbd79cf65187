"""Durability: integrity checks, and which saved generation to open.

The state database is a file (in the browser on OPFS, written page by page: docs/storage.md) with a
previous generation beside it. At start ``Generations.choose_files`` checks them where they lie and
opens the newest intact one, saying so when it had to fall back (``choose`` does the same for bytes:
a backup's, a test's). The OPFS writes themselves are the adapter's job; everything here runs under
CPython too.
"""

from __future__ import annotations

import logging
import sqlite3
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypeVar

T = TypeVar("T", bytes, Path)

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100


@dataclass(frozen=True)
class IntegrityReport:
    ok: bool
    reason: str  # "ok", or what is wrong, for logs and notices


def connect_bytes(data: bytes) -> sqlite3.Connection:
    """A private in-memory connection holding a copy of ``data`` (writable, growable)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
    except Exception:
        conn.close()
        raise
    return conn


def _header_problem(data: bytes, size: int | None = None) -> str | None:
    """What is wrong with a database's first bytes ``data`` and its length (``size``, else ``len(data)``)."""
    size = len(data) if size is None else size
    if size < _HEADER_SIZE:
        return f"too short ({size} bytes)"
    if not data.startswith(SQLITE_MAGIC):
        return "not an SQLite file (bad magic)"
    (raw_page,) = struct.unpack(">H", data[16:18])
    page_size = 65536 if raw_page == 1 else raw_page
    if page_size < 512 or page_size & (page_size - 1):
        return f"bad page size {raw_page}"
    if size % page_size:
        return f"length {size} is not a multiple of the page size {page_size}"
    change_counter, page_count = struct.unpack(">II", data[24:32])
    (valid_for,) = struct.unpack(">I", data[92:96])
    if valid_for == change_counter and page_count != size // page_size:
        return f"header says {page_count} pages, file holds {size // page_size}"
    return None


def check_integrity(data: bytes) -> IntegrityReport:
    """Header sanity, then ``PRAGMA integrity_check`` on a private copy. Never raises."""
    problem = _header_problem(data)
    return IntegrityReport(False, problem) if problem else _checked(lambda: connect_bytes(data))


def _checked(connect: Callable[[], sqlite3.Connection]) -> IntegrityReport:
    """``PRAGMA integrity_check`` on the connection ``connect`` opens (and this closes). Never raises."""
    try:
        conn = connect()
    except (sqlite3.Error, OverflowError, ValueError) as exc:
        return IntegrityReport(False, f"cannot load: {exc}")
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.Error as exc:
        return IntegrityReport(False, f"integrity_check failed: {exc}")
    finally:
        conn.close()
    results = [str(r[0]) for r in rows]
    return IntegrityReport(True, "ok") if results == ["ok"] else IntegrityReport(False, "; ".join(results[:5]))


def integrity_ok(data: bytes) -> bool:
    return check_integrity(data).ok


def check_file_integrity(path: Path) -> IntegrityReport:
    """``check_integrity`` of the database file at ``path``, read where it lies: its header and size, then
    ``PRAGMA integrity_check`` through SQLite's own page cache. No copy of the file is made (a copy made
    the tab's memory grow by several times the database's size at each boot, for good). A hot journal
    beside it is rolled back first, as opening the store would. Never raises."""
    try:
        size = path.stat().st_size
        with path.open("rb") as file:
            head = file.read(_HEADER_SIZE)
    except OSError as exc:
        return IntegrityReport(False, f"cannot read: {exc}")
    problem = _header_problem(head, size)
    return IntegrityReport(False, problem) if problem else _checked(lambda: sqlite3.connect(path))


ChoiceSource = Literal["current", "previous", "fresh"]


@dataclass(frozen=True)
class Choice:
    """What to open. ``data`` is None for a fresh database. ``notice`` is for the user, or None.

    ``rotate_on_next_save`` says whether the file now in the current slot may become the previous
    generation on the next save: not when it is damaged (that would push out the good copy).
    ``damaged`` names the slots that failed their check, so the host can keep them aside.
    """

    source: ChoiceSource
    data: bytes | None
    notice: str | None
    rotate_on_next_save: bool
    damaged: tuple[Literal["current", "previous"], ...] = ()


@dataclass(frozen=True)
class Generations:
    """The fallback policy between the current save and the previous generation."""

    def choose(
        self,
        current: bytes | None,
        previous: bytes | None,
        previous_saved_at: datetime | None = None,
    ) -> Choice:
        return self._choose(current, previous, previous_saved_at, check_integrity, lambda data: data)

    def choose_files(self, current: Path | None, previous: Path | None, previous_saved_at: datetime | None) -> Choice:
        """``choose`` between two files, checked where they lie (``check_file_integrity``). The choice
        carries the previous generation's bytes when it falls back to it; for the current one ``data`` is
        None (it is opened where it is)."""
        return self._choose(current, previous, previous_saved_at, check_file_integrity, Path.read_bytes)

    def _choose(
        self,
        current: T | None,
        previous: T | None,
        previous_saved_at: datetime | None,
        check: Callable[[T], IntegrityReport],
        load: Callable[[T], bytes],
    ) -> Choice:
        cur = check(current) if current is not None else None
        if current is not None and cur is not None and cur.ok:
            return Choice("current", current if isinstance(current, bytes) else None, None, rotate_on_next_save=True)
        prev = check(previous) if previous is not None else None  # only checked when needed
        damaged: tuple[Literal["current", "previous"], ...] = ("current",) if cur is not None else ()
        if cur is not None:
            log.warning("current database save is damaged: %s", cur.reason)
        if previous is not None and prev is not None and prev.ok:
            if cur is None:
                # The current file is missing but an older one exists: say so, it is still a loss.
                notice = f"The last save was missing; restored the previous one from {_when(previous_saved_at)}."
            else:
                notice = f"The last save was damaged; restored the previous one from {_when(previous_saved_at)}."
            return Choice("previous", load(previous), notice, rotate_on_next_save=False, damaged=damaged)
        if prev is not None:
            log.warning("previous database save is damaged: %s", prev.reason)
            damaged = (*damaged, "previous")
        if not damaged:
            return Choice("fresh", None, None, rotate_on_next_save=False)
        notice = (
            "The saved sessions and memories could not be read (every saved copy was damaged); "
            "started with an empty database."
        )
        return Choice("fresh", None, notice, rotate_on_next_save=False, damaged=damaged)


def _when(saved_at: datetime | None) -> str:
    if saved_at is None:
        return "an earlier save"
    if saved_at.tzinfo is None:
        return saved_at.strftime("%Y-%m-%d %H:%M")
    return saved_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
