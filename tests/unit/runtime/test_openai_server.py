"""The OpenAI-compatible server provider (llama.cpp, llama-cpp-python, LM Studio, vLLM): the window
from each shape servers give it, named by its host, max_tokens and tool_choice sent, llama-cpp-python
told once that tools cannot stream there, a refusal's n_ctx learned, and windows kept in the store
across a reload for every provider."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from runtime.chat.messages import ChatMessage, UserMessage
from runtime.conversation.providers import ProviderCache
from runtime.conversation.settings import Settings
from runtime.errors import ProviderError
from runtime.providers import known_models
from runtime.providers.base import ModelInfo, ProviderEndpoint, ProviderNotice, StreamEvent, TextDelta
from runtime.providers.openai_server import output_limit
from runtime.providers.registry import builtin_providers
from runtime.providers.windows import listed_window, props_window, refusal_window
from runtime.store import Store
from scripts.fakes import llama_server, llamacpp
from tests.support.framehost import FrameHost, HttpReply

BASE = "http://127.0.0.1:8081/v1"
HELLO: list[ChatMessage] = [UserMessage("hi")]
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read.", "parameters": {}}}]
TEXT = b'data: {"choices":[{"index":0,"delta":{"content":"Paris."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
LLAMA_CPP_PYTHON_MODELS = {
    "object": "list",
    "data": [{"id": "qwen", "object": "model", "owned_by": "me", "permissions": []}],
}


def _server(host: FrameHost, **settings: Any) -> Any:
    return builtin_providers().create(ProviderEndpoint("openai-compatible", BASE, False, None, **settings), host.http())


def _llama_server(models: dict[str, Any], props: dict[str, Any] | None = None) -> Any:
    def respond(request: dict[str, Any]) -> HttpReply:
        url = request["url"]
        if url.endswith("/v1/models"):
            return HttpReply.json(200, models)
        if url.endswith("/props"):
            return HttpReply.json(200, props) if props is not None else HttpReply.json(404, {"detail": "Not Found"})
        return HttpReply.sse(TEXT)

    return respond


async def _collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in stream]


def _chat_bodies(host: FrameHost) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in host.requests if r["url"].endswith("/chat/completions")]


@pytest.mark.parametrize(
    ("item", "window"),
    [
        pytest.param(llama_server.models(4096)["data"][0], 4096, id="llama-server meta.n_ctx over n_ctx_train"),
        pytest.param({"id": "m", "meta": {"n_ctx_train": 32768}}, 32768, id="older llama-server: n_ctx_train only"),
        pytest.param({"id": "m", "max_context_length": 131072, "loaded_context_length": 4096}, 4096, id="LM Studio"),
        pytest.param({"id": "m", "max_model_len": 16384}, 16384, id="vLLM"),
        pytest.param({"id": "m", "context_length": 200000}, 200000, id="LiteLLM / OpenRouter shape"),
        pytest.param({"id": "m", "owned_by": "me"}, None, id="llama-cpp-python: nothing"),
        pytest.param({"id": "m", "meta": {"n_ctx": True}, "context_length": -1}, None, id="nonsense is ignored"),
    ],
)
def test_the_window_from_each_listing_shape(item: dict[str, Any], window: int | None) -> None:
    assert listed_window(item) == window


def test_the_window_from_props_and_from_a_refusal() -> None:
    assert props_window(llama_server.props(2048)) == 2048
    assert props_window({"n_ctx": 512}) == 512
    assert props_window({"detail": "Not Found"}) is None
    assert refusal_window(json.dumps(llamacpp.overflow_body(5000, 4096)).encode()) == 4096
    assert refusal_window(b"<html>bad gateway</html>") is None


def test_the_output_limit_is_a_quarter_of_the_window_at_most_2048() -> None:
    assert (output_limit(4096, None), output_limit(32768, None), output_limit(None, None)) == (1024, 2048, 2048)
    assert output_limit(1024, None) == 256  # never less, however small the window
    assert output_limit(4096, 300) == 300  # the configured one wins


async def test_llama_server_lists_its_window_and_chats_with_max_tokens_and_tool_choice(host: FrameHost) -> None:
    host.responder = _llama_server(llama_server.models(4096))
    provider = _server(host)
    (model,) = await asyncio.wait_for(provider.list_models(), 5)
    assert (model.id, model.context_length, model.prompt_price, model.completion_price) == (
        llama_server.MODEL,
        4096,
        None,
        None,
    )
    assert not [r for r in host.requests if r["url"].endswith("/props")], "the listing said it: no /props needed"
    events = await asyncio.wait_for(_collect(provider.stream_chat(HELLO, TOOLS, llama_server.MODEL)), 5)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Paris."]
    (body,) = _chat_bodies(host)
    assert (body["max_tokens"], body["tool_choice"], body["tools"]) == (1024, "auto", TOOLS)
    assert all(r["auth"] == "provider" for r in host.requests), "the adapter adds a key, if any, for this base only"


async def test_without_a_window_in_the_listing_props_is_asked(host: FrameHost) -> None:
    listing = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "llamacpp"}]}
    host.responder = _llama_server(listing, llama_server.props(6144))
    (model,) = await asyncio.wait_for(_server(host).list_models(), 5)
    assert model.context_length == 6144
    assert [r["url"] for r in host.requests][-1] == "http://127.0.0.1:8081/props"


async def test_llama_cpp_python_is_told_once_that_tools_cannot_stream(host: FrameHost) -> None:
    host.responder = _llama_server(LLAMA_CPP_PYTHON_MODELS)  # no /props: 404, no window
    provider = _server(host)
    (model,) = await asyncio.wait_for(provider.list_models(), 5)
    assert model.context_length is None
    first = await asyncio.wait_for(_collect(provider.stream_chat(HELLO, TOOLS, "qwen")), 5)
    again = await asyncio.wait_for(_collect(provider.stream_chat(HELLO, TOOLS, "qwen")), 5)
    (notice,) = [e for e in first if isinstance(e, ProviderNotice)]
    assert notice.code == "tools_cannot_stream" and "127.0.0.1:8081" in notice.text and "llama-server" in notice.text
    assert not [e for e in again if isinstance(e, ProviderNotice)]
    for body in _chat_bodies(host):
        assert "tools" not in body and "tool_choice" not in body  # tool_choice with stream: an empty stream
        assert body["max_tokens"] == 2048


async def test_an_overflow_refusal_teaches_the_window(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply.json(400, llamacpp.overflow_body(5000, 4096))
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(_collect(_server(host).stream_chat(HELLO, [], "m")), 5)
    assert info.value.status == 400 and "127.0.0.1:8081" in info.value.message
    assert known_models.window(BASE, "m") == 4096
    cache = ProviderCache(builtin_providers(), host.http(), lambda: Settings(_endpoint(), "m"))
    assert cache.context_tokens() == 4096  # compaction budgets against what the server said


@pytest.mark.parametrize("kind", ["network", "timeout"])
async def test_failures_name_the_host_never_openrouter(host: FrameHost, kind: str) -> None:
    host.responder = lambda request: HttpReply(error=kind)
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(_server(host).list_models(), 5)
    assert "127.0.0.1:8081" in info.value.message and "openrouter" not in info.value.message.lower()
    if kind == "network":
        assert info.value.message.startswith("Could not reach 127.0.0.1:8081 at http://127.0.0.1:8081/v1")
        assert "llama-server" in info.value.message


def _endpoint(kind: str = "openai-compatible", base: str = BASE) -> ProviderEndpoint:
    return ProviderEndpoint(kind, base)


@pytest.mark.parametrize(
    ("kind", "base"),
    [("openai-compatible", BASE), ("openrouter", "https://openrouter.ai/api/v1"), ("ollama", "http://localhost:11434")],
)
async def test_windows_are_kept_in_the_store_across_a_reload(host: FrameHost, kind: str, base: str) -> None:
    store = Store()
    settings = Settings(_endpoint(kind, base), "m")
    before = ProviderCache(builtin_providers(), host.http(), lambda: settings, lambda: store)
    assert before.remember_models([ModelInfo("m", "m", context_length=4096), ModelInfo("n", "n")]) is True
    assert before.remember_models([ModelInfo("m", "m", context_length=4096)]) is False  # nothing new: no save
    reloaded = ProviderCache(builtin_providers(), host.http(), lambda: settings, lambda: Store(store.serialize()))
    assert reloaded.context_tokens() == 4096
    other = Settings(_endpoint(kind, base + "/other"), "m")  # the same model id elsewhere is another window
    assert ProviderCache(builtin_providers(), host.http(), lambda: other, lambda: store).context_tokens() == 32768
