"""What an import reads out of another app's export, before anything is stored.

A chat is a tree of messages (``parent`` links), because ChatGPT and Claude keep every edited or
regenerated version; ``current`` names the leaf the other app showed. ``path`` gives the messages
from the root to a leaf, the shape the store keeps as a conversation and its earlier branches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ImportRole = Literal["user", "assistant"]


@dataclass(frozen=True)
class ImportedMessage:
    id: str
    parent: str | None
    role: ImportRole
    text: str
    created: str = ""  # ISO 8601 UTC, "" when the export gives no time
    reasoning: str = ""
    model: str | None = None


@dataclass(frozen=True)
class ImportedChat:
    source: str  # "chatgpt", "claude"
    source_id: str
    title: str
    created: str
    updated: str
    messages: tuple[ImportedMessage, ...]
    current: str | None  # the leaf shown in the other app
    problems: tuple[str, ...] = ()  # what of this chat could not come in, in words

    def path(self, leaf: str | None = None) -> list[ImportedMessage]:
        """The messages from the root to ``leaf`` (default: the current one), oldest first."""
        by_id = {m.id: m for m in self.messages}
        node = by_id.get(leaf or self.current or "") or (self.messages[-1] if self.messages else None)
        out: list[ImportedMessage] = []
        seen: set[str] = set()
        while node is not None and node.id not in seen:
            seen.add(node.id)
            out.append(node)
            node = by_id.get(node.parent or "")
        return out[::-1]

    def leaves(self) -> list[str]:
        """Every leaf, the current one first, the others oldest first."""
        parents = {m.parent for m in self.messages}
        leaves = [m.id for m in self.messages if m.id not in parents]
        current = self.path()[-1].id if self.messages else None
        return sorted(leaves, key=lambda leaf: leaf != current)

    def branch_count(self) -> int:
        return max(1, len(self.leaves()))


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
