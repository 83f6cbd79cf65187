"""Conversation values: frozen dataclasses with a Literal ``role`` tag, and their wire form.

The wire form is OpenAI-compatible ``chat/completions`` messages, which both providers speak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for; ``arguments`` is the raw JSON text the model produced."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class SystemMessage:
    content: str
    role: Literal["system"] = "system"


@dataclass(frozen=True)
class UserMessage:
    content: str
    role: Literal["user"] = "user"


@dataclass(frozen=True)
class AssistantMessage:
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True)
class ToolResultMessage:
    call_id: str
    name: str
    content: str
    ok: bool = True
    role: Literal["tool"] = "tool"


ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


def to_wire(message: ChatMessage) -> dict[str, Any]:
    match message:
        case SystemMessage() | UserMessage():
            return {"role": message.role, "content": message.content}
        case AssistantMessage(tool_calls=()):
            return {"role": "assistant", "content": message.content}
        case AssistantMessage():
            return {
                "role": "assistant",
                "content": message.content or None,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in message.tool_calls
                ],
            }
        case ToolResultMessage():
            return {"role": "tool", "tool_call_id": message.call_id, "name": message.name, "content": message.content}


def wire_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    return [to_wire(m) for m in messages]
