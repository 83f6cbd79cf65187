"""An OpenAI-compatible server (llama.cpp's llama-server, llama-cpp-python, LM Studio, vLLM, LiteLLM):
chat at ``{base}/chat/completions`` (the shared ``openai_compat`` client), models from ``{base}/models``.

It is named after its host in every message ("Could not reach 127.0.0.1:8081"); a key is optional
and never checked; prices are shown only where the listing carries them. The window is what the
server says (``providers.windows``): the listing, else llama-server's ``/props``, else the ``n_ctx``
of a refusal, learned and kept (``known_models.learn_window``). Every request carries ``max_tokens``
(``output_limit``) so one answer can never run until the window is full, and ``tool_choice: "auto"``
with its tools (llama-cpp-python calls no tool without it). llama-cpp-python (its listing says
``owned_by: "me"``) cannot stream tool calls at all — with ``tool_choice`` and ``stream`` its
answer is an empty stream —, so there the chat is told once and no tools are offered.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from runtime.chat.messages import ChatMessage
from runtime.errors import HostHttpError, HostRequestError, ProviderError, ProviderErrorCode
from runtime.host.http import HttpClient
from runtime.providers import known_models
from runtime.providers.base import ModelInfo, ProviderEndpoint, ProviderNotice, StreamEvent
from runtime.providers.capabilities import ToolOffer
from runtime.providers.failures import Hints, from_host_failure, from_status
from runtime.providers.openai_compat import ChatEndpoint, OpenAICompatChat
from runtime.providers.openrouter import listed_price
from runtime.providers.windows import listed_window, props_window, refusal_window

log = logging.getLogger(__name__)

DEFAULT_OUTPUT_TOKENS = 2048  # the most one answer may take by default: a quarter of the window, at most this
LLAMA_CPP_PYTHON = "me"  # what llama-cpp-python's server lists as every model's owner


def server_host(base_url: str) -> str:
    """How the server is named to people: its host and port (``127.0.0.1:8081``)."""
    return urlsplit(base_url).netloc or base_url or "the server"


def output_limit(window: int | None, configured: int | None) -> int:
    """``max_tokens`` for one answer: the configured one, else a quarter of the window up to the default."""
    if configured:
        return configured
    return min(DEFAULT_OUTPUT_TOKENS, max(256, window // 4)) if window else DEFAULT_OUTPUT_TOKENS


def server_advice(host: str) -> dict[ProviderErrorCode, str]:
    return {
        "auth": f"The server at {host} refused the key: check the key in Settings (most local servers need none).",
        "credits": f"The server at {host} asked for payment: check its account, or the base URL in Settings.",
        "server": f"The server at {host} failed; check its log, then try again.",
        "bad_request": f"The server at {host} did not accept the request: check that the model is loaded there "
        "and the settings.",
    }


class OpenAIServerProvider:
    kind = "openai-compatible"
    offers_requests = True  # its request is built and sent through HttpClient (conversation/offer.py)

    def __init__(self, settings: ProviderEndpoint, http: HttpClient) -> None:
        self.base_url = settings.base_url.rstrip("/")
        self._http = http
        self._max_output = settings.max_output
        self._tools = ToolOffer()
        self._told_no_stream: set[str] = set()
        self.host = server_host(self.base_url)
        unreachable = (
            f"Is the server running there? For llama.cpp: `llama-server -m model.gguf --jinja -c 8192 "
            f"--port {urlsplit(self.base_url).port or 8080}`; then check the base URL in Settings."
        )
        self.hints = Hints(self.host, self.base_url, unreachable, server_advice(self.host))
        endpoint = ChatEndpoint(f"{self.base_url}/chat/completions", self.hints, on_refusal=self._refused)
        self.chat = OpenAICompatChat(http, endpoint)
        self._model = ""

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        known = known_models.lookup(self.base_url, model)
        offered, notice = self._tools.tools_for(model, known, tools)
        if notice is not None:
            yield notice
        if offered and known_models.owner(self.base_url) == LLAMA_CPP_PYTHON:
            offered = []
            if model not in self._told_no_stream:
                self._told_no_stream.add(model)
                yield ProviderNotice("tools_cannot_stream", no_stream_notice(self.host))
        window = known_models.window(self.base_url, model)
        extra: dict[str, Any] = {"max_tokens": output_limit(window, self._max_output)}
        if offered:
            extra["tool_choice"] = "auto"
        self._model = model
        async for event in self.chat.stream(messages, offered, model, extra):
            yield event

    def _refused(self, status: int, body: bytes) -> None:
        """A refusal that names the window (llama-server's overflow 400): learn it for this model."""
        window = refusal_window(body) if status == 400 else None
        if window and self._model:
            known_models.learn_window(self.base_url, self._model, window)

    async def list_models(self) -> list[ModelInfo]:
        payload = await self._get_json(f"{self.base_url}/models")
        items = [i for i in (payload.get("data") or []) if isinstance(i, dict) and i.get("id")]
        owners = {str(i.get("owned_by")) for i in items if i.get("owned_by")}
        if len(owners) == 1:
            known_models.remember_owner(self.base_url, owners.pop())
        fallback = None
        if any(listed_window(i) is None for i in items):
            fallback = await self._props_window()
        models = [parse_model(i, fallback) for i in items]
        known_models.remember(self.base_url, models)
        return models

    async def _props_window(self) -> int | None:
        """llama-server's ``/props`` (beside ``/v1``); None where the server has none."""
        root = self.base_url.removesuffix("/v1")
        try:
            return props_window(await self._get_json(f"{root}/props"))
        except ProviderError as exc:
            log.info("%s: no window from /props: %s", self.host, exc.message)
            return None

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            response = await self._http.fetch(url, auth="provider", timeout_s=30, max_bytes=20_000_000)
        except (HostHttpError, HostRequestError) as exc:
            raise from_host_failure(exc, self.hints) from exc
        if response.status != 200:
            raise from_status(response.status, response.body, self.hints, response.headers.get("retry-after"))
        try:
            data = json.loads(response.body)
        except ValueError:
            raise ProviderError(
                "provider_error", f"{self.host} answered {url} with something that is not JSON.", provider=self.host
            ) from None
        return data if isinstance(data, dict) else {}


def no_stream_notice(host: str) -> str:
    return (
        f"The server at {host} (llama-cpp-python) cannot stream tool calls, so the model answers from the "
        "conversation alone: it cannot read or write files, run code or fetch pages. For tools, run "
        "llama.cpp's llama-server (`llama-server -m model.gguf --jinja`) instead."
    )


def parse_model(item: dict[str, Any], fallback_window: int | None) -> ModelInfo:
    listed = item.get("pricing")
    pricing: dict[str, Any] = listed if isinstance(listed, dict) else {}
    return ModelInfo(
        id=str(item["id"]),
        name=str(item.get("name") or item["id"]),
        context_length=listed_window(item) or fallback_window,
        prompt_price=listed_price(pricing.get("prompt")),
        completion_price=listed_price(pricing.get("completion")),
    )
