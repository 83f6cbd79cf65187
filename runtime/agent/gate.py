"""The gate every tool call passes: allow, ask the person, or deny.

``runtime.policy.permissions.Policy`` implements this Protocol with modes and rules; ``AllowReadsGate``
is the default until a policy is configured: read and memory tools run, everything else asks.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from runtime.tools.base import ToolDefinition

Verdict = Literal["allow", "ask", "deny"]


class Gate(Protocol):
    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        """The verdict and a short reason a person (and, on deny, the model) can read."""
        ...

    def grant_session(self, tool_name: str) -> None:
        """The person chose "allow for this session" for this tool."""
        ...


class AllowReadsGate:
    def __init__(self) -> None:
        self._granted: set[str] = set()

    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        if tool.effect in ("read", "memory"):
            return "allow", f"{tool.effect} tools run without asking"
        if tool.name in self._granted:
            return "allow", "allowed for this session"
        return "ask", f"{tool.effect} tools ask first"

    def grant_session(self, tool_name: str) -> None:
        self._granted.add(tool_name)
