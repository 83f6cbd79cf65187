"""``Store``: one workspace's state in SQLite — sessions, messages, tool ledger, memories, approvals,
settings — behind one class that migrates on construction.

Open it on a path (CPython, tests), on bytes (the browser: the database lives in memory and its
``serialize()`` bytes are persisted to OPFS by the host after each committed step), or on nothing
(a fresh in-memory database). sqlite-utils is imported here, lazily: it costs ~0.5 s in Pyodide.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from runtime.store.agent_tasks import AgentTasksMixin
from runtime.store.backup import BackupMixin
from runtime.store.base import Clock, utc_now
from runtime.store.branches import BranchesMixin
from runtime.store.durability import Choice, Generations, connect_bytes
from runtime.store.errors import StoreError
from runtime.store.export import session_json, session_markdown
from runtime.store.fork import ForkMixin
from runtime.store.imports import ImportsMixin
from runtime.store.ledger import LedgerMixin
from runtime.store.memories import MemoriesMixin
from runtime.store.migrations import SCHEMA_VERSION, migrate, schema_version
from runtime.store.search import SearchMixin
from runtime.store.session_agents import SessionAgentsMixin
from runtime.store.sessions import SessionsMixin
from runtime.store.view_pages import ViewPagesMixin
from runtime.store.windows import WindowsMixin

log = logging.getLogger(__name__)

Source = str | Path | bytes | bytearray | memoryview | None

# SQLite's page cache, in KiB (its default is 2,000). In the tab each page it does not hold is a read of a
# sync access handle, which in a private window is a round trip to the browser process: opening a 5,000-message
# session after a chat with a 1 MiB reply (whose pages had pushed its index out) took 16-25 ms more to count
# what comes before its last 50 messages. Filled only as pages are read; SQLite never holds more. 8 MiB was no
# faster there, and grew the tab by ~15 MiB after a 1,000-message session (docs/benchmarks.md).
CACHE_KIB = 4096


def _connect(source: Source) -> sqlite3.Connection:
    if source is None:
        return sqlite3.connect(":memory:")
    if isinstance(source, bytes | bytearray | memoryview):
        try:
            return connect_bytes(bytes(source))
        except (sqlite3.Error, OverflowError, ValueError) as exc:
            raise StoreError("corrupt", f"The saved database could not be loaded: {exc}") from exc
    return sqlite3.connect(str(source))


class Store(
    ForkMixin,
    SessionsMixin,
    SearchMixin,
    ViewPagesMixin,
    BranchesMixin,
    ImportsMixin,
    LedgerMixin,
    MemoriesMixin,
    WindowsMixin,
    SessionAgentsMixin,
    BackupMixin,
    AgentTasksMixin,
):
    """The workspace database. Every write commits on its own unless grouped in ``atomic()``."""

    def __init__(self, source: Source = None, *, clock: Clock = utc_now) -> None:
        from sqlite_utils import Database  # lazily: see the module docstring

        conn = _connect(source)
        self._clock = clock
        try:
            self._db = Database(conn, execute_plugins=False)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            self.migrated = migrate(self._db, self._now())
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError("corrupt", f"The database could not be read: {exc}") from exc
        except BaseException:
            conn.close()
            raise

    @classmethod
    def open_saved(
        cls,
        current: bytes | None,
        previous: bytes | None,
        *,
        previous_saved_at: datetime | None = None,
        clock: Clock = utc_now,
        policy: Generations | None = None,
    ) -> tuple[Store, Choice]:
        """Open the newest intact generation (see ``Generations``); the choice carries any notice."""
        choice = (policy or Generations()).choose(current, previous, previous_saved_at)
        if choice.notice:
            log.warning("%s", choice.notice)
        return cls(choice.data, clock=clock), choice

    # -- life cycle -----------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return schema_version(self._db)

    @property
    def latest_schema_version(self) -> int:
        return SCHEMA_VERSION

    @property
    def changes(self) -> int:
        """Rows inserted, changed or deleted through this store since it opened (SQLite's ``total_changes``):
        equal counts, nothing written in between."""
        return self._db.conn.total_changes

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def atomic(self) -> Iterator[Store]:
        """Group several writes into one committed step (nested blocks use savepoints)."""
        with self._db.atomic():
            yield self

    def serialize(self) -> bytes:
        """The whole database as bytes: exactly what has been committed so far."""
        if self._db.conn.in_transaction:
            raise StoreError("in_transaction", "Cannot save in the middle of a transaction; save after it commits.")
        return self._db.conn.serialize()

    # -- export ---------------------------------------------------------------------------------

    def export_markdown(self, session_id: str) -> str:
        return session_markdown(
            self.get_session(session_id), self.list_messages(session_id), self.ledger_list(session_id)
        )

    def export_json(self, session_id: str) -> dict[str, Any]:
        messages = self.list_messages(session_id, earlier_branches=True)  # every version: it comes back whole
        return session_json(self.get_session(session_id), messages, self.ledger_list(session_id))
