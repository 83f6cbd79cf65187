"""The one list of tools. The model's tool list, the permission check and the UI catalog come from it.

A small context window gets a *view* of it (``Registry.view``): the tools in ``CORE_TOOLS`` only, their
schemas without parameter descriptions. The turn looks calls up in the view it offered, so a tool left
out is refused at lookup like an unknown one (``runtime.prompts.fit``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from runtime.host.events import ToolInfo
from runtime.tools.base import JSONSchema, ToolDefinition

# The reduced set for a small window: look, read, write, edit, compute; a skill when one is installed
# (``activate_skill`` drops out of a request when none is). Left out: delete/move/search (run_python
# does them), the web and the memory tools.
CORE_TOOLS: tuple[str, ...] = ("list_files", "read_file", "write_file", "edit_file", "run_python", "activate_skill")


class UnknownTool(KeyError):
    pass


class Registry:
    def __init__(self, tools: Iterable[ToolDefinition] = ()) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        self.version = 0  # counts every change (a prepared request is built for one version)
        for t in tools:
            self.register(t)

    def register(self, definition: ToolDefinition) -> ToolDefinition:
        if definition.name in self._tools:
            raise ValueError(f"tool {definition.name!r} is registered twice")
        self._tools[definition.name] = definition
        self.version += 1
        return definition

    def unregister(self, name: str) -> None:
        """Take a tool out (a tool server's tools when it goes down or is removed: tools/mcp.py)."""
        if self._tools.pop(name, None) is not None:
            self.version += 1

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

    def view(self, names: Iterable[str], *, compact: bool = False) -> Registry:
        """The tools of this registry named in ``names`` (in this registry's order; other names are
        ignored); ``compact``: their schemas without parameter descriptions."""
        wanted = set(names)
        return Registry(_compact(t) if compact else t for t in self if t.name in wanted)


def builtin_registry() -> Registry:
    """Every built-in tool. Modules that define tools add themselves here, nowhere else."""
    return Registry(_builtin_tools())


def _builtin_tools() -> list[ToolDefinition]:
    # Tool modules are imported here (not at import time of this module) and listed explicitly.
    # The memory tools use the workspace's store, which the agent's tool context provides (``ctx.store``).
    from runtime.tools import delegate, files, memory, python, search, skills, web

    return [*files.TOOLS, *search.TOOLS, *web.TOOLS, *python.TOOLS, *memory.TOOLS, *skills.TOOLS, *delegate.TOOLS]


def _compact(definition: ToolDefinition) -> ToolDefinition:
    """The definition with the descriptions of its parameters dropped (its own description stays)."""
    tailor = definition.parameters_for
    return replace(
        definition,
        parameters=_bare(definition.parameters),
        parameters_for=None if tailor is None else lambda workspace: _bare_or_none(tailor(workspace)),
    )


def _bare_or_none(schema: JSONSchema | None) -> JSONSchema | None:
    return None if schema is None else _bare(schema)


def _bare(schema: JSONSchema) -> JSONSchema:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    bare = {name: {k: v for k, v in p.items() if k != "description"} for name, p in properties.items()}
    return {**schema, "properties": bare}
