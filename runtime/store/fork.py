"""A fork: a new session whose conversation is one message's branch up to and including it.

The copied messages keep what they were (a message set aside becomes an ordinary one: in the fork it
is the branch in view), their images, their turn ids and their order, numbered from 1; the ledger
stays with the original (a call's id is unique), so a copied call shows what its result says. The
original session does not change. A summary on the branch covers the same messages, renumbered.
"""

from __future__ import annotations

from bisect import bisect_right

from runtime.store.base import dumps, loads
from runtime.store.branches import BranchesMixin
from runtime.store.sessions import SessionsMixin
from runtime.store.values import Session

_COLUMNS = (
    "role, content, tool_calls, tool_call_id, name, turn_id, status, created, reasoning, reasoning_details,"
    " finish_reason"
)


class ForkMixin(SessionsMixin, BranchesMixin):
    def fork_session(self, session_id: str, seq: int, title: str) -> Session:
        """A new session holding the branch of message ``seq`` up to it (``path_to``), titled ``title``."""
        path = self.path_to(session_id, seq)
        model = self._one("SELECT model FROM sessions WHERE id = ?", [session_id])
        with self._db.atomic():
            forked = self.create_session(title, model["model"] if model else None)
            for new_seq, old_seq in enumerate(path, 1):
                self._copy_message(session_id, old_seq, forked.id, new_seq, path)
        return forked

    def _copy_message(self, source: str, old_seq: int, target: str, new_seq: int, path: list[int]) -> None:
        row = self._one(
            f"SELECT kind, meta, {_COLUMNS} FROM messages WHERE session_id = ? AND seq = ?", [source, old_seq]
        )
        assert row is not None  # path_to read it
        meta = loads(row["meta"], {})
        kind = (meta.pop("superseded", None) or {}).get("kind", row["kind"])
        if "covers_to_seq" in meta:  # a summary: what it covers, numbered as in the fork
            meta["covers_to_seq"] = bisect_right(path, int(meta["covers_to_seq"]))
        self._db.execute(
            f"INSERT INTO messages (session_id, seq, parent, kind, meta, {_COLUMNS})"
            f" SELECT ?, ?, ?, ?, ?, {_COLUMNS} FROM messages WHERE session_id = ? AND seq = ?",
            [target, new_seq, new_seq - 1 or None, kind, dumps(meta) if meta else None, source, old_seq],
        )
        self._db.execute(
            "INSERT INTO message_images (session_id, seq, position, media_type, name, data, created)"
            " SELECT ?, ?, position, media_type, name, data, created FROM message_images"
            " WHERE session_id = ? AND seq = ? ORDER BY position",
            [target, new_seq, source, old_seq],
        )
