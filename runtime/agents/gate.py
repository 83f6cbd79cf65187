"""The gate of a turn under a profile whose permission mode is narrower than the chat's.

``profiles.effective_mode`` picks the mode (never wider than the chat's); this gate applies it on top
of the chat's own gate: a call gets the stricter of the chat gate's verdict and the profile mode's
table verdict for the tool's effect (``runtime.policy.permissions.MODE_TABLE``). Session grants and
allow rules are the chat gate's: they never lift a call past the profile's mode.
"""

from __future__ import annotations

from typing import Any, cast

from runtime.agent.gate import Gate, Verdict
from runtime.policy.permissions import MEMORY_READERS, MODE_TABLE, Mode
from runtime.tools.base import ToolDefinition

_STRICTNESS: dict[Verdict, int] = {"allow": 0, "ask": 1, "deny": 2}


class NarrowedGate:
    """``inner`` (the chat's gate), held to ``mode``."""

    def __init__(self, inner: Gate, mode: str, profile: str) -> None:
        self._inner = inner
        self._mode = cast(Mode, mode)
        self._profile = profile

    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        verdict, reason = self._inner.decide(tool, arguments)
        own = MODE_TABLE[self._mode][tool.effect]
        if own == "ask" and tool.effect == "memory" and tool.name in MEMORY_READERS:
            own = "allow"
        if _STRICTNESS[own] <= _STRICTNESS[verdict]:
            return verdict, reason
        if own == "deny":
            return (
                "deny",
                f"{tool.name} ({tool.effect}) is not allowed under the {self._profile} profile ({self._mode})",
            )
        return "ask", f"{tool.effect} tools need approval under the {self._profile} profile ({self._mode})"

    def grant_session(self, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        self._inner.grant_session(tool_name, arguments)

    def always_asks(self, tool: ToolDefinition, arguments: dict[str, Any]) -> str | None:
        return self._inner.always_asks(tool, arguments)

    def set_replaying(self, replaying: bool) -> None:
        self._inner.set_replaying(replaying)


def narrowed(gate: Gate, chat_mode: str, mode: str, profile: str) -> Gate:
    """``gate`` itself when ``mode`` is the chat's, else held to ``mode``."""
    return gate if mode == chat_mode or mode not in MODE_TABLE else NarrowedGate(gate, mode, profile)
