"""The gate every tool call passes: allow, ask the person, or deny.

``runtime.policy.permissions.Policy`` implements this Protocol with modes and rules.
"""

from __future__ import annotations

from typing import Any, Protocol

from runtime.policy.permissions import Verdict
from runtime.tools.base import ToolDefinition

__all__ = ["Gate", "Verdict"]


class Gate(Protocol):
    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        """The verdict and a short reason a person (and, on deny, the model) can read."""
        ...

    def grant_session(self, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        """The person chose "allow for this session" on this call of this tool."""
        ...

    def always_asks(self, tool: ToolDefinition, arguments: dict[str, Any]) -> str | None:
        """Why this call asks in every mode and "allow for this session" allows it once only (its card says
        so), or None (``runtime.policy.protected``)."""
        ...

    def set_replaying(self, replaying: bool) -> None:
        """Whether the model's answers come from a recording (calls that reach the network then ask)."""
        ...
