"""What a tool uses of the workspace, declared on the tool: the one place that knows it.

A parameter typed ``WorkspacePath`` names a workspace path (``Annotated[WorkspacePath, "help"]`` to
describe it); the model sees a string. For a ``read`` tool it is what the call reads, for a ``write`` tool
what the call changes. ``@tool(..., walks=Walk(...))`` says the tool walks a whole subtree: the one its
``argument`` names (a ``WorkspacePath`` parameter), or ``top`` when the call gives none, or always ``top``.

Everything that needs to know follows from these declarations, with no list of tool or argument names
anywhere else: the workspace on demand lists what a call uses before it runs (``reach``), the permission
policy finds the instruction paths a write would change, and an approval fingerprints the files it covers.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from runtime.host.workspace_fetch import Reach


class _WorkspacePathMark:
    def __repr__(self) -> str:
        return "WORKSPACE_PATH"


WORKSPACE_PATH = _WorkspacePathMark()
WorkspacePath = Annotated[str, WORKSPACE_PATH]
"""A parameter that names a path in the workspace (relative to its root); to the model and the code a ``str``."""


@dataclass(frozen=True)
class Walk:
    """A tool walks a whole subtree: the one ``argument`` names; ``top`` without it ("": the whole workspace)."""

    argument: str | None = None
    top: str = ""


def is_workspace_path(hint: Any) -> bool:
    """True for ``WorkspacePath``, also inside ``Annotated[...]`` or ``... | None``."""
    origin = get_origin(hint)
    if origin is typing.Annotated:
        base, *extra = get_args(hint)
        return any(e is WORKSPACE_PATH for e in extra) or is_workspace_path(base)
    if origin in (Union, types.UnionType):
        return any(is_workspace_path(a) for a in get_args(hint) if a is not type(None))
    return False


def check_walk(walk: Walk | None, paths: tuple[str, ...], tool: str) -> None:
    """A walk's argument must be one of the tool's ``WorkspacePath`` parameters."""
    if walk is not None and walk.argument is not None and walk.argument not in paths:
        raise TypeError(f"{tool}: walks={walk!r} names no WorkspacePath parameter (it has {list(paths)})")


def reach(paths: tuple[str, ...], walk: Walk | None, arguments: Mapping[str, Any]) -> Reach:
    """What a call with ``arguments`` uses of the workspace, by its tool's declarations."""
    named = tuple(str(arguments[k]) for k in paths if isinstance(arguments.get(k), str))
    if walk is None:
        return Reach(named)
    given = arguments.get(walk.argument) if walk.argument else None
    return Reach(named, (given if isinstance(given, str) else walk.top,))
