"""A permission gate simpler than the real policy, for tests about something else."""

from __future__ import annotations

from typing import Any

from runtime.agent.gate import Verdict
from runtime.policy.protected import always_asks
from runtime.tools.base import ToolDefinition


class AllowReadsGate:
    """Read and memory tools run; everything else asks (until allowed for the session)."""

    def __init__(self) -> None:
        self._granted: set[str] = set()
        self._replaying = False

    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        if tool.effect in ("read", "memory"):
            return "allow", f"{tool.effect} tools run without asking"
        standing = self.always_asks(tool, arguments)
        if standing is not None:
            return "ask", standing
        if tool.name in self._granted:
            return "allow", "allowed for this session"
        return "ask", f"{tool.effect} tools ask first"

    def grant_session(self, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        self._granted.add(tool_name)

    def always_asks(self, tool: ToolDefinition, arguments: dict[str, Any]) -> str | None:
        return always_asks(tool, arguments, None, self._replaying)

    def set_replaying(self, replaying: bool) -> None:
        self._replaying = replaying
