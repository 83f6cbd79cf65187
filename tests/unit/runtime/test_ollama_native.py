"""Ollama's native /api/chat: NDJSON in any split, the context window asked for explicitly, thinking,
tool calls as objects, and capabilities respected (no tools for a model without them, said once)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import AssistantMessage, ChatMessage, ToolCall, ToolResultMessage, UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ProviderEndpoint, ProviderNotice, ReasoningDelta, StreamEvent, UsageReport
from runtime.providers.registry import builtin_providers
from tests.support.framehost import FrameHost, HttpReply, split_at

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
BASE = "http://localhost:11434"
HELLO: list[ChatMessage] = [UserMessage("hi")]
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read.", "parameters": {}}}]
SHOW = {
    "qwen3:8b": {"model_info": {"qwen3.context_length": 40960}, "capabilities": ["completion", "tools", "thinking"]},
    "llava:7b": {"model_info": {"llama.context_length": 4096}, "capabilities": ["completion", "vision"]},
}
DONE = b'{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n'


def _ollama(host: FrameHost, **settings: Any) -> Any:
    return builtin_providers().create(ProviderEndpoint("ollama", BASE, False, None, **settings), host.http())


def _serve(chat: bytes, cuts: list[int] | None = None) -> Any:
    def respond(request: dict[str, Any]) -> HttpReply:
        if request["url"].endswith("/api/tags"):
            return HttpReply.json(200, {"models": [{"name": n} for n in SHOW]})
        if request["url"].endswith("/api/show"):
            return HttpReply.json(200, SHOW[json.loads(request["body"])["model"]])
        return HttpReply(200, {"content-type": "application/x-ndjson"}, tuple(split_at(chat, cuts or [])))

    return respond




async def _collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in stream]


def _chat_bodies(host: FrameHost) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in host.requests if r["url"].endswith("/api/chat")]


@pytest.mark.parametrize("cut", [0, 1, 17, 200], ids=lambda c: f"cut every {c or 'never'}")
async def test_thinking_text_and_a_tool_call_from_ndjson(host: FrameHost, cut: int) -> None:
    data = (STREAMS / "ollama_thinking_tool_call.ndjson").read_bytes()
    host.responder = _serve(data, list(range(cut, len(data), cut)) if cut else [])
    events = await asyncio.wait_for(_collect(_ollama(host).stream_chat(HELLO, TOOLS, "qwen3:8b")), 5)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["The user wants ", "the notes."]
    (usage,) = [e for e in events if isinstance(e, UsageReport)]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cost) == (2214, 41, None)
    assert events[-1] == Finished(
        "tool_calls",
        "Reading them.",
        (ToolCall("call_q8f2", "read_file", '{"path": "notes.md"}'),),
        "The user wants the notes.",
    )


async def test_the_request_sets_the_context_window_keep_alive_and_thinking(host: FrameHost) -> None:
    host.responder = _serve(DONE)
    provider = _ollama(host)
    models = {m.id: m for m in await provider.list_models()}
    assert (models["qwen3:8b"].context_length, models["llava:7b"].context_length) == (8192, 4096)
    assert (models["qwen3:8b"].reasoning, models["llava:7b"].vision, models["llava:7b"].tools) == (True, True, False)
    call = ToolCall("call_1", "read_file", '{"path": "a.md"}')
    conversation: list[ChatMessage] = [
        UserMessage("read a.md"),
        AssistantMessage("Reading.", (call,), "I need the file."),
        ToolResultMessage("call_1", "read_file", "hello"),
    ]
    await _collect(provider.stream_chat(conversation, TOOLS, "qwen3:8b"))
    (body,) = _chat_bodies(host)
    assert body["options"] == {"num_ctx": 8192}
    assert (body["keep_alive"], body["think"], body["stream"], body["tools"]) == ("30m", True, True, TOOLS)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "Reading.",
        "thinking": "I need the file.",
        "tool_calls": [{"id": "call_1", "function": {"name": "read_file", "arguments": {"path": "a.md"}}}],
    }
    assert body["messages"][2] == {"role": "tool", "tool_name": "read_file", "content": "hello"}


async def test_a_configured_context_window_wins_and_off_turns_thinking_off(host: FrameHost) -> None:
    host.responder = _serve(DONE)
    provider = _ollama(host, context_length=16384, reasoning="off")
    assert {m.context_length for m in await provider.list_models()} == {16384}
    await _collect(provider.stream_chat(HELLO, [], "qwen3:8b"))
    (body,) = _chat_bodies(host)
    assert (body["options"]["num_ctx"], body["think"]) == (16384, False)


async def test_a_model_without_tools_is_offered_none_and_the_chat_says_so_once(host: FrameHost) -> None:
    host.responder = _serve(DONE)
    provider = _ollama(host)
    await provider.list_models()
    first = await _collect(provider.stream_chat(HELLO, TOOLS, "llava:7b"))
    second = await _collect(provider.stream_chat(HELLO, TOOLS, "llava:7b"))
    notices = [e for e in [*first, *second] if isinstance(e, ProviderNotice)]
    assert [n.code for n in notices] == ["no_tools"] and "llava:7b cannot use tools" in notices[0].text
    assert all("tools" not in body and "think" not in body for body in _chat_bodies(host))


@pytest.mark.parametrize(
    ("lines", "outcome"),
    [
        pytest.param(
            b'{"message":{"content":"Par"},"done":false}\n{"error":"model runner crashed"}\n', "crashed", id="error"
        ),
        pytest.param(b'{"message":{"content":"Once"},"done":true,"done_reason":"length"}\n', "length", id="length"),
        pytest.param(b'{"message":{"content":"Cut"},"done":false}\n', "ended before", id="no done line"),
    ],
)
async def test_endings(host: FrameHost, lines: bytes, outcome: str) -> None:
    host.responder = _serve(lines)
    if outcome == "length":
        events = await _collect(_ollama(host).stream_chat(HELLO, [], "qwen3:8b"))
        assert events[-1] == Finished("length", "Once")
        return
    with pytest.raises(ProviderError) as err:
        await _collect(_ollama(host).stream_chat(HELLO, [], "qwen3:8b"))
    assert outcome in err.value.message
