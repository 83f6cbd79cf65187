"""Writes to one workspace file, one at a time: the chat's own tool calls and every delegated child's.

A background child runs while the chat's turn goes on, so two write calls naming the same path can
overlap. ``WriteLocks`` is the conversation's one set of per-path locks (``Delegation`` lends it to each
child, the turn runner takes it for the chat's turns): a write tool's call holds the locks of the paths
it names (``ToolDefinition.reach``) while it runs; reads and other paths go on at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from dataclasses import replace
from typing import Any

from runtime.tools.base import ToolDefinition
from runtime.tools.registry import Registry


class WriteLocks:
    """One lock per workspace path."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    def serialized(self, definition: ToolDefinition) -> ToolDefinition:
        """``definition`` whose calls hold the locks of the paths they name while they run."""

        async def run(*args: Any, **arguments: Any) -> Any:
            paths = sorted(set(definition.reach(arguments).paths))  # sorted: two calls never wait on each other
            locks = [self._locks.setdefault(p, asyncio.Lock()) for p in paths]
            async with contextlib.AsyncExitStack() as held:
                for lock in locks:
                    await held.enter_async_context(lock)
                result = definition.func(*args, **arguments)
                return await result if inspect.isawaitable(result) else result

        return replace(definition, func=run)

    def registry(self, tools: Registry) -> Registry:
        """``tools`` with every write tool serialized (the others as they are)."""
        return Registry(self.serialized(t) if t.effect == "write" else t for t in tools)
