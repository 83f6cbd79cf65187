"""Earlier branches of a conversation: what an edited or regenerated turn replaced.

Editing a message the person sent (or asking again for the last reply) replaces that turn and every
later message in the conversation. Nothing is deleted: the replaced messages get
``kind="superseded"`` and keep what they were in ``meta["superseded"]`` (their kind and the branch
number), so an earlier branch can still be read back (``list_messages(..., earlier_branches=True)``)
while everything the model and the UI see (``list_messages``, ``context_messages``) is the current
branch only. Approvals still pending for a replaced call are dropped with it.
"""

from __future__ import annotations

from runtime.store.base import StoreBase, dumps, loads


class BranchesMixin(StoreBase):
    def supersede_turn(self, session_id: str, turn_id: str) -> int:
        """Make turn ``turn_id`` (from its first message on) and every later message an earlier branch.

        Returns how many messages were set aside; 0 when the turn has no stored message (a turn that
        failed before it began is not stored), in which case nothing changes.
        """
        self._require_session(session_id)
        first = self._one(
            "SELECT MIN(seq) AS seq FROM messages WHERE session_id = ? AND turn_id = ? AND kind != 'superseded'",
            [session_id, turn_id],
        )
        if first is None or first["seq"] is None:
            return 0
        return self._supersede_from(session_id, int(first["seq"]))

    def _supersede_from(self, session_id: str, seq: int) -> int:
        earlier = self._rows("SELECT meta FROM messages WHERE session_id = ? AND kind = 'superseded'", [session_id])
        branch = 1 + max((int(loads(r["meta"], {}).get("superseded", {}).get("branch", 0)) for r in earlier), default=0)
        rows = self._rows(
            "SELECT seq, kind, turn_id, meta FROM messages WHERE session_id = ? AND seq >= ? AND kind != 'superseded'",
            [session_id, seq],
        )
        with self._db.atomic():
            for row in rows:
                meta = loads(row["meta"], {})
                meta["superseded"] = {"kind": row["kind"], "branch": branch}
                self._db.execute(
                    "UPDATE messages SET kind = 'superseded', meta = ? WHERE session_id = ? AND seq = ?",
                    [dumps(meta), session_id, row["seq"]],
                )
            turns = sorted({row["turn_id"] for row in rows if row["turn_id"]})
            for turn in turns:
                self._db.execute("DELETE FROM approvals WHERE session_id = ? AND turn_id = ?", [session_id, turn])
            self._db.execute("UPDATE sessions SET updated = ? WHERE id = ?", [self._now(), session_id])
        return len(rows)
