"""The one list of tools. The model's tool list, the permission check and the UI catalog come from it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from runtime.host.events import ToolInfo
from runtime.tools.base import ToolDefinition


class UnknownTool(KeyError):
    pass


class Registry:
    def __init__(self, tools: Iterable[ToolDefinition] = ()) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        for t in tools:
            self.register(t)

    def register(self, definition: ToolDefinition) -> ToolDefinition:
        if definition.name in self._tools:
            raise ValueError(f"tool {definition.name!r} is registered twice")
        self._tools[definition.name] = definition
        return definition

    def get(self, name: str) -> ToolDefinition:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownTool(name) from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def openai_tools(self, workspace: Path | None = None) -> list[dict[str, Any]]:
        """The model's tool list; with a workspace, each tool as it applies there (some may drop out)."""
        return [s for t in self if (s := t.openai_schema(workspace)) is not None]

    def catalog(self) -> list[ToolInfo]:
        return [t.catalog_entry() for t in self]


def builtin_registry() -> Registry:
    """Every built-in tool. Modules that define tools add themselves here, nowhere else."""
    return Registry(_builtin_tools())


def _builtin_tools() -> list[ToolDefinition]:
    # Tool modules are imported here (not at import time of this module) and listed explicitly.
    # The memory tools use the workspace's store, which the agent's tool context provides (``ctx.store``).
    from runtime.tools import files, memory, python, search, skills, web

    return [*files.TOOLS, *search.TOOLS, *web.TOOLS, *python.TOOLS, *memory.TOOLS, *skills.TOOLS]
