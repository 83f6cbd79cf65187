"""memory_save / memory_search / memory_delete: notes the agent keeps across sessions (effect ``memory``).

The context these tools get must have a ``store`` attribute: the workspace's open
``runtime.store.Store`` (see ``MemoryContext``). Search text is free text: FTS syntax in it
(``"``, ``*``, ``AND``, ``-``) is treated as plain words and never raises.
"""

from __future__ import annotations

import logging
from typing import Annotated, Protocol

from runtime.store import Store, StoreError
from runtime.store.values import Memory
from runtime.tools.base import ToolDefinition, ToolError, tool

log = logging.getLogger(__name__)

MAX_SEARCH_LIMIT = 50
SNIPPET_CHARS = 500


class MemoryContext(Protocol):
    """What the memory tools need from the agent's context: the workspace's store."""

    @property
    def store(self) -> Store: ...


def _line(memory: Memory) -> str:
    text = " ".join(memory.text.split())
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1] + "…"
    tags = f" (tags: {', '.join(memory.tags)})" if memory.tags else ""
    pin = " [pinned]" if memory.pinned else ""
    return f"[{memory.id}]{pin} {text}{tags}"


@tool("memory")
def memory_save(
    ctx: MemoryContext,
    text: Annotated[str, "The fact or preference to remember, self-contained (it is read without this chat)"],
    tags: Annotated[list[str] | None, "Optional short labels, e.g. ['preference', 'project-x']"] = None,
) -> str:
    """Remember something across sessions: a fact about the user, a preference, a decision.

    Returns the new memory's id.
    """
    try:
        memory = ctx.store.memory_save(text, tags)
    except StoreError as exc:
        raise ToolError(exc.message) from exc
    log.debug("memory %d saved", memory.id)
    return f"Saved memory {memory.id}."


@tool("memory")
def memory_search(
    ctx: MemoryContext,
    query: Annotated[str, "Words to look for; memories matching more of them rank first"],
    limit: Annotated[int, "How many results at most"] = 10,
) -> str:
    """Search saved memories by full text; the best matches come first, each with its id."""
    try:
        bounded = max(1, min(int(limit), MAX_SEARCH_LIMIT))
    except (TypeError, ValueError):
        raise ToolError(f"limit must be a whole number, not {limit!r}.") from None
    hits = ctx.store.memory_search(str(query), limit=bounded)
    if not hits:
        return f"No memories match {query!r}."
    return "\n".join(_line(h.memory) for h in hits)


@tool("memory")
def memory_delete(ctx: MemoryContext, id: Annotated[int, "The id of the memory, as shown by memory_search"]) -> str:
    """Delete a saved memory by its id (for something wrong or no longer true)."""
    try:
        memory_id = int(id)
    except (TypeError, ValueError):
        raise ToolError(f"{id!r} is not a memory id; ids are whole numbers shown by memory_search.") from None
    try:
        ctx.store.memory_delete(memory_id)
    except StoreError as exc:
        raise ToolError(f"{exc.message} Use memory_search to find the right id.") from exc
    return f"Deleted memory {memory_id}."


TOOLS: tuple[ToolDefinition, ...] = (memory_save, memory_search, memory_delete)
