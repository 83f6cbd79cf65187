"""Sessions and their messages: create, rename, list, delete; append and list messages; summaries."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime.store.agent_tasks import CHILD_SESSIONS
from runtime.store.base import Row, dumps, loads
from runtime.store.compaction import KEPT_ROWS
from runtime.store.errors import StoreError
from runtime.store.images import ImagesMixin
from runtime.store.kept import Kept
from runtime.store.search import SearchMixin
from runtime.store.session_agents import AGENT_KEY
from runtime.store.values import (
    MESSAGE_KINDS,
    MESSAGE_STATUSES,
    ROLES,
    MessageKind,
    MessageStatus,
    Role,
    Session,
    StoredMessage,
)
from runtime.store.view_pages import NO_SEQ

_KEEP: Any = object()  # "leave this field as it is" in update_message
_TITLE_CHARS = 60


def _session(row: Row) -> Session:
    return Session(row["id"], row["title"], row["created"], row["updated"], row["model"])


CONTEXT_BATCH = 256  # rows a streamed context holds at a time
DECODED_CHARS = 2_000_000
"""How much stored JSON (characters) the decoded messages kept for the next read may come from: a turn's
every round reads the context again, and decoding it again cost as much as the rest of the step."""
_decoded: Kept[tuple[tuple[str, Any], ...], StoredMessage] = Kept(
    DECODED_CHARS, lambda key, _: sum(len(v) for _, v in key if isinstance(v, str))
)


def _message(row: Row) -> StoredMessage:
    """The row as a message; a row read before with exactly these values gives the same (immutable) value."""
    key = tuple(row.items())
    found = _decoded.get(key)
    if found is None:
        found = _decode(row)
        _decoded.put(key, found)
    return found


def _decode(row: Row) -> StoredMessage:
    return StoredMessage(
        session_id=row["session_id"],
        seq=row["seq"],
        role=row["role"],
        content=loads(row["content"]),
        kind=row["kind"],
        status=row["status"],
        turn_id=row["turn_id"],
        tool_calls=tuple(loads(row["tool_calls"], [])),
        tool_call_id=row["tool_call_id"],
        name=row["name"],
        meta=loads(row["meta"], {}),
        created=row["created"],
        reasoning=row["reasoning"] or "",
        reasoning_details=tuple(loads(row["reasoning_details"], [])),
        finish_reason=row["finish_reason"],
        parent=row.get("parent"),
    )


def _title_from(content: Any) -> str:
    text = content if isinstance(content, str) else ""
    line = " ".join(text.split())
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"


class SessionsMixin(ImagesMixin, SearchMixin):
    # -- sessions -------------------------------------------------------------------------------

    def create_session(self, title: str = "", model: str | None = None, *, session_id: str | None = None) -> Session:
        now = self._now()
        sid = session_id or f"s-{secrets.token_hex(8)}"
        self._db.execute(
            "INSERT INTO sessions (id, title, created, updated, model) VALUES (?, ?, ?, ?, ?)",
            [sid, title, now, now, model],
        )
        return Session(sid, title, now, now, model)

    def get_session(self, session_id: str) -> Session:
        row = self._one("SELECT * FROM sessions WHERE id = ?", [session_id])
        if row is None:
            raise StoreError("not_found", f"No session {session_id!r}.", entity="session", key=session_id)
        return _session(row)

    def list_sessions(self, limit: int | None = None) -> list[Session]:
        """Most recently updated first; a delegated task's child session is not listed (``agent_tasks``)."""
        rows = self._rows(
            f"SELECT * FROM sessions WHERE id NOT IN ({CHILD_SESSIONS}) ORDER BY updated DESC, rowid DESC LIMIT ?",
            [limit or -1],
        )
        return [_session(r) for r in rows]

    def rename_session(self, session_id: str, title: str) -> Session:
        return self._update_session(session_id, title=title.strip())

    def set_session_model(self, session_id: str, model: str | None) -> Session:
        return self._update_session(session_id, model=model)

    def _update_session(self, session_id: str, **fields: Any) -> Session:
        self.get_session(session_id)
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._db.execute(
            f"UPDATE sessions SET {sets}, updated = ? WHERE id = ?", [*fields.values(), self._now(), session_id]
        )
        return self.get_session(session_id)

    def delete_session(self, session_id: str) -> None:
        """The session, its messages, its ledger, its pending approvals and its tasks' child sessions."""
        self.get_session(session_id)
        children = [r["child_session"] for r in self._rows(f"{CHILD_SESSIONS} WHERE session_id = ?", [session_id])]
        with self._db.atomic():
            self._db.execute("DELETE FROM agent_tasks WHERE session_id = ? OR child_session = ?", [session_id] * 2)
            for child in children:
                self.delete_session(child)
            for table in ("message_images", "tool_calls", "approvals"):
                self._db.execute(f"DELETE FROM {table} WHERE session_id = ?", [session_id])
            self._delete_messages(session_id)  # the search index forgets them too (store/search.py)
            self._db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
            self._db.execute("DELETE FROM settings WHERE key = ?", [AGENT_KEY + session_id])

    # -- messages -------------------------------------------------------------------------------

    def append_message(
        self,
        session_id: str,
        role: Role,
        content: Any,
        *,
        kind: MessageKind = "message",
        status: MessageStatus = "complete",
        turn_id: str | None = None,
        tool_calls: Sequence[dict[str, Any]] = (),
        tool_call_id: str | None = None,
        name: str | None = None,
        meta: dict[str, Any] | None = None,
        reasoning: str = "",
        reasoning_details: Sequence[dict[str, Any]] = (),
        finish_reason: str | None = None,
    ) -> StoredMessage:
        """Add a message at the end of the session (``seq`` is assigned here) and touch the session."""
        _check(role in ROLES, f"unknown role {role!r}")
        _check(kind in MESSAGE_KINDS, f"unknown message kind {kind!r}")
        _check(status in MESSAGE_STATUSES, f"unknown message status {status!r}")
        session = self.get_session(session_id)
        now = self._now()
        with self._db.atomic():
            row = self._one("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE session_id = ?", [session_id])
            seq = int(row["seq"]) if row else 1
            last = self._one(  # the message before it on the branch in view (store/branches.py)
                "SELECT MAX(seq) AS seq FROM messages WHERE session_id = ? AND kind != 'superseded'", [session_id]
            )
            self._db.execute(
                "INSERT INTO messages (session_id, seq, role, kind, content, tool_calls, tool_call_id, name,"
                " turn_id, status, meta, created, reasoning, reasoning_details, finish_reason, parent)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    session_id, seq, role, kind, dumps(content), dumps(list(tool_calls)) if tool_calls else None,
                    tool_call_id, name, turn_id, status, dumps(meta) if meta else None, now, reasoning or None,
                    dumps(list(reasoning_details)) if reasoning_details else None, finish_reason,
                    last["seq"] if last else None,
                ],
            )  # fmt: skip
            title = session.title or (_title_from(content) if role == "user" and kind == "message" else "")
            self._db.execute("UPDATE sessions SET updated = ?, title = ? WHERE id = ?", [now, title, session_id])
        return self.get_message(session_id, seq)

    def get_message(self, session_id: str, seq: int) -> StoredMessage:
        row = self._one("SELECT * FROM messages WHERE session_id = ? AND seq = ?", [session_id, seq])
        if row is None:
            key = f"{session_id}#{seq}"
            raise StoreError("not_found", f"No message {key} in the store.", entity="message", key=key)
        return _message(row)

    def update_message(
        self,
        session_id: str,
        seq: int,
        *,
        content: Any = _KEEP,
        status: MessageStatus | None = None,
        meta: dict[str, Any] | None = None,
    ) -> StoredMessage:
        """Change a message's content, status or meta (e.g. a streamed reply that was interrupted)."""
        current = self.get_message(session_id, seq)
        _check(status is None or status in MESSAGE_STATUSES, f"unknown message status {status!r}")
        new_content = current.content if content is _KEEP else content
        new_meta = meta if meta is not None else current.meta
        self._db.execute(
            "UPDATE messages SET content = ?, status = ?, meta = ? WHERE session_id = ? AND seq = ?",
            [dumps(new_content), status or current.status, dumps(new_meta) if new_meta else None, session_id, seq],
        )
        return self.get_message(session_id, seq)

    def list_messages(
        self,
        session_id: str,
        *,
        after_seq: int = 0,
        limit: int | None = None,
        earlier_branches: bool = False,
        before_seq: int | None = None,
    ) -> list[StoredMessage]:
        """Every message of the session's current branch in order (after ``after_seq``, before
        ``before_seq``), summaries included (they are messages too); with ``earlier_branches`` also those
        an edit or a regenerate replaced (store/branches.py)."""
        rows = self._message_rows(session_id, after_seq, limit, earlier_branches, before_seq)
        return [_message(r) for r in rows]

    def _message_rows(
        self,
        session_id: str,
        after_seq: int,
        limit: int | None,
        earlier_branches: bool = False,
        before_seq: int | None = None,
    ) -> list[Row]:
        branch = "" if earlier_branches else "AND kind != 'superseded'"
        return self._rows(
            f"SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq < ? {branch} ORDER BY seq LIMIT ?",
            [session_id, after_seq, NO_SEQ if before_seq is None else before_seq, limit or -1],
        )

    def mark_interrupted(self, session_id: str | None = None) -> int:
        """Messages still ``streaming`` (the page went away mid-turn) become ``interrupted``."""
        where, params = ("AND session_id = ?", [session_id]) if session_id else ("", [])
        cursor = self._db.execute(
            f"UPDATE messages SET status = 'interrupted' WHERE status = 'streaming' {where}", params
        )
        return cursor.rowcount

    # -- compaction -----------------------------------------------------------------------------

    def save_summary(
        self, session_id: str, text: str, covers_to_seq: int, *, turn_id: str | None = None
    ) -> StoredMessage:
        """Store a summary of every message up to ``covers_to_seq``; the originals stay in the store."""
        _check(bool(text.strip()), "a summary needs text")
        return self.append_message(
            session_id, "system", text, kind="summary", turn_id=turn_id, meta={"covers_to_seq": covers_to_seq}
        )

    def context_messages(self, session_id: str) -> list[StoredMessage]:
        """What the model should see: the latest summary, what it never compacts, then later messages.

        Without a summary this is every message. Messages kept from the summarized range (system
        messages, activated skill bodies) follow the summary in their original order. User messages
        come with their images' bytes (``store/images.py``). Only those rows are read: a step costs
        what the model sees, not what the session has kept.
        """
        return [m for part in self._context_parts(session_id, None, _message) for m in part]

    def context_stream(self, session_id: str, batch: int = CONTEXT_BATCH) -> Iterator[StoredMessage]:
        """``context_messages`` read ``batch`` rows at a time, images without their bytes, nothing kept:
        what holds one batch at a time may go through a context of any size (the gauge of one over the
        window)."""
        for part in self._context_parts(session_id, batch, _decode):
            yield from part

    def context_size(self, session_id: str) -> tuple[int, int, int]:
        """The messages ``context_messages`` would read after the latest summary, the characters of their
        stored content and tool calls, and their images: a cheap measure of the model's view of the session."""
        latest = self._rows(
            "SELECT meta FROM messages WHERE session_id = ? AND kind = 'summary' ORDER BY seq DESC LIMIT 1",
            [session_id],
        )
        cut = int((loads(latest[0]["meta"]) or {}).get("covers_to_seq", 0)) if latest else 0
        later = "FROM messages m WHERE m.session_id = ? AND m.seq > ? AND m.kind = 'message'"
        rows = self._rows(
            "SELECT count(*) AS n, coalesce(sum(length(m.content) + coalesce(length(m.tool_calls), 0)), 0) AS chars,"
            f" (SELECT count(*) FROM message_images i WHERE i.session_id = ? AND i.seq IN (SELECT m.seq {later}))"
            f" AS images {later}",
            [session_id, session_id, cut, session_id, cut],
        )
        return int(rows[0]["n"]), int(rows[0]["chars"]), int(rows[0]["images"])

    def _context_parts(
        self, session_id: str, batch: int | None, decode: Callable[[Row], StoredMessage]
    ) -> Iterator[list[StoredMessage]]:
        latest = self._rows(
            "SELECT * FROM messages WHERE session_id = ? AND kind = 'summary' ORDER BY seq DESC LIMIT 1",
            [session_id],
        )
        summary, kept, after = None, [], 0
        if latest:
            summary = decode(latest[0])
            after = int(summary.meta.get("covers_to_seq", 0))
            rows = self._rows(
                f"SELECT * FROM messages WHERE session_id = ? AND seq <= ? AND {KEPT_ROWS} ORDER BY seq",
                [session_id, after],
            )
            kept = [decode(r) for r in rows]
        while True:
            rows = self._message_rows(session_id, after, batch)
            later = [m for m in map(decode, rows) if not latest or m.kind == "message"]
            part = self.with_images([*kept, *later], data=batch is None)
            yield part if summary is None else [summary, *part]
            if batch is None or len(rows) < batch:
                return
            summary, kept, after = None, [], rows[-1]["seq"]


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise StoreError("invalid", message)
