"""What an import reads out of another app's export, before anything is stored.

A chat is a tree of messages (``parent`` links), because ChatGPT and Claude keep every edited or
regenerated version; ``current`` names the leaf the other app showed. ``path`` gives the messages
from the root to a leaf, the shape the store keeps as a conversation and its earlier branches.
The store (``store/imported.py``) takes them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
