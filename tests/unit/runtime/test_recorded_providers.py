"""The providers against recordings in the exact format the app exports (tests/fixtures/providers/):
each recorded answer is replayed, in its recorded pieces, to the real provider code."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import ChatMessage, ToolCall, UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ProviderEndpoint, ReasoningDelta, StreamEvent, UsageReport
from runtime.providers.registry import builtin_providers
from tests.support.framehost import FrameHost, HttpReply

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
HELLO: list[ChatMessage] = [UserMessage("hi")]


def replayer(recording: dict[str, Any]) -> Any:
    """A FrameHost responder that answers POSTs from the recording in order (as the app's replay does)."""
    posts = [e for e in recording["exchanges"] if e["request"]["method"] == "POST"]

    def respond(request: dict[str, Any]) -> HttpReply:
        exchange = posts.pop(0)
        assert request["url"] == exchange["request"]["url"]
        response = exchange["response"]
        chunks = tuple(base64.b64decode(c["data"]) for c in response["chunks"])
        return HttpReply(response["status"], response["headers"], chunks)

    return respond


async def replay(name: str) -> tuple[list[StreamEvent], ProviderError | None]:
    recording = json.loads((RECORDINGS / f"{name}.json").read_text())
    assert recording["format"] == "tidepool.recording" and recording["version"] == 1
    host = FrameHost(replayer(recording))
    settings = ProviderEndpoint(recording["provider"], recording["base_url"], recording["provider"] == "openrouter")
    provider = builtin_providers().create(settings, host.http())
    events: list[StreamEvent] = []
    try:
        async for event in provider.stream_chat(HELLO, [], recording["model"]):
            events.append(event)
    except ProviderError as exc:
        return events, exc
    finally:
        await host.close()
    return events, None


def test_every_recording_is_tested() -> None:
    assert {p.stem for p in RECORDINGS.glob("*.json")} == set(EXPECTED)


def _finished(events: list[StreamEvent]) -> Finished:
    assert isinstance(events[-1], Finished)
    return events[-1]


async def _reasoning() -> None:
    events, error = await replay("openrouter_reasoning_tool_calls")
    finished = _finished(events)
    assert error is None and finished.reasoning == "The user wants the notes; I should read them."
    assert [d["type"] for d in finished.reasoning_details] == ["reasoning.text", "reasoning.encrypted"]
    assert finished.reasoning_details[0]["signature"] == "ErUBCkYIBRgCIkBx7Q"
    assert finished.tool_calls == (ToolCall("toolu_01R3as", "read_file", '{"path": "notes.md"}'),)


async def _split_calls() -> None:
    events, _ = await replay("openrouter_split_tool_calls")
    assert [c.name for c in _finished(events).tool_calls] == ["read_file", "search_files"]
    assert _finished(events).tool_calls[1].arguments == '{"pattern": "TODO", "glob": "*.md"}'


async def _midstream_error() -> None:
    events, error = await replay("openrouter_midstream_error")
    assert error is not None and "Provider returned error" in error.message
    assert not any(isinstance(e, Finished) for e in events)


async def _usage_cost() -> None:
    events, _ = await replay("openrouter_usage_cost")
    (usage,) = [e for e in events if isinstance(e, UsageReport)]
    assert (usage.total_tokens, usage.cost) == (423, 0.0000684)
    assert _finished(events).text == "Hello, **wörld** ☃!\n\nHow can I help?"  # a character cut between pieces


async def _length() -> None:
    events, _ = await replay("openrouter_length")
    finished = _finished(events)
    assert (finished.finish_reason, finished.text) == (
        "length",
        "The three steps are: first, gather the tide tables; second",
    )


async def _ollama_thinking() -> None:
    events, _ = await replay("ollama_thinking_tool_call")
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "The user wants the notes."
    assert _finished(events).tool_calls == (ToolCall("call_q8f2", "read_file", '{"path": "notes.md"}'),)


EXPECTED = {
    "openrouter_reasoning_tool_calls": _reasoning,
    "openrouter_split_tool_calls": _split_calls,
    "openrouter_midstream_error": _midstream_error,
    "openrouter_usage_cost": _usage_cost,
    "openrouter_length": _length,
    "ollama_thinking_tool_call": _ollama_thinking,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recording_replays(name: str) -> None:
    await asyncio.wait_for(EXPECTED[name](), 10)
