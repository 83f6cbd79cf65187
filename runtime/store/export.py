"""A session as Markdown (to read) and as JSON (to keep or re-import). Pure functions on values."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from runtime.store.values import LedgerEntry, Session, StoredMessage

EXPORT_FORMAT = "tidepool.session"
EXPORT_VERSION = 1
_HEADINGS = {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool result"}


def content_text(content: Any) -> str:
    """Plain text of a message's content: a string, or the text of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'part')}]")
        return "\n".join(parts)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _fenced(text: str, info: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _call_lines(message: StoredMessage, ledger: dict[str, LedgerEntry]) -> list[str]:
    lines = []
    for call in message.tool_calls:
        call_id = str(call.get("id", ""))
        function = call.get("function") or {}
        name = function.get("name", "?")
        entry = ledger.get(call_id)
        status = f" — {entry.status}" if entry else ""
        lines.append(f"**Tool call** `{name}`{status}\n\n{_fenced(str(function.get('arguments', '')), 'json')}")
    return lines


def _message_block(message: StoredMessage, ledger: dict[str, LedgerEntry]) -> str:
    if message.kind == "summary":
        heading = "Summary of earlier messages"
    else:
        heading = _HEADINGS.get(message.role, message.role)
        if message.role == "tool" and message.name:
            heading += f": `{message.name}`"
    if message.status != "complete":
        heading += f" ({message.status})"
    text = content_text(message.content)
    body = _fenced(text) if message.role == "tool" else text
    parts = [f"## {heading}", body.strip()] if body.strip() else [f"## {heading}"]
    return "\n\n".join([*parts, *_call_lines(message, ledger)])


def session_markdown(session: Session, messages: Sequence[StoredMessage], calls: Sequence[LedgerEntry]) -> str:
    ledger = {c.call_id: c for c in calls}
    head = [
        f"# {session.title or 'Untitled session'}",
        "",
        f"- Session: `{session.id}`",
        f"- Model: {session.model or 'not set'}",
        f"- Created: {session.created}",
        f"- Updated: {session.updated}",
    ]
    blocks = [_message_block(m, ledger) for m in messages]
    return "\n".join(head) + "\n\n" + "\n\n".join(blocks) + "\n"


def session_json(session: Session, messages: Sequence[StoredMessage], calls: Sequence[LedgerEntry]) -> dict[str, Any]:
    """A JSON-ready document: the session, every message (summaries too) and the tool-call ledger."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "session": asdict(session),
        "messages": [
            {
                **asdict(m),
                "tool_calls": list(m.tool_calls),
                "reasoning_details": list(m.reasoning_details),
                "images": [{"name": i.name, "media_type": i.media_type, "size": i.size} for i in m.images],
            }
            for m in messages
        ],
        "tool_calls": [asdict(c) for c in calls],
    }
