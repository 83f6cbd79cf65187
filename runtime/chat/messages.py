"""Conversation values: frozen dataclasses with a Literal ``role`` tag, and their wire form.

The wire form is OpenAI-compatible ``chat/completions`` messages, which both providers speak. A user
message with images is a list of content parts there (``text``, then one ``image_url`` with a
``data:`` URL per image); Ollama's native API takes them as ``images`` (``providers/ollama_chat.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from runtime.chat.arguments import wire_arguments


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
class ImagePart:
    """An image the model should see: its media type and bytes as base64 (no ``data:`` prefix)."""

    media_type: str
    data: str
    name: str = ""

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data}"

    @property
    def size(self) -> int:
        """The image's bytes (decoded), from the base64 length."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")


@dataclass(frozen=True)
class UserMessage:
    content: str
    images: tuple[ImagePart, ...] = ()
    role: Literal["user"] = "user"


@dataclass(frozen=True)
class AssistantMessage:
    """A reply. ``reasoning_details`` are the provider's reasoning blocks exactly as received: they go
    back unchanged with this message (OpenRouter: "preserving reasoning blocks"; without them a
    reasoning model's next tool round is refused). ``reasoning`` is their readable text, for people."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    reasoning_details: tuple[dict[str, Any], ...] = ()
    finish_reason: str | None = None
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True)
class ToolResultMessage:
    call_id: str
    name: str
    content: str
    ok: bool = True
    images: tuple[str, ...] = ()  # workspace-relative image files the call wrote (run_python's plots)
    role: Literal["tool"] = "tool"


ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


def to_wire(message: ChatMessage) -> dict[str, Any]:
    match message:
        case UserMessage(images=images) if images:
            parts = [{"type": "image_url", "image_url": {"url": image.data_url}} for image in images]
            return {"role": "user", "content": [{"type": "text", "text": message.content}, *parts]}
        case SystemMessage() | UserMessage():
            return {"role": message.role, "content": message.content}
        case AssistantMessage():
            return _assistant_wire(message)
        case ToolResultMessage():
            return {"role": "tool", "tool_call_id": message.call_id, "name": message.name, "content": message.content}


def _assistant_wire(message: AssistantMessage) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": wire_arguments(c.arguments)}}
            for c in message.tool_calls
        ]
    if message.reasoning_details:
        wire["reasoning_details"] = [dict(d) for d in message.reasoning_details]
    return wire


def wire_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    return [to_wire(m) for m in messages]
