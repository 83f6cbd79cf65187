"""Reasoning: streamed text and blocks merged exactly, the request option, and the blocks sent back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import AssistantMessage, ChatMessage, ToolCall, ToolResultMessage, UserMessage, to_wire
from runtime.providers import known_models
from runtime.providers.base import Finished, ModelInfo, ProviderEndpoint, ReasoningDelta, StreamEvent, TextDelta
from runtime.providers.reasoning import DetailsMerger, reasoning_option
from runtime.providers.registry import builtin_providers
from tests.support.framehost import FrameHost, HttpReply

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
BASE = "https://openrouter.ai/api/v1"
HELLO: list[ChatMessage] = [UserMessage("hi")]
SIGNED_TEXT = {
    "type": "reasoning.text",
    "text": "The user wants the notes; I should read them.",
    "format": "anthropic-claude-v1",
    "index": 0,
    "signature": "ErUBCkYIBRgCIkBx7Q",
}
ENCRYPTED = {
    "type": "reasoning.encrypted",
    "data": "EmwKAhgBEgy3vaTm9QZ3RyYWNl",
    "format": "anthropic-claude-v1",
    "index": 1,
}


async def _collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in stream]


def _openrouter(host: FrameHost, reasoning: str = "auto") -> Any:
    return builtin_providers().create(ProviderEndpoint("openrouter", BASE, True, None, reasoning), host.http())


@pytest.mark.parametrize("cut", [0, 1, 7, 130, 1001], ids=lambda c: f"cut every {c or 'never'}")
async def test_recorded_reasoning_with_a_tool_call_is_merged_exactly(host: FrameHost, cut: int) -> None:
    data = (STREAMS / "openrouter_reasoning_tool_call.sse").read_bytes()
    host.responder = lambda request: HttpReply.sse(data, list(range(cut, len(data), cut)) if cut else [])
    events = await asyncio.wait_for(
        _collect(_openrouter(host).stream_chat(HELLO, [], "anthropic/claude-sonnet-4.5")), 5
    )
    thoughts = [e.text for e in events if isinstance(e, ReasoningDelta)]
    assert thoughts == ["The user wants ", "the notes; ", "I should read them."]
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert all(isinstance(e, ReasoningDelta) for e in events[:first_text])  # reasoning streams before the answer
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert finished.text == "Reading."
    assert finished.tool_calls == (ToolCall("toolu_01R3as", "read_file", '{"path": "notes.md"}'),)
    assert finished.reasoning == "The user wants the notes; I should read them."
    assert finished.reasoning_details == (SIGNED_TEXT, ENCRYPTED)


def test_pieces_with_the_same_index_join_their_text_and_keep_other_fields() -> None:
    merger = DetailsMerger()
    merger.add([{"type": "reasoning.summary", "summary": "Plan: ", "index": 1, "format": "openai-responses-v1"}])
    merger.add(
        [
            {"type": "reasoning.text", "text": "a", "index": 0},
            {"type": "reasoning.summary", "summary": "read", "index": 1},
        ]
    )
    merger.add([{"type": "reasoning.text", "text": "b", "index": 0, "id": "rs_1"}])
    merger.add("not a list")
    merger.add([None, {"type": "reasoning.encrypted", "data": "xyz"}])  # no index: a block of its own
    assert merger.blocks() == (
        {"type": "reasoning.text", "text": "ab", "index": 0, "id": "rs_1"},
        {"type": "reasoning.summary", "summary": "Plan: read", "index": 1, "format": "openai-responses-v1"},
        {"type": "reasoning.encrypted", "data": "xyz"},
    )


@pytest.mark.parametrize(
    ("setting", "supports", "option"),
    [
        ("auto", True, {"effort": "medium"}),
        ("auto", None, None),
        ("auto", False, None),
        ("off", True, {"effort": "none"}),
        ("off", None, None),
        ("high", True, {"effort": "high"}),
        ("low", None, {"effort": "low"}),
        ("high", False, None),
    ],
)
def test_reasoning_option(setting: str, supports: bool | None, option: dict[str, str] | None) -> None:
    assert reasoning_option(setting, supports) == option


@pytest.mark.parametrize(
    ("setting", "model", "sent"),
    [
        ("auto", "google/gemini-3-pro-preview", {"effort": "medium"}),
        ("auto", "openai/gpt-4o-mini", None),
        ("high", "google/gemini-3-pro-preview", {"effort": "high"}),
        ("off", "google/gemini-3-pro-preview", {"effort": "none"}),
    ],
)
async def test_the_request_asks_for_reasoning_as_set_for_models_that_reason(
    host: FrameHost, setting: str, model: str, sent: dict[str, str] | None
) -> None:
    known_models.remember(
        BASE,
        [
            ModelInfo("google/gemini-3-pro-preview", "Gemini", reasoning=True),
            ModelInfo("openai/gpt-4o-mini", "4o", reasoning=False),
        ],
    )
    host.responder = lambda request: HttpReply.sse((STREAMS / "openrouter_text.sse").read_bytes())
    await asyncio.wait_for(_collect(_openrouter(host, setting).stream_chat(HELLO, [], model)), 5)
    (request,) = host.requests
    assert json.loads(request["body"]).get("reasoning") == sent
    assert request["headers"]["X-OpenRouter-Title"] == request["headers"]["X-Title"] == "Tidepool"


async def test_reasoning_blocks_go_back_unchanged_with_their_message(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply.sse((STREAMS / "openrouter_text.sse").read_bytes())
    call = ToolCall("toolu_01R3as", "read_file", '{"path": "notes.md"}')
    conversation: list[ChatMessage] = [
        UserMessage("read my notes"),
        AssistantMessage("Reading.", (call,), "The user wants…", (SIGNED_TEXT, ENCRYPTED), "tool_calls"),
        ToolResultMessage(call.id, call.name, "- buy milk"),
    ]
    await asyncio.wait_for(_collect(_openrouter(host).stream_chat(conversation, [], "anthropic/claude-sonnet-4.5")), 5)
    sent = json.loads(host.requests[0]["body"])["messages"][1]
    assert sent["reasoning_details"] == [SIGNED_TEXT, ENCRYPTED]
    assert sent["tool_calls"][0]["id"] == "toolu_01R3as"


def test_a_message_without_reasoning_has_no_reasoning_field() -> None:
    assert to_wire(AssistantMessage("Hi.")) == {"role": "assistant", "content": "Hi."}
