"""What the store hands out: frozen values. Identity (ids, seq) is assigned by the store.

JSON columns (message content, tool calls, tool arguments, tags, meta) come back decoded.
Timestamps are ISO 8601 UTC strings with milliseconds (``2026-11-29T21:46:43.123Z``), which sort
as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")

MessageKind = Literal["message", "summary", "superseded"]  # superseded: an earlier branch (store/branches.py)
MESSAGE_KINDS: tuple[MessageKind, ...] = ("message", "summary", "superseded")

MessageStatus = Literal["complete", "streaming", "interrupted", "error"]
MESSAGE_STATUSES: tuple[MessageStatus, ...] = ("complete", "streaming", "interrupted", "error")

CallDecision = Literal["auto", "allow", "allow_session", "deny"]
CALL_DECISIONS: tuple[CallDecision, ...] = ("auto", "allow", "allow_session", "deny")

CallStatus = Literal["pending-approval", "running", "ok", "error", "denied"]
CALL_STATUSES: tuple[CallStatus, ...] = ("pending-approval", "running", "ok", "error", "denied")


@dataclass(frozen=True)
class Session:
    id: str
    title: str
    created: str
    updated: str
    model: str | None


@dataclass(frozen=True)
class StoredImage:
    """An image a message carries (pasted or dropped into it), in order (``position``).

    ``data`` is the image's bytes where the reader asked for them (what goes to the model), else None
    (what the UI lists; it fetches each image on its own with ``message_image``).
    """

    id: int
    session_id: str
    seq: int
    position: int
    media_type: str
    name: str
    size: int
    data: bytes | None = None


@dataclass(frozen=True)
class StoredMessage:
    """One message of a session. ``content`` is a string or a list of content parts (OpenAI shape).

    ``name`` is the tool's name on ``role="tool"`` messages; ``tool_calls`` holds an assistant's
    calls in OpenAI shape; ``reasoning`` / ``reasoning_details`` its reasoning (the provider's
    blocks exactly as received, sent back on later requests) and ``finish_reason`` why it ended.
    A ``kind="summary"`` message stands for older messages (``meta["covers_to_seq"]``) that stay in
    the store.
    """

    session_id: str
    seq: int
    role: Role
    content: Any
    kind: MessageKind = "message"
    status: MessageStatus = "complete"
    turn_id: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    reasoning: str = ""
    reasoning_details: tuple[dict[str, Any], ...] = ()
    finish_reason: str | None = None
    images: tuple[StoredImage, ...] = ()  # table message_images (0005_message_images)
    parent: int | None = None  # the message before it on its branch (store/branches.py)


@dataclass(frozen=True)
class LedgerEntry:
    """One tool call: what was asked, what was decided, what happened, how long it took."""

    call_id: str
    session_id: str
    turn_id: str | None
    tool: str
    arguments: dict[str, Any]
    decision: CallDecision | None
    status: CallStatus
    result_summary: str | None
    started: str
    finished: str | None
    duration_ms: int | None


@dataclass(frozen=True)
class Memory:
    id: int
    text: str
    tags: tuple[str, ...]
    pinned: bool
    created: str
    updated: str


@dataclass(frozen=True)
class MemoryHit:
    """A search result; a lower ``rank`` is a better match (SQLite's bm25 is negative-is-better)."""

    memory: Memory
    rank: float


@dataclass(frozen=True)
class PendingApproval:
    """A tool call waiting for the user's decision; kept so it survives a page reload."""

    call_id: str
    session_id: str
    turn_id: str | None
    tool: str
    arguments: dict[str, Any]
    created: str
