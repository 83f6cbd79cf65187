"""The view's token estimate, counted message by message, is the whole list's JSON counted at once."""

from __future__ import annotations

import json
from dataclasses import replace

from runtime.chat.history import IMAGE_TOKENS, estimate_tokens
from runtime.chat.messages import (
    AssistantMessage,
    ChatMessage,
    ImagePart,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    wire_messages,
)

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
VIEW: list[ChatMessage] = [
    SystemMessage("You are helpful. é ✓"),
    UserMessage('look at "this"', (ImagePart("image/png", "AAAA" * 50, "a.png"),)),
    AssistantMessage("", (ToolCall("c1", "read_file", '{"path": "notes.txt"}'),), "thinking", ({"type": "x"},)),
    ToolResultMessage("c1", "read_file", "line\n\ttab \\ back", False, ("plot.png",)),
    AssistantMessage("Done — 完了."),
]


def whole_list(messages: list[ChatMessage], tools: list[dict[str, object]]) -> int:
    """The estimate as one ``json.dumps`` of the whole view (the definition)."""
    images = sum(len(m.images) for m in messages if isinstance(m, UserMessage))
    plain = [replace(m, images=()) if isinstance(m, UserMessage) and m.images else m for m in messages]
    text = json.dumps(wire_messages(plain), ensure_ascii=False) + json.dumps(tools)
    return len(text) // 4 + 4 * len(messages) + IMAGE_TOKENS * images


def test_every_prefix_of_a_view_is_estimated_as_its_whole_json() -> None:
    for n in range(len(VIEW) + 1):
        for tools in ([], TOOLS):
            assert estimate_tokens(VIEW[:n], tools) == whole_list(VIEW[:n], tools)


def test_a_message_seen_before_is_estimated_the_same_again() -> None:
    first = estimate_tokens(VIEW, TOOLS)
    again = estimate_tokens([replace(m) for m in VIEW], TOOLS)  # equal values, new objects
    assert first == again == whole_list(VIEW, TOOLS)
    longer = [*VIEW[:-1], AssistantMessage("Done — 完了, and more.")]
    assert estimate_tokens(longer, TOOLS) == whole_list(longer, TOOLS) > first
