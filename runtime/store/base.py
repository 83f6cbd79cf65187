"""What every part of the Store shares: the sqlite-utils Database, the clock, row and JSON helpers."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from runtime.store.errors import StoreError

if TYPE_CHECKING:
    from sqlite_utils import Database

Clock = Callable[[], datetime]
Row = dict[str, Any]


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z``: sorts as text."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds") + "Z"


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | None, default: Any = None) -> Any:
    return default if text is None else json.loads(text)


class StoreBase:
    """Holds the connection; the concept mixins (sessions, ledger, memories) build on it."""

    _db: Database
    _clock: Clock

    def _now(self) -> str:
        return iso(self._clock())

    def _rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Row]:
        # db.execute (not db.query): reads need no savepoint, and this is the search hot path.
        cursor = self._db.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def _require_session(self, session_id: str) -> None:
        if self._one("SELECT 1 AS found FROM sessions WHERE id = ?", [session_id]) is None:
            raise StoreError("not_found", f"No session {session_id!r}.", entity="session", key=session_id)

    def _one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Row | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None
