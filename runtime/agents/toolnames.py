"""A profile's tool names as people write them, read as Tidepool's tool names.

A profile written for Claude Code names its tools the Claude Code way (``Read, Grep, Glob``); those map
to the tools here that do the same (``CLAUDE_CODE``). A tool server's tool is written ``server:tool``
(or Claude Code's ``mcp__server__tool``) and is the registry's ``server__tool`` (``runtime.tools.mcp``);
it counts while that server is configured and connected (its tools are in the registry then).

Claude Code's ``Bash`` runs shell commands on the person's machine; a tab has no shell, and
``run_python`` runs Python in a sandbox with a copy of the workspace, which is not what a profile
asking for ``Bash`` was written to expect, so ``Bash`` maps to nothing and the profile says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MCP_SEPARATOR = "__"  # runtime.tools.mcp.SEPARATOR (not imported: this module stays light)

CLAUDE_CODE: dict[str, str] = {
    "Read": "read_file",
    "Grep": "search_files",
    "Glob": "list_files",
    "LS": "list_files",
    "Write": "write_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "WebFetch": "web_fetch",
}

# Claude Code tools with nothing here that does what they do: why, in words.
NO_EQUIVALENT: dict[str, str] = {
    "Bash": "runs shell commands, and a browser tab has no shell (run_python is Python in a sandbox, not a shell)",
    "WebSearch": "searches the web, and Tidepool has no search tool (web_fetch reads a page by its URL)",
    "NotebookEdit": "edits Jupyter notebooks, which Tidepool has no tool for",
    "Task": "starts a subagent, which a profile does not list as a tool here",
    "TodoWrite": "keeps Claude Code's to-do list, which Tidepool does not have",
}


@dataclass(frozen=True)
class ToolNames:
    """The names read (in order, without repeats) and, for each name left out, why."""

    names: tuple[str, ...]
    problems: tuple[str, ...]


def resolve(written: Iterable[str], known: Iterable[str] | None) -> ToolNames:
    """``written`` as tool names here; with ``known`` (the registry's names), names that are not tools
    here are left out with a problem each (a profile never gets a tool it did not name)."""
    known_set = None if known is None else frozenset(known)
    names: list[str] = []
    problems: list[str] = []
    for raw in written:
        name, why = _one(raw, known_set)
        if name is None:
            problems.append(why)
        elif name not in names:
            names.append(name)
    return ToolNames(tuple(names), tuple(problems))


def _one(raw: str, known: frozenset[str] | None) -> tuple[str | None, str]:
    if raw in NO_EQUIVALENT:
        return None, f"{raw} (Claude Code) has no equivalent here: it {NO_EQUIVALENT[raw]}; left out."
    name = CLAUDE_CODE.get(raw, raw)
    server_tool = _server_tool(name)
    if server_tool is not None:
        name = MCP_SEPARATOR.join(server_tool)
    if known is None or name in known:
        return name, ""
    if server_tool is not None:
        server, tool = server_tool
        return None, (
            f"{raw}: the tool server {server!r} has no tool {tool!r}, or it is not configured and connected; left out."
        )
    return None, f"{raw} is not a tool here; left out."


def _server_tool(name: str) -> tuple[str, str] | None:
    """``server:tool`` or ``mcp__server__tool`` as (server, tool); None for any other name."""
    if ":" in name:
        server, _, tool = name.partition(":")
        return (server, tool) if server and tool else None
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__") :].partition(MCP_SEPARATOR)
        return (server, tool) if server and tool else None
    return None
