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
from collections.abc import Iterable, Iterator, Sequence
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
    out = [chat for _, chat in conversation(context, extra)]
    system = system_text(system_prompt, extra)
    return [SystemMessage(system), *out] if system else out


def conversation(
    context: Iterable[StoredMessage], extra: list[str]
) -> Iterator[tuple[StoredMessage | None, ChatMessage]]:
    """``model_view``'s conversation, one message at a time with the stored message it comes from (None:
    the "interrupted" result of a call left open); what joins the system message is added to ``extra``."""
    open_calls: dict[str, ToolCall] = {}
    for message in context:
        if message.kind == "summary":
            extra.append(f"# Summary of the earlier conversation\n\n{content_text(message.content)}")
            continue
        chat = to_chat(message)
        if isinstance(chat, ToolResultMessage):
            if open_calls.pop(chat.call_id, None) is not None:
                yield message, chat
            elif chat.name == "activate_skill":
                extra.append(f"# A skill activated earlier in this conversation\n\n{chat.content}")
            continue
        yield from _closed(open_calls)
        if isinstance(chat, AssistantMessage):
            if message.status == "interrupted" and not chat.content and not chat.tool_calls:
                continue
            open_calls = {c.id: c for c in chat.tool_calls}
        yield message, chat
    yield from _closed(open_calls)


def system_text(system_prompt: str, extra: Sequence[str]) -> str:
    """The system message: the prompt, then what ``conversation`` put in ``extra``."""
    return "\n\n".join([system_prompt.rstrip(), *extra]) if extra else system_prompt


def _closed(open_calls: dict[str, ToolCall]) -> Iterator[tuple[None, ChatMessage]]:
    calls = list(open_calls.values())
    open_calls.clear()
    for call in calls:
        yield None, ToolResultMessage(call.id, call.name, INTERRUPTED_RESULT, False)


IMAGE_TOKENS = 1_000
"""What one image costs in the budget (providers scale images to about 1,000 tokens or fewer)."""


def estimate_tokens(messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]] = ()) -> int:
    """About 4 characters per token over the wire form (images at ``IMAGE_TOKENS`` each, not their
    base64), plus a little per message (``TokenCount``), each message's count kept for the next estimate:
    every round of a turn estimates its whole view again."""
    count = TokenCount()
    for message in messages:
        count.add(message)
    return count.tokens(tools)


class TokenCount:
    """``estimate_tokens``, added up one message at a time. The characters are those of ``json.dumps`` of
    the whole list, counted message by message (a list's JSON is its items' JSON, ", " between them, in
    brackets), so a view can be counted without being held whole (``runtime.conversation.context_meter``)."""

    def __init__(self) -> None:
        self.messages = 0
        self.chars = 0
        self.images = 0

    def add(self, message: ChatMessage, images: int | None = None, keep: bool = True) -> None:
        """``images``: how many it carries when they were not read (else those of a user message);
        ``keep``: keep its count for the next estimate (a message read again is the same value)."""
        self.messages += 1
        self.chars += _wire_chars(message) if keep else _count_wire_chars(message)
        if images is not None:
            self.images += images
        elif isinstance(message, UserMessage):
            self.images += len(message.images)

    def tokens(self, tools: Sequence[dict[str, Any]] = ()) -> int:
        chars = self.chars + max(0, 2 * (self.messages - 1)) + 2
        text_chars = chars + len(json.dumps(list(tools)))
        return text_chars // 4 + 4 * self.messages + IMAGE_TOKENS * self.images


WIRE_MIN_CHARS = 24
"""What a message's wire form adds, at least, to its stored content and tool calls (its role and keys)."""


def tokens_at_least(messages: int, chars: int, images: int = 0) -> int:
    """About the least ``estimate_tokens`` gives for ``messages`` stored messages whose content and tool
    calls take ``chars`` characters and which carry ``images`` (``Store.context_size``): read from the
    store without decoding a message."""
    return (chars + WIRE_MIN_CHARS * messages) // 4 + 4 * messages + IMAGE_TOKENS * images


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
