"""Stored messages → the loop's conversation values, and the view the model gets.

``chat_history`` is every message as the loop knows them. ``model_view`` is what goes to the model:
a summary (and any activated skill body whose call it covers) joins the system message; an
assistant's tool call left without a result (a turn cut off by a reload) gets an "interrupted"
result right after it, so the conversation stays valid for every provider; an interrupted assistant
message with no text is left out.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from runtime.chat.messages import (
    AssistantMessage,
    ChatMessage,
    ImagePart,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from runtime.store.export import content_text
from runtime.store.kept import Kept
from runtime.store.values import StoredMessage

INTERRUPTED_RESULT = "This call was interrupted (the page was reloaded or the session closed) before it finished."


def tool_calls_of(message: StoredMessage) -> tuple[ToolCall, ...]:
    calls = []
    for raw in message.tool_calls:
        function = raw.get("function") or {}
        arguments = function.get("arguments", "{}")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(ToolCall(str(raw.get("id", "")), str(function.get("name", "")), text))
    return tuple(calls)


def to_chat(message: StoredMessage) -> ChatMessage:
    text = content_text(message.content)
    if message.role == "user":
        return UserMessage(text, _images(message))
    if message.role == "assistant":
        return AssistantMessage(
            text, tool_calls_of(message), message.reasoning, message.reasoning_details, message.finish_reason
        )
    if message.role == "tool":
        images = message.meta.get("images")
        paths = tuple(str(p) for p in images) if isinstance(images, list) else ()
        return ToolResultMessage(
            message.tool_call_id or "", message.name or "", text, bool(message.meta.get("ok", True)), paths
        )
    return SystemMessage(text)


def _images(message: StoredMessage) -> tuple[ImagePart, ...]:
    """The message's images that were read with their bytes (``Store.context_messages``)."""
    return tuple(
        ImagePart(i.media_type, base64.b64encode(i.data).decode("ascii"), i.name)
        for i in message.images
        if i.data is not None
    )


def chat_history(messages: Sequence[StoredMessage]) -> list[ChatMessage]:
    """Every conversation message in order (summaries are not part of it)."""
    return [to_chat(m) for m in messages if m.kind == "message"]


def model_view(system_prompt: str, context: Sequence[StoredMessage]) -> list[ChatMessage]:
    """The messages for the model: system (+ summary, + orphaned skill bodies), then the conversation."""
    extra: list[str] = []
    out: list[ChatMessage] = []
    open_calls: dict[str, ToolCall] = {}
    for message in context:
        if message.kind == "summary":
            extra.append(f"# Summary of the earlier conversation\n\n{content_text(message.content)}")
            continue
        chat = to_chat(message)
        if isinstance(chat, ToolResultMessage):
            if open_calls.pop(chat.call_id, None) is not None:
                out.append(chat)
            elif chat.name == "activate_skill":
                extra.append(f"# A skill activated earlier in this conversation\n\n{chat.content}")
            continue
        _close(out, open_calls)
        if isinstance(chat, AssistantMessage):
            if message.status == "interrupted" and not chat.content and not chat.tool_calls:
                continue
            open_calls = {c.id: c for c in chat.tool_calls}
        out.append(chat)
    _close(out, open_calls)
    system = "\n\n".join([system_prompt.rstrip(), *extra]) if extra else system_prompt
    return [SystemMessage(system), *out] if system else out


def _close(out: list[ChatMessage], open_calls: dict[str, ToolCall]) -> None:
    for call in open_calls.values():
        out.append(ToolResultMessage(call.id, call.name, INTERRUPTED_RESULT, False))
    open_calls.clear()


IMAGE_TOKENS = 1_000
"""What one image costs in the budget (providers scale images to about 1,000 tokens or fewer)."""


def estimate_tokens(messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]] = ()) -> int:
    """About 4 characters per token over the wire form (images at ``IMAGE_TOKENS`` each, not their
    base64), plus a little per message. The characters are those of ``json.dumps`` of the whole list,
    counted message by message (a list's JSON is its items' JSON, ", " between them, in brackets), each
    message's count kept for the next estimate: every round of a turn estimates its whole view again."""
    images = sum(len(m.images) for m in messages if isinstance(m, UserMessage))
    chars = sum(_wire_chars(m) for m in messages) + max(0, 2 * (len(messages) - 1)) + 2
    text_chars = chars + len(json.dumps(list(tools)))
    return text_chars // 4 + 4 * len(messages) + IMAGE_TOKENS * images


_wire_chars_of: Kept[ChatMessage, int] = Kept(4096)


def _wire_chars(message: ChatMessage) -> int:
    """``len(json.dumps(to_wire(message)))``, images left out (they count as ``IMAGE_TOKENS``)."""
    try:
        chars = _wire_chars_of.get(message)
    except TypeError:  # unhashable (reasoning blocks are dicts): counted each time
        return _count_wire_chars(message)
    if chars is None:
        chars = _count_wire_chars(message)
        _wire_chars_of.put(message, chars)
    return chars


def _count_wire_chars(message: ChatMessage) -> int:
    from dataclasses import replace

    from runtime.chat.messages import to_wire

    plain = replace(message, images=()) if isinstance(message, UserMessage) and message.images else message
    return len(json.dumps(to_wire(plain), ensure_ascii=False))
