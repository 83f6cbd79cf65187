"""Branches of a conversation: the versions an edit or a regenerate made, and which one is in view.

Every message names the one before it on its branch (``parent``; NULL for a session's first), so a
session's messages form a tree whose root-to-leaf paths are its branches. Exactly one path is in
view: its rows have their own kind; every other row has ``kind="superseded"`` and keeps what it was
in ``meta["superseded"]`` (its kind and the branch number it was set aside with, a counter that grows
with each change of view). Everything the model and the UI read (``list_messages``,
``context_messages``) is the path in view only; ``list_messages(..., earlier_branches=True)`` reads all.

Editing a message the person sent (or asking again for the last reply) sets that turn and everything
after it aside (``supersede_turn``); the new turn is appended after the message before it, a sibling of
the one it replaced. ``show_branch`` brings another version back into view, with the later turns that
were last in view under it. Nothing is ever deleted; pending approvals of a turn set aside are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.store.base import Row, StoreBase, dumps, loads
from runtime.store.errors import StoreError


@dataclass(frozen=True)
class Version:
    """One version of a user message: its seq, its text (content as stored), whether it is in view, and
    when it was last in view (its branch number; the one in view ranks above every other)."""

    seq: int
    content: Any
    in_view: bool
    rank: int


def _rank(row: Row) -> int:
    if row["kind"] != "superseded":
        return 1 << 62
    return int((loads(row["meta"], {}).get("superseded") or {}).get("branch", 0))


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
        with self._db.atomic():
            count = self._supersede_from(session_id, int(first["seq"]))
            self._db.execute("UPDATE sessions SET updated = ? WHERE id = ?", [self._now(), session_id])
        return count

    def versions(self, session_id: str, from_parent: int | None = None) -> dict[int | None, list[Version]]:
        """The user messages that have other versions, by the message they follow (None: the session's
        first), each list in the order the versions were made; with ``from_parent``, only those following
        message ``from_parent`` or a later one (a view of a long session's end reads its end)."""
        since = "" if from_parent is None else "AND parent >= ?"
        forks = self._rows(
            f"SELECT parent FROM messages WHERE session_id = ? AND role = 'user' {since}"
            " GROUP BY parent HAVING COUNT(*) > 1",
            [session_id] if from_parent is None else [session_id, from_parent],
        )
        if not forks:
            return {}
        parents = [r["parent"] for r in forks if r["parent"] is not None]
        rows = self._rows(
            "SELECT seq, parent, kind, content, meta FROM messages WHERE session_id = ? AND role = 'user'"
            f" AND (parent IN ({', '.join('?' * len(parents))}) OR (parent IS NULL AND ?)) ORDER BY seq",
            [session_id, *parents, len(parents) < len(forks)],
        )
        out: dict[int | None, list[Version]] = {}
        for row in rows:
            out.setdefault(row["parent"], []).append(
                Version(int(row["seq"]), loads(row["content"]), row["kind"] != "superseded", _rank(row))
            )
        return {parent: group for parent, group in out.items() if len(group) > 1}

    def show_branch(self, session_id: str, seq: int) -> int:
        """Bring message ``seq`` into view with its earlier messages and, under it, the later ones that were
        last in view there; the branch in view from where they part is set aside. Returns how many
        messages came into view (0: it was in view already)."""
        row = self._message_row(session_id, seq)
        if row["kind"] != "superseded":
            return 0
        up = self._hidden_ancestors(session_id, row)
        down = self._last_in_view_below(session_id, seq)
        fork = up[-1]["parent"] if up else row["parent"]
        with self._db.atomic():
            self._supersede_from(session_id, 1 if fork is None else int(fork) + 1)
            for shown in [*up, row, *down]:
                meta = loads(shown["meta"], {})
                kind = (meta.pop("superseded", None) or {}).get("kind", "message")
                self._db.execute(
                    "UPDATE messages SET kind = ?, meta = ? WHERE session_id = ? AND seq = ?",
                    [kind, dumps(meta) if meta else None, session_id, shown["seq"]],
                )
            self._db.execute("UPDATE sessions SET updated = ? WHERE id = ?", [self._now(), session_id])
        return len(up) + 1 + len(down)

    def path_to(self, session_id: str, seq: int) -> list[int]:
        """The seqs from the session's first message to ``seq`` on its branch, with the tool results that
        answer ``seq``'s calls (what a fork from it copies)."""
        self._message_row(session_id, seq)
        up = self._rows(
            "WITH RECURSIVE up(seq, parent) AS (SELECT seq, parent FROM messages WHERE session_id = ? AND seq = ?"
            " UNION ALL SELECT m.seq, m.parent FROM messages m JOIN up ON m.session_id = ? AND m.seq = up.parent)"
            " SELECT seq FROM up",
            [session_id, seq, session_id],
        )
        path = sorted(int(r["seq"]) for r in up)
        while True:
            tool = self._one(
                "SELECT seq FROM messages WHERE session_id = ? AND parent = ? AND role = 'tool' ORDER BY seq LIMIT 1",
                [session_id, path[-1]],
            )
            if tool is None:
                return path
            path.append(int(tool["seq"]))

    def _message_row(self, session_id: str, seq: int) -> Row:
        self._require_session(session_id)
        row = self._one("SELECT * FROM messages WHERE session_id = ? AND seq = ?", [session_id, seq])
        if row is None:
            key = f"{session_id}#{seq}"
            raise StoreError("not_found", f"No message {key} in the store.", entity="message", key=key)
        return row

    def _hidden_ancestors(self, session_id: str, row: Row) -> list[Row]:
        """The messages before ``row`` on its branch that are not in view, nearest first."""
        out: list[Row] = []
        parent = row["parent"]
        while parent is not None:
            above = self._one("SELECT * FROM messages WHERE session_id = ? AND seq = ?", [session_id, parent])
            if above is None or above["kind"] != "superseded":
                break
            out.append(above)
            parent = above["parent"]
        return out

    def _last_in_view_below(self, session_id: str, seq: int) -> list[Row]:
        """Down from ``seq``: at each step the child that was in view last."""
        out: list[Row] = []
        while True:
            children = self._rows("SELECT * FROM messages WHERE session_id = ? AND parent = ?", [session_id, seq])
            if not children:
                return out
            child = max(children, key=lambda r: (_rank(r), r["seq"]))
            out.append(child)
            seq = int(child["seq"])

    def _supersede_from(self, session_id: str, seq: int) -> int:
        """Set aside the rows in view from ``seq`` on (the caller holds the transaction)."""
        earlier = self._rows("SELECT meta FROM messages WHERE session_id = ? AND kind = 'superseded'", [session_id])
        branch = 1 + max((int(loads(r["meta"], {}).get("superseded", {}).get("branch", 0)) for r in earlier), default=0)
        rows = self._rows(
            "SELECT seq, kind, turn_id, meta FROM messages WHERE session_id = ? AND seq >= ? AND kind != 'superseded'",
            [session_id, seq],
        )
        for row in rows:
            meta = loads(row["meta"], {})
            meta["superseded"] = {"kind": row["kind"], "branch": branch}
            self._db.execute(
                "UPDATE messages SET kind = 'superseded', meta = ? WHERE session_id = ? AND seq = ?",
                [dumps(meta), session_id, row["seq"]],
            )
        for turn in sorted({row["turn_id"] for row in rows if row["turn_id"]}):
            self._db.execute("DELETE FROM approvals WHERE session_id = ? AND turn_id = ?", [session_id, turn])
        return len(rows)
