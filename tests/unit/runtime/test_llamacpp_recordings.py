"""The OpenAI-compatible server provider against what a real llama-server answered (recorded by
`scripts/conformance --only wire --record` into tests/fixtures/streams/llamacpp_*): each stream is
replayed to the real provider code in pieces cut at every 97th byte, each error body as it came."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.unusable import CUT_OFF, screen
from runtime.chat.messages import ChatMessage, UserMessage
from runtime.errors import ProviderError
from runtime.providers import known_models
from runtime.providers.base import Finished, ProviderEndpoint, StreamEvent, UsageReport
from runtime.providers.registry import builtin_providers
from runtime.providers.windows import listed_window, props_window
from tests.support.framehost import FrameHost, HttpReply

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
SERVER = json.loads((STREAMS / "llamacpp_server.json").read_text())
BASE = "http://127.0.0.1:8081/v1"
HELLO: list[ChatMessage] = [UserMessage("hi")]
MODEL = SERVER["models"]["body"]["data"][0]["id"]


def _recorded(entry: dict[str, Any]) -> HttpReply:
    return HttpReply(entry["status"], {"content-type": entry["content_type"]}, (json.dumps(entry["body"]).encode(),))


async def _stream(host: FrameHost, reply: HttpReply) -> list[StreamEvent]:
    host.responder = lambda request: reply
    provider = builtin_providers().create(ProviderEndpoint("openai-compatible", BASE, False, None), host.http())
    return [event async for event in provider.stream_chat(HELLO, [], MODEL)]


def _replayed(name: str) -> HttpReply:
    data = (STREAMS / name).read_bytes()
    return HttpReply.sse(data, list(range(97, len(data), 97)))


def _finished(events: list[StreamEvent]) -> Finished:
    assert isinstance(events[-1], Finished)
    return events[-1]


def test_the_window_is_read_from_the_real_listing_and_props() -> None:
    assert listed_window(SERVER["models"]["body"]["data"][0]) == 4096  # meta.n_ctx, not n_ctx_train (32768)
    assert props_window(SERVER["props"]["body"]) == 4096


async def test_a_real_plain_stream_gives_its_text_usage_and_end(host: FrameHost) -> None:
    events = await asyncio.wait_for(_stream(host, _replayed("llamacpp_text.sse")), 5)
    finished = _finished(events)
    assert finished.finish_reason == "stop" and finished.text and not finished.tool_calls
    assert [e for e in events if isinstance(e, UsageReport)]


async def test_a_real_tool_call_assembles_and_the_call_the_limit_cut_is_not_run(host: FrameHost) -> None:
    finished = _finished(await asyncio.wait_for(_stream(host, _replayed("llamacpp_tool_call.sse")), 5))
    first, *rest = finished.tool_calls
    assert first.name == "write_file" and json.loads(first.arguments) == {"path": "notes.txt", "content": "hello"}
    screened = screen(finished.tool_calls, finished.finish_reason)
    assert first.id not in screened.refused
    if finished.finish_reason == "length" and rest:  # the base model rambled into a second call
        assert screened.refused[rest[-1].id].startswith(CUT_OFF)


async def test_a_real_reply_cut_inside_its_arguments_is_not_run(host: FrameHost) -> None:
    finished = _finished(await asyncio.wait_for(_stream(host, _replayed("llamacpp_length_in_tool_arguments.sse")), 5))
    assert finished.finish_reason == "length" and finished.tool_calls
    screened = screen(finished.tool_calls, finished.finish_reason)
    assert screened.refused[finished.tool_calls[-1].id].startswith(CUT_OFF)
    assert json.loads(screened.calls[-1].arguments) == {}  # what goes back in history: llama-server parses it


async def test_the_real_overflow_refusal_is_recognised_and_teaches_the_window(host: FrameHost) -> None:
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(_stream(host, _recorded(SERVER["context_exceeded"])), 5)
    assert info.value.status == 400 and not info.value.retryable
    assert info.value.overflow is not None and info.value.overflow.n_ctx == 4096
    assert "try again" not in info.value.message.lower()
    assert known_models.window(BASE, MODEL) == 4096


async def test_the_real_refusal_of_invalid_arguments_names_the_server(host: FrameHost) -> None:
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(_stream(host, _recorded(SERVER["invalid_tool_arguments"])), 5)
    assert info.value.status == 500 and "127.0.0.1:8081" in info.value.message
    assert "openrouter" not in info.value.message.lower()
