"""A scripted provider for runtime tests: each request streams the next scripted round.

Registered in a real ``ProviderRegistry``; ``calls`` records every request (messages, tools, model).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime.chat.messages import ChatMessage, ToolCall
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ModelInfo, StreamEvent, TextDelta, UsageReport


@dataclass(frozen=True)
class Pause:
    """The scripted stream stops here until the test sets ``gate``."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)


Step = StreamEvent | Pause | ProviderError


class ScriptedProvider:
    kind = "scripted"

    def __init__(self) -> None:
        self.rounds: list[list[Step]] = []
        self.calls: list[tuple[list[ChatMessage], list[dict[str, Any]], str]] = []
        self.context_length = 8192

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        self.calls.append((list(messages), tools, model))
        steps = self.rounds.pop(0) if len(self.rounds) > 1 else self.rounds[0]
        for step in steps:
            await asyncio.sleep(0)
            if isinstance(step, Pause):
                await step.gate.wait()
            elif isinstance(step, ProviderError):
                raise step
            else:
                yield step

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo("scripted/model", "Scripted", self.context_length, 0.0, 0.0, True)]


def says(text: str, *calls: ToolCall) -> list[Step]:
    half = len(text) // 2
    deltas: list[Step] = [TextDelta(t) for t in (text[:half], text[half:]) if t]
    return [*deltas, UsageReport(10, 5, 15, 0.001), Finished("tool_calls" if calls else "stop", text, calls)]


def call(name: str, arguments: Any, call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, name, arguments if isinstance(arguments, str) else json.dumps(arguments))
