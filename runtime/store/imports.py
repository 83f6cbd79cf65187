"""Sessions that come from a file: Tidepool's own session export, and chats read from other apps.

A Tidepool export (``export.py``) comes back as it left: the same messages with their seq, kinds,
statuses, times, reasoning and tool calls, and the same ledger. Its session id is kept when it is
free here, so importing into an empty profile is exact; otherwise the session (and any colliding
tool-call id) gets a new one. A chat from another app (``runtime.chat_import``) becomes a session
whose current branch is the path the other app showed, its other versions stored as earlier
branches (``branches.py``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from runtime.store.base import StoreBase, dumps
from runtime.store.errors import StoreError
from runtime.store.export import EXPORT_FORMAT, EXPORT_VERSION
from runtime.store.values import CALL_STATUSES, MESSAGE_KINDS, MESSAGE_STATUSES, ROLES, Session

if TYPE_CHECKING:
    from runtime.store.imported import ImportedChat, ImportedMessage

_MESSAGE_COLUMNS = (
    "seq", "role", "kind", "content", "tool_calls", "tool_call_id", "name", "turn_id", "status", "meta", "created",
    "reasoning", "reasoning_details", "finish_reason", "parent",
)  # fmt: skip
_CALL_COLUMNS = (
    "call_id", "turn_id", "tool", "arguments", "decision", "status", "result_summary", "started", "finished",
    "duration_ms",
)  # fmt: skip


class ImportsMixin(StoreBase):
    def import_session_document(self, document: Mapping[str, Any]) -> Session:
        """Store a Tidepool session export (``session_json``); raises StoreError("invalid") when it is not one."""
        _check_document(document)
        head = document["session"]
        session_id = str(head.get("id") or "")
        if not session_id or self._one("SELECT 1 AS found FROM sessions WHERE id = ?", [session_id]):
            session_id = f"s-{secrets.token_hex(8)}"
        calls = [c for c in document.get("tool_calls") or [] if isinstance(c, Mapping)]
        renamed = self._free_call_ids([str(c.get("call_id") or "") for c in calls])
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO sessions (id, title, created, updated, model) VALUES (?, ?, ?, ?, ?)",
                [session_id, str(head.get("title") or ""), str(head.get("created") or self._now()),
                 str(head.get("updated") or self._now()), head.get("model")],
            )  # fmt: skip
            for message in document["messages"]:
                self._insert_message(session_id, _renamed_message(message, renamed))
            for call in calls:
                self._insert_call(session_id, call, renamed)
        return self._session_row(session_id)

    def import_chat(self, chat: ImportedChat) -> Session:
        """A chat read from another app: the path it showed in view, its other leaves as earlier branches.

        Versions fork at a user message here (an edit or a regenerate sends the user's message again,
        ``branches.py``), so a branch that parts at a reply starts with a copy of the message before it."""
        session_id = f"s-{secrets.token_hex(8)}"
        created = chat.created or self._now()
        current = chat.path()
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO sessions (id, title, created, updated, model) VALUES (?, ?, ?, ?, ?)",
                [session_id, chat.title or _title(current), created, chat.updated or created, _model(current)],
            )
            seqs = self._insert_path(session_id, current, chat, None, 0)
            for branch, leaf in enumerate(chat.leaves()[1:], start=1):
                path = chat.path(leaf)
                start = _parting(current, path)
                self._insert_path(session_id, path[start:], chat, seqs[start - 1] if start else None, branch)
        return self._session_row(session_id)

    def _insert_path(
        self, session_id: str, path: Sequence[ImportedMessage], chat: ImportedChat, parent: int | None, branch: int
    ) -> list[int]:
        """Store ``path`` as a chain after message ``parent``; the seqs given, in order."""
        row = self._one("SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE session_id = ?", [session_id])
        seq = int(row["seq"]) if row else 0
        seqs: list[int] = []
        for message in path:
            seq += 1
            self._insert_imported(session_id, seq, message, chat, branch=branch, parent=parent)
            seqs.append(seq)
            parent = seq
        return seqs

    def _insert_imported(
        self,
        session_id: str,
        seq: int,
        message: ImportedMessage,
        chat: ImportedChat,
        *,
        branch: int,
        parent: int | None,
    ) -> None:
        meta: dict[str, Any] = {"imported": {"from": chat.source, "id": message.id}}
        if branch:
            meta["superseded"] = {"kind": "message", "branch": branch}
        self._insert_message(
            session_id,
            {
                "seq": seq, "role": message.role, "kind": "superseded" if branch else "message",
                "content": message.text, "meta": meta, "created": message.created or chat.created or self._now(),
                "reasoning": message.reasoning, "turn_id": f"import-{message.id}", "parent": parent,
            },
        )  # fmt: skip

    def _insert_message(self, session_id: str, message: Mapping[str, Any]) -> None:
        values = [_column(message, name) for name in _MESSAGE_COLUMNS]
        marks = ", ".join("?" for _ in range(len(_MESSAGE_COLUMNS) + 1))
        self._db.execute(
            f"INSERT INTO messages (session_id, {', '.join(_MESSAGE_COLUMNS)}) VALUES ({marks})", [session_id, *values]
        )

    def _insert_call(self, session_id: str, call: Mapping[str, Any], renamed: Mapping[str, str]) -> None:
        values = {name: call.get(name) for name in _CALL_COLUMNS}
        values["call_id"] = renamed.get(str(values["call_id"]), str(values["call_id"]))
        values["arguments"] = dumps(values["arguments"] if values["arguments"] is not None else {})
        if values["status"] not in CALL_STATUSES:
            values["status"] = "error"
        values["started"] = values["started"] or self._now()
        marks = ", ".join("?" for _ in range(len(_CALL_COLUMNS) + 1))
        self._db.execute(
            f"INSERT INTO tool_calls (session_id, {', '.join(_CALL_COLUMNS)}) VALUES ({marks})",
            [session_id, *values.values()],
        )

    def _free_call_ids(self, call_ids: Sequence[str]) -> dict[str, str]:
        """New ids for the tool calls whose ids this store already holds (the same export imported twice)."""
        taken = [c for c in call_ids if c and self._one("SELECT 1 AS found FROM tool_calls WHERE call_id = ?", [c])]
        return {c: f"{c}-{secrets.token_hex(3)}" for c in taken}

    def _session_row(self, session_id: str) -> Session:
        row = self._one("SELECT * FROM sessions WHERE id = ?", [session_id])
        if row is None:  # pragma: no cover - written just above
            raise StoreError("not_found", f"No session {session_id!r}.", entity="session", key=session_id)
        return Session(row["id"], row["title"], row["created"], row["updated"], row["model"])


def _check_document(document: Mapping[str, Any]) -> None:
    if document.get("format") != EXPORT_FORMAT:
        raise StoreError("invalid", "This is not a Tidepool session export.")
    version = document.get("version")
    if not isinstance(version, int) or version > EXPORT_VERSION:
        raise StoreError("invalid", f"This session export is version {version}; this app reads up to {EXPORT_VERSION}.")
    messages = document.get("messages")
    if not isinstance(document.get("session"), Mapping) or not isinstance(messages, list):
        raise StoreError("invalid", "The session export has no session or no messages.")
    seqs: set[int] = set()
    for index, message in enumerate(messages):
        problem = _message_problem(message, seqs)
        if problem:
            raise StoreError("invalid", f"The session export's message {index + 1} {problem}.")


def _message_problem(message: object, seqs: set[int]) -> str:
    if not isinstance(message, Mapping):
        return "is not an object"
    seq = message.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1 or seq in seqs:
        return "has no valid seq (a positive number, each once)"
    seqs.add(seq)
    parent = message.get("parent")
    if parent is not None and (isinstance(parent, bool) or not isinstance(parent, int) or parent >= seq):
        return "has a parent that is not an earlier message"
    if message.get("role") not in ROLES:
        return f"has an unknown role {message.get('role')!r}"
    if message.get("kind", "message") not in MESSAGE_KINDS or message.get("status", "complete") not in MESSAGE_STATUSES:
        return "has an unknown kind or status"
    return ""


def _renamed_message(message: Mapping[str, Any], renamed: Mapping[str, str]) -> Mapping[str, Any]:
    if not renamed:
        return message
    out = dict(message)
    if out.get("tool_call_id") in renamed:
        out["tool_call_id"] = renamed[out["tool_call_id"]]
    out["tool_calls"] = [
        {**call, "id": renamed.get(str(call.get("id")), call.get("id"))} if isinstance(call, Mapping) else call
        for call in message.get("tool_calls") or []
    ]
    return out


def _column(message: Mapping[str, Any], name: str) -> Any:
    value = message.get(name)
    if name in ("content",):
        return dumps(value if value is not None else "")
    if name in ("tool_calls", "reasoning_details", "meta"):
        return dumps(list(value) if name != "meta" else value) if value else None
    if name == "kind":
        return value or "message"
    if name == "status":
        return value or "complete"
    if name == "reasoning":
        return value or None
    return value


def _parting(current: Sequence[ImportedMessage], path: Sequence[ImportedMessage]) -> int:
    """Where ``path`` leaves ``current``, moved back to the user message its first reply answers."""
    start = 0
    while start < min(len(current), len(path)) and current[start].id == path[start].id:
        start += 1
    if start >= len(path):
        return len(path)
    while start > 0 and path[start].role != "user":
        start -= 1
    return start


def _title(messages: Sequence[ImportedMessage]) -> str:
    first = next((m.text for m in messages if m.role == "user"), "")
    lines = [s.strip() for s in first.splitlines() if s.strip()]
    line = next((s for s in lines if not (s.startswith("[") and s.endswith("]"))), lines[0] if lines else "")
    return line if len(line) <= 80 else line[:79].rstrip() + "…"


def _model(messages: Sequence[ImportedMessage]) -> str | None:
    return next((m.model for m in reversed(messages) if m.model), None)
