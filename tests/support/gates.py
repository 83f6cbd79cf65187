"""A permission gate simpler than the real policy, for tests about something else."""

from __future__ import annotations

from typing import Any

from runtime.agent.gate import Verdict
from runtime.tools.base import ToolDefinition


class AllowReadsGate:
    """Read and memory tools run; everything else asks (until allowed for the session)."""

    def __init__(self) -> None:
        self._granted: set[str] = set()

    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        if tool.effect in ("read", "memory"):
            return "allow", f"{tool.effect} tools run without asking"
        if tool.name in self._granted:
            return "allow", "allowed for this session"
        return "ask", f"{tool.effect} tools ask first"

    def grant_session(self, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        self._granted.add(tool_name)
