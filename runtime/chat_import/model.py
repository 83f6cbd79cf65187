"""What an import reads out of another app's export, before anything is stored.

A chat is a tree of messages (``parent`` links), because ChatGPT and Claude keep every edited or
regenerated version; ``current`` names the leaf the other app showed. ``path`` gives the messages
from the root to a leaf, the shape the store keeps as a conversation and its earlier branches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from runtime.store.imported import ImportedChat


@dataclass
class ImportReport:
    """What came in and what did not. ``state``: ok (everything), partial, rejected (nothing)."""

    chats: list[ImportedChat] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)  # Tidepool's own session exports, as read
    skipped: list[str] = field(default_factory=list)  # whole chats or entries that did not come in, with why

    @property
    def state(self) -> Literal["ok", "partial", "rejected"]:
        if not self.chats and not self.sessions:
            return "rejected"
        if self.skipped or any(c.problems for c in self.chats):
            return "partial"
        return "ok"

    def problems(self) -> Iterator[str]:
        yield from self.skipped
        for chat in self.chats:
            for problem in chat.problems:
                yield f"{chat.title or chat.source_id}: {problem}"


class ImportRefused(Exception):
    """The file as a whole is not an export this app reads (the message says why)."""


def joined(parts: Sequence[str]) -> str:
    return "\n\n".join(p for p in (s.strip() for s in parts) if p)
