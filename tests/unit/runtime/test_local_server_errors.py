"""Errors said for what they are, for the server that answered: llama.cpp's overflow (its numbers kept on
the error), llama-cpp-python's empty 200 stream, a reply dropped midway, nothing listening vs CORS, and
Ollama chosen for an OpenAI-compatible server. None of them says "try again" when that cannot help."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from runtime.chat.messages import UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import ProviderEndpoint, TextDelta
from runtime.providers.failures import Hints, from_status
from runtime.providers.registry import builtin_providers
from scripts.fakes.llamacpp import overflow_body
from tests.support.framehost import FrameHost, HttpReply

LOCAL = Hints("llama.cpp at 127.0.0.1:8080", "http://127.0.0.1:8080/v1")
OLD_WORDING = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
    }
}


@pytest.mark.parametrize(
    ("body", "n_ctx", "n_prompt"),
    [
        pytest.param(overflow_body(5605, 4096), 4096, 5605, id="llama-server with its numbers"),
        pytest.param(OLD_WORDING, None, None, id="older llama-server wording"),
    ],
)
def test_llama_cpp_overflow_says_how_to_raise_the_window_and_keeps_its_numbers(
    body: dict[str, object], n_ctx: int | None, n_prompt: int | None
) -> None:
    error = from_status(400, json.dumps(body), LOCAL)
    assert not error.retryable and error.overflow is not None
    assert (error.overflow.n_ctx, error.overflow.n_prompt_tokens) == (n_ctx, n_prompt)
    assert "-c 16384" in error.message and "--n_ctx 16384" in error.message
    assert "context window" in error.message
    assert "try again" not in error.message.lower() and "Check the model and settings" not in error.message
    if n_ctx:
        assert "5605 tokens for a window of 4096" in error.message


async def _stream(host: FrameHost, reply: HttpReply, kind: str = "openrouter") -> list[object]:
    host.responder = lambda request: reply
    base = "https://openrouter.ai/api/v1" if kind == "openrouter" else "http://127.0.0.1:11434"
    provider = builtin_providers().create(ProviderEndpoint(kind, base, True), host.http())
    return [e async for e in provider.stream_chat([UserMessage("hi")], [], "m")]


async def test_an_empty_200_stream_is_an_overflow_not_a_retry(host: FrameHost) -> None:
    with pytest.raises(ProviderError) as err:
        await _stream(host, HttpReply.sse(b": keep-alive\n\n"))
    assert not err.value.retryable and err.value.overflow is not None
    assert "--n_ctx" in err.value.message and "closed the reply without sending anything" in err.value.message
    assert "try again" not in err.value.message.lower()
    assert len(host.requests) == 1  # not retried


CHUNK = b'data: {"choices": [{"index": 0, "delta": {"content": "The answer"}, "finish_reason": null}]}\n\n'


@pytest.mark.parametrize("kind", ["network", "dropped"])
async def test_a_reply_dropped_midway_asks_whether_the_server_still_runs(host: FrameHost, kind: str) -> None:
    events: list[object] = []
    with pytest.raises(ProviderError) as err:
        async for event in _iter(
            host, HttpReply(200, {"content-type": "text/event-stream"}, (CHUNK,), fail_after=kind)
        ):
            events.append(event)
    assert events == [TextDelta("The answer")]
    assert "stopped answering mid-reply" in err.value.message and "still running" in err.value.message
    assert "CORS" not in err.value.message


async def _iter(host: FrameHost, reply: HttpReply) -> AsyncIterator[object]:
    host.responder = lambda request: reply
    provider = builtin_providers().create(
        ProviderEndpoint("openrouter", "https://openrouter.ai/api/v1", True), host.http()
    )
    async for event in provider.stream_chat([UserMessage("hi")], [], "m"):
        yield event


@pytest.mark.parametrize(
    ("kind", "says", "never"),
    [
        pytest.param("unreachable", "Nothing answers at", "CORS", id="nothing listening"),
        pytest.param("cors", "(CORS)", "Nothing answers", id="cors"),
    ],
)
async def test_nothing_listening_and_cors_are_told_apart(host: FrameHost, kind: str, says: str, never: str) -> None:
    with pytest.raises(ProviderError) as err:
        await _stream(host, HttpReply(error=kind), kind="ollama")
    assert says in err.value.message and never not in err.value.message


async def test_ollama_chosen_for_an_openai_compatible_server_says_which_provider_to_choose(host: FrameHost) -> None:
    llama_404 = {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}

    def answer(request: dict[str, object]) -> HttpReply:
        if str(request["url"]).endswith("/v1/models"):
            return HttpReply.json(200, {"object": "list", "data": [{"id": "qwen", "meta": {"n_ctx": 4096}}]})
        return HttpReply.json(404, llama_404)

    host.responder = answer
    provider = builtin_providers().create(ProviderEndpoint("ollama", "http://127.0.0.1:8080"), host.http())
    with pytest.raises(ProviderError) as err:
        await provider.list_models()
    assert "OpenAI-compatible server" in err.value.message and "llama.cpp" in err.value.message
    assert "http://127.0.0.1:8080/v1" in err.value.message
    with pytest.raises(ProviderError) as err:
        _ = [e async for e in provider.stream_chat([UserMessage("hi")], [], "qwen")]
    assert "OpenAI-compatible server" in err.value.message


async def test_ollama_saying_a_model_is_not_pulled_keeps_its_own_advice(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply.json(404, {"error": "model 'qwen' not found"})
    provider = builtin_providers().create(ProviderEndpoint("ollama", "http://127.0.0.1:11434"), host.http())
    with pytest.raises(ProviderError) as err:
        _ = [e async for e in provider.stream_chat([UserMessage("hi")], [], "qwen")]
    assert "OpenAI-compatible" not in err.value.message and "ollama list" in err.value.message
    assert not any(str(r["url"]).endswith("/v1/models") for r in host.requests)
