"""Calls that ask in every mode: changes to the agent's instructions, and a recording's calls to the network.

*Instructions* are ``AGENTS.md`` and everything under ``.agents/``, as ``runtime.tools.instructions``
(their one definition) says.

A call *changes instructions* when it is a ``write`` tool (write_file, edit_file, delete_file, move_file,
and any file tool added later) and one of its path arguments (its ``WorkspacePath`` parameters: ``path``,
``src``, ``dst``) names an instruction path, as written or where it resolves (a symbolic link to
``AGENTS.md``). Such a call asks the person every time, in every mode except read-only (which refuses it):
"allow for this session" allows only that call, never later changes to instructions.

A call *reaches the network* when its effect is ``network`` (web_fetch, tool servers), or it asks for the
network (``network: true``) or for packages to install (``packages``: fetched from an index). While the
model's answers come from a recording (the *Replay a recording* provider) such a call asks every time too:
a crafted recording is a model with every tool, and the page says no network is used.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from runtime.tools.base import ToolDefinition, ToolError
from runtime.tools.instructions import is_instructions
from runtime.tools.paths import relative, resolve


def instruction_paths(tool: ToolDefinition, arguments: Mapping[str, Any], workspace: Path | None) -> tuple[str, ...]:
    """The instruction paths a call would change (as its arguments write them); empty for most calls."""
    if tool.effect != "write":
        return ()
    found: list[str] = []
    for name in tool.paths:
        value = arguments.get(name)
        if isinstance(value, str) and value.strip() and _names_instructions(value, workspace):
            found.append(posixpath.normpath(value))
    return tuple(found)


def _names_instructions(user_path: str, workspace: Path | None) -> bool:
    if is_instructions(user_path):
        return True
    if workspace is None:
        return False
    try:  # where it leads: a link inside the workspace must not take a call around the rule
        return is_instructions(relative(workspace, resolve(workspace, user_path)))
    except (ToolError, OSError, ValueError):
        return False  # a path the tool itself refuses


def reaches_network(tool: ToolDefinition, arguments: Mapping[str, Any]) -> bool:
    """True when the call would reach the network (its effect, ``network: true``, or packages to fetch)."""
    packages = arguments.get("packages")
    wants_packages = isinstance(packages, list) and any(isinstance(p, str) and p.strip() for p in packages)
    return tool.effect == "network" or arguments.get("network") is True or wants_packages


def always_asks(
    tool: ToolDefinition, arguments: Mapping[str, Any], workspace: Path | None, replaying: bool
) -> str | None:
    """Why this call asks in every mode (shown on its card), or None when the mode's table decides."""
    changed = instruction_paths(tool, arguments, workspace)
    if changed:
        return (
            f"{', '.join(changed)}: the agent's instructions. Every change to them asks, in every mode; "
            "allowing it allows this call only."
        )
    if replaying and reaches_network(tool, arguments):
        return (
            "A recording asked for this: the model's answers come from a replayed file, and this call would "
            "reach the network. It asks every time; allowing it allows this call only."
        )
    return None
