"""Providers over HTTP-over-frames: recorded streams, request shape, error mapping, retries, models."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import ChatMessage, ToolCall, UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ModelInfo, Provider, ProviderEndpoint, StreamEvent, TextDelta, UsageReport
from runtime.providers.openai_compat import OpenAICompatChat
from runtime.providers.registry import builtin_providers
from runtime.providers.retry import RetryPolicy
from tests.support.framehost import FrameHost, HttpReply, split_at

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
OPENROUTER = ProviderEndpoint("openrouter", "https://openrouter.ai/api/v1", True, "http://localhost:5173")
OLLAMA = ProviderEndpoint("ollama", "http://localhost:11434", False, "http://localhost:5173")
HELLO: list[ChatMessage] = [UserMessage("hi")]
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read.", "parameters": {}}}]


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


async def _provider(host: FrameHost, settings: ProviderEndpoint, sleeps: Sleeps | None = None) -> Provider:
    provider: Any = builtin_providers().create(settings, host.http())
    if sleeps is not None:
        provider.chat = OpenAICompatChat(provider.chat._http, provider.chat.endpoint, RetryPolicy(), sleep=sleeps)
    return provider  # type: ignore[no-any-return]


async def _collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in stream]


def _script(*replies: HttpReply) -> Any:
    queue = list(replies)
    return lambda request: queue.pop(0) if len(queue) > 1 else queue[0]


RECORDED = [
    pytest.param(
        "openrouter_text.sse",
        OPENROUTER,
        "Hello, **wörld** ☃!\n\nHow can I help?",
        (),
        (412, 11, 423, 0.0000684),
        "stop",
        id="openrouter text with keep-alives and cost",
    ),
    pytest.param(
        "openrouter_tool_calls.sse",
        OPENROUTER,
        "Let me look.",
        (
            ToolCall("toolu_01A9q2", "read_file", '{"path": "notes/a.md"}'),
            ToolCall("toolu_01B7x4", "search_files", '{"pattern": "TODO", "glob": "*.md"}'),
        ),
        (1893, 97, 1990, 0.007134),
        "tool_calls",
        id="openrouter two tool calls in fragments",
    ),
]


@pytest.mark.parametrize(("fixture", "settings", "text", "calls", "usage", "finish"), RECORDED)
@pytest.mark.parametrize(
    "cuts", [pytest.param([], id="whole"), pytest.param(list(range(0, 4000, 37)), id="odd-chunks")]
)
async def test_recorded_stream(
    host: FrameHost,
    fixture: str,
    settings: ProviderEndpoint,
    text: str,
    calls: tuple[ToolCall, ...],
    usage: tuple[Any, ...],
    finish: str,
    cuts: list[int],
) -> None:
    host.responder = lambda request: HttpReply.sse((STREAMS / fixture).read_bytes(), cuts)
    provider = await _provider(host, settings)
    events = await asyncio.wait_for(_collect(provider.stream_chat(HELLO, TOOLS, "some/model")), 5)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
    (report,) = [e for e in events if isinstance(e, UsageReport)]
    assert (report.prompt_tokens, report.completion_tokens, report.total_tokens, report.cost) == usage
    assert isinstance(events[-1], Finished)
    assert events[-1] == Finished(finish, text, calls)


@pytest.mark.parametrize(
    ("settings", "url", "extra_headers"),
    [
        pytest.param(
            OPENROUTER,
            "https://openrouter.ai/api/v1/chat/completions",
            {"X-Title": "Tidepool", "HTTP-Referer": "http://localhost:5173"},
            id="openrouter",
        ),
    ],
)
async def test_request_shape(
    host: FrameHost, settings: ProviderEndpoint, url: str, extra_headers: dict[str, str]
) -> None:
    host.responder = lambda request: HttpReply.sse((STREAMS / "openrouter_text.sse").read_bytes())
    provider = await _provider(host, settings)
    await asyncio.wait_for(_collect(provider.stream_chat(HELLO, TOOLS, "m-1")), 5)
    (request,) = host.requests
    assert (request["method"], request["url"], request["auth"], request["stream"]) == ("POST", url, "provider", True)
    assert extra_headers.items() <= request["headers"].items()
    assert "authorization" not in {k.lower() for k in request["headers"]}
    body = json.loads(request["body"])
    assert body == {
        "model": "m-1",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": TOOLS,
    }


ERRORS = [
    pytest.param(
        401,
        {},
        {"error": {"message": "No auth credentials found", "code": 401}},
        "auth",
        ["No auth credentials found", "API key"],
        None,
        id="401",
    ),
    pytest.param(
        403,
        {},
        {"error": {"message": "Your chosen model requires moderation and your input was flagged", "code": 403}},
        "refused",
        ["refused this request (moderation)", "input was flagged"],
        None,
        id="403 moderation"
    ),
    pytest.param(
        402,
        {},
        {"error": {"message": "Insufficient credits", "code": 402}},
        "credits",
        ["Insufficient credits", "openrouter.ai/settings/credits"],
        None,
        id="402",
    ),
    pytest.param(
        429,
        {"retry-after": "7"},
        {"error": {"message": "Rate limit exceeded", "code": 429}},
        "rate_limited",
        ["Rate limit exceeded", "Wait 7 s"],
        7.0,
        id="429 with retry-after seconds",
    ),
    pytest.param(
        429,
        {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"},
        "slow down",
        "rate_limited",
        ["slow down"],
        0.0,
        id="429 with a past HTTP date",
    ),
    pytest.param(429, {"retry-after": "99999"}, {}, "rate_limited", ["HTTP 429"], 60.0, id="429 retry-after capped"),
    pytest.param(
        500, {}, "<html>Internal Server Error</html>", "server", ["Internal Server Error"], None, id="500 html"
    ),
    pytest.param(
        503,
        {},
        {"error": {"message": "No instances available", "metadata": {"raw": "overloaded"}}},
        "server",
        ["No instances available", "overloaded"],
        None,
        id="503 with metadata.raw",
    ),
    pytest.param(
        400,
        {},
        {"error": {"message": "model not found: nope", "code": 400}},
        "bad_request",
        ["model not found: nope"],
        None,
        id="400",
    ),
    pytest.param(
        404,
        {},
        {"error": "model 'x' not found"},
        "bad_request",
        ["model 'x' not found"],
        None,
        id="404 ollama string error",
    ),
]


@pytest.mark.parametrize(("status", "headers", "body", "code", "phrases", "retry_after"), ERRORS)
async def test_error_mapping(
    host: FrameHost,
    status: int,
    headers: dict[str, str],
    body: Any,
    code: str,
    phrases: list[str],
    retry_after: float | None,
) -> None:
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    host.responder = lambda request: HttpReply(status, headers, (raw,))
    sleeps = Sleeps()
    provider = await _provider(host, OPENROUTER, sleeps)
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(_collect(provider.stream_chat(HELLO, [], "m")), 5)
    err = info.value
    assert (err.code, err.status) == (code, status)
    for phrase in phrases:
        assert phrase in err.message
    if retry_after is not None:
        assert err.retry_after == pytest.approx(retry_after, abs=1)
    attempts = 3 if err.retryable else 1
    assert len(host.requests) == attempts
    assert len(sleeps) == attempts - 1


RETRIES = [
    pytest.param([HttpReply(429, {"retry-after": "2"}, (b"{}",))], [2.0], None, id="429 then ok honours retry-after"),
    pytest.param([HttpReply(502), HttpReply(503)], [1.0, 2.0], None, id="5xx twice then ok, exponential backoff"),
    pytest.param([HttpReply(error="network")], [1.0], None, id="network failure then ok"),
    pytest.param([HttpReply(500)] * 3, [1.0, 2.0], "server", id="gives up after 3 attempts"),
    pytest.param([HttpReply(error="refused")], [], "unreachable", id="refused by the adapter is not retried"),
    pytest.param([HttpReply(401)], [], "auth", id="auth is not retried"),
]


@pytest.mark.parametrize(("failures", "sleeps_want", "error"), RETRIES)
async def test_retries(host: FrameHost, failures: list[HttpReply], sleeps_want: list[float], error: str | None) -> None:
    ok = HttpReply.sse((STREAMS / "openrouter_text.sse").read_bytes())
    host.responder = _script(*failures, ok)
    sleeps = Sleeps()
    provider = await _provider(host, OPENROUTER, sleeps)
    if error is None:
        events = await asyncio.wait_for(_collect(provider.stream_chat(HELLO, [], "m")), 5)
        assert isinstance(events[-1], Finished) and events[-1].text == "Hello, **wörld** ☃!\n\nHow can I help?"
    else:
        with pytest.raises(ProviderError) as info:
            await asyncio.wait_for(_collect(provider.stream_chat(HELLO, [], "m")), 5)
        assert info.value.code == error
    assert sleeps == sleeps_want


async def test_midstream_error_after_output_is_not_retried(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply.sse((STREAMS / "openrouter_midstream_error.sse").read_bytes())
    sleeps = Sleeps()
    provider = await _provider(host, OPENROUTER, sleeps)
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in provider.stream_chat(HELLO, [], "m"):
            seen.append(event)
    assert seen == [TextDelta("The answer is")]
    assert info.value.code == "server"
    assert "Provider returned error" in info.value.message and "upstream connection reset" in info.value.message
    assert (len(host.requests), sleeps) == (1, [])


async def test_stream_cut_short_is_an_error(host: FrameHost) -> None:
    data = (STREAMS / "openrouter_text.sse").read_bytes()
    host.responder = lambda request: HttpReply.sse(data[: data.index(b"How can")] + b'"}}]}\n\n')
    provider = await _provider(host, OPENROUTER, Sleeps())
    with pytest.raises(ProviderError, match="ended before it was complete"):
        await asyncio.wait_for(_collect(provider.stream_chat(HELLO, [], "m")), 5)


async def test_cancelling_the_consumer_cancels_the_request(host: FrameHost) -> None:
    data = (STREAMS / "openrouter_text.sse").read_bytes()
    host.responder = lambda request: HttpReply(200, {}, tuple(split_at(data, [600])), hold=True)
    provider = await _provider(host, OPENROUTER)
    got_text = asyncio.Event()

    async def consume() -> None:
        async for event in provider.stream_chat(HELLO, [], "m"):
            if isinstance(event, TextDelta):
                got_text.set()

    task = asyncio.ensure_future(consume())
    await asyncio.wait_for(got_text.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert host.cancelled == [host.requests[0]["id"]]


OPENROUTER_MODELS = {
    "data": [
        {
            "id": "openai/gpt-4o-mini",
            "name": "OpenAI: GPT-4o-mini",
            "context_length": 128000,
            "pricing": {"prompt": "0.00000015", "completion": "0.0000006", "request": "0"},
            "supported_parameters": ["max_tokens", "temperature", "tools", "tool_choice"],
        },
        {
            "id": "meta-llama/llama-3.2-1b-instruct:free",
            "name": "Llama 3.2 1B (free)",
            "context_length": 131072,
            "pricing": {"prompt": "0", "completion": "0"},
            "supported_parameters": ["max_tokens"],
        },
        {
            "id": "openrouter/auto",
            "name": "Auto Router",
            "context_length": 2000000,
            "pricing": {"prompt": "-1", "completion": "-1"},
        },
    ]
}


async def test_openrouter_models(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply.json(200, OPENROUTER_MODELS)
    provider = await _provider(host, OPENROUTER)
    models = await asyncio.wait_for(provider.list_models(), 5)
    assert models == [
        ModelInfo("openai/gpt-4o-mini", "OpenAI: GPT-4o-mini", 128000, 0.00000015, 0.0000006, True, False),
        ModelInfo("meta-llama/llama-3.2-1b-instruct:free", "Llama 3.2 1B (free)", 131072, 0.0, 0.0, False, False),
        ModelInfo("openrouter/auto", "Auto Router", 2000000, None, None, None),
    ]
    (request,) = host.requests
    assert (request["method"], request["url"], request["stream"]) == (
        "GET",
        "https://openrouter.ai/api/v1/models",
        False,
    )
    assert request["headers"]["X-Title"] == "Tidepool"


def _ollama(request: dict[str, Any]) -> HttpReply:
    if request["url"].endswith("/api/tags"):
        return HttpReply.json(200, {"models": [{"name": "llama3.2:latest"}, {"name": "nomic-embed-text:latest"}]})
    model = json.loads(request["body"])["model"]
    if model.startswith("llama"):
        return HttpReply.json(
            200,
            {
                "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
                "capabilities": ["completion", "tools"],
            },
        )
    return HttpReply.json(200, {"model_info": {"nomic-bert.context_length": 2048}, "capabilities": ["embedding"]})


async def test_ollama_models(host: FrameHost) -> None:
    host.responder = _ollama
    provider = await _provider(host, OLLAMA)
    models = await asyncio.wait_for(provider.list_models(), 5)
    assert models == [
        # context_length is the window the chat will ask for: the model's maximum up to 8192
        ModelInfo("llama3.2:latest", "llama3.2:latest", 8192, 0.0, 0.0, True, False, False),
        ModelInfo("nomic-embed-text:latest", "nomic-embed-text:latest", 2048, 0.0, 0.0, False, False, False),
    ]
    shows = [r for r in host.requests if r["url"].endswith("/api/show")]
    assert sorted(json.loads(r["body"])["model"] for r in shows) == ["llama3.2:latest", "nomic-embed-text:latest"]
    assert all(r["method"] == "POST" for r in shows)


@pytest.mark.parametrize("kind", [pytest.param("network", id="network"), pytest.param("timeout", id="timeout")])
async def test_ollama_unreachable_explains_origins(host: FrameHost, kind: str) -> None:
    host.responder = lambda request: HttpReply(error=kind)
    provider = await _provider(host, OLLAMA)
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(provider.list_models(), 5)
    if kind == "network":
        assert info.value.code == "unreachable"
        assert "OLLAMA_ORIGINS=http://localhost:5173 ollama serve" in info.value.message
    else:
        assert info.value.code == "timeout"


@pytest.mark.parametrize("target", [pytest.param(OLLAMA, id="ollama"), pytest.param(OPENROUTER, id="openrouter")])
async def test_a_replay_miss_is_worded_as_the_replays_failure_not_provider_advice(
    host: FrameHost, target: ProviderEndpoint
) -> None:
    host.responder = lambda request: HttpReply(error="replay")
    provider = await _provider(host, target)
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(provider.list_models(), 5)
    message = info.value.message
    assert message.startswith("Replay: scripted replay.") and "new chat" in message
    assert not info.value.retryable and len(host.requests) == 1  # retrying a recording cannot help
    for advice in ("OLLAMA_ORIGINS", "Is Ollama running", "Could not reach", "CORS", "base URL"):
        assert advice not in message
