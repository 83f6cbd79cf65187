"""Which stored messages a session view holds (``runtime.persist.display``): its last ones, a page of earlier
ones above those shown, or a page of later ones below a search's hit, and how many come before and after.

Counted over the rows a view shows (``SHOWN_ROWS``), never by reading a message. A page's bounds fall where a
message in view begins, so the results of a call stay with the message that made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from runtime.store.base import StoreBase

NO_SEQ = 2**62  # above every seq: "before" no message
SHOWN_ROWS = "kind != 'superseded' AND role != 'tool'"
"""The rows a view counts (tool results go with their call; versions set aside are not in view): the partial
index ``messages_shown`` (migration 0010) holds exactly these, so counting them reads no message."""


@dataclass(frozen=True)
class ViewPage:
    """The messages to list (seq after ``after_seq``, before ``before_seq``; None: to the last) and how many in
    view come before and after them."""

    after_seq: int
    before_seq: int | None
    earlier: int
    later: int


class ViewPagesMixin(StoreBase):
    def view_page(self, session_id: str, shown: int, before: int | None = None, after: int | None = None) -> ViewPage:
        """The last ``shown`` messages (0: all) before seq ``before`` (None: the newest), or the first ``shown``
        after seq ``after``."""
        if after is not None:
            end = self._nth_shown_after(session_id, after, shown) if shown > 0 else None
            later = self._shown_count(session_id, ">=", end) if end is not None else 0
            return ViewPage(after, end, self._shown_count(session_id, "<=", after), later)
        if before is not None:  # the page ends where a message in view begins: a call's results stay with it
            before = self._first_shown_from(session_id, before)
        later = self._shown_count(session_id, ">=", before) if before is not None else 0
        if shown == 0:
            return ViewPage(0, before, 0, later)
        rows = self._rows(
            f"SELECT seq FROM messages WHERE session_id = ? AND seq < ? AND {SHOWN_ROWS}"
            " ORDER BY seq DESC LIMIT 1 OFFSET ?",
            [session_id, NO_SEQ if before is None else before, shown - 1],
        )
        if not rows:
            return ViewPage(0, before, 0, later)
        start = int(rows[0]["seq"])
        return ViewPage(start - 1, before, self._shown_count(session_id, "<", start), later)

    def _first_shown_from(self, session_id: str, seq: int) -> int | None:
        row = self._one(
            f"SELECT seq FROM messages WHERE session_id = ? AND seq >= ? AND {SHOWN_ROWS} ORDER BY seq LIMIT 1",
            [session_id, seq],
        )
        return int(row["seq"]) if row else None

    def _nth_shown_after(self, session_id: str, seq: int, n: int) -> int | None:
        """Where a page of ``n`` messages in view after ``seq`` ends: the first past them (None: fewer come)."""
        row = self._one(
            f"SELECT seq FROM messages WHERE session_id = ? AND seq > ? AND {SHOWN_ROWS} ORDER BY seq LIMIT 1 OFFSET ?",
            [session_id, seq, n],
        )
        return int(row["seq"]) if row else None

    def _shown_count(self, session_id: str, op: Literal["<", "<=", ">="], seq: int) -> int:
        row = self._one(
            f"SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND seq {op} ? AND {SHOWN_ROWS}",
            [session_id, seq],
        )
        return int(row["n"]) if row else 0
