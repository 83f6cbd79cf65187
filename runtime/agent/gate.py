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
