"""Ollama: chat at ``{base}/api/chat`` (native NDJSON, ``providers.ollama_chat``); models from
``/api/tags`` + ``/api/show``.

The context window is set on every request (``options.num_ctx``): the configured one, else the
smaller of the model's maximum and ``DEFAULT_NUM_CTX``. The model list reports that same number as
each model's ``context_length``, so compaction budgets against the window Ollama really uses. The
capabilities ``/api/show`` lists are respected: ``tools`` (a model without them is offered none),
``thinking`` (``think: true``), ``vision`` (shown in the picker).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from runtime.chat.messages import ChatMessage
from runtime.errors import HostHttpError, HostRequestError, ProviderError
from runtime.host.constants import PROVIDER_DEFAULT_BASE_URLS
from runtime.host.http import HttpClient
from runtime.providers import known_models
from runtime.providers.base import ModelInfo, ProviderEndpoint, StreamEvent
from runtime.providers.capabilities import ToolOffer
from runtime.providers.failures import OLLAMA_ADVICE, Hints, from_host_failure, from_status
from runtime.providers.ollama_chat import ChatOptions, OllamaChat

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = PROVIDER_DEFAULT_BASE_URLS["ollama"]
DEFAULT_NUM_CTX = 8192  # tools and system prompt take ~2k tokens; most machines run 8k comfortably
_SHOW_CONCURRENCY = 4


def unreachable_advice(page_origin: str | None) -> str:
    origin = page_origin or "<this page's origin>"
    return (
        "Is Ollama running, and does it allow this page? Start it with "
        f"`OLLAMA_ORIGINS={origin} ollama serve` and check the base URL in Settings."
    )


class OllamaProvider:
    kind = "ollama"
    offers_requests = True  # its request is built and sent through HttpClient (conversation/offer.py)

    def __init__(self, settings: ProviderEndpoint, http: HttpClient) -> None:
        base = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
        self.base_url = base.removesuffix("/v1")
        self._http = http
        advice = unreachable_advice(settings.page_origin)
        self.hints = Hints("Ollama", self.base_url, advice, OLLAMA_ADVICE, cors=advice)
        self.chat = OllamaChat(http, f"{self.base_url}/api/chat", self.hints)
        self._num_ctx = settings.context_length
        self._reasoning = settings.reasoning
        self._tools = ToolOffer()

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        known = known_models.lookup(self.base_url, model)
        offered, notice = self._tools.tools_for(model, known, tools)
        if notice is not None:
            yield notice
        think = (self._reasoning != "off") if known is not None and known.reasoning else None
        options = ChatOptions(self.num_ctx(known.context_length if known else None), think)
        try:
            async for event in self.chat.stream(messages, offered, model, options):
                yield event
        except ProviderError as exc:
            raise await self._not_ollama(exc) from exc

    def num_ctx(self, model_max: int | None) -> int:
        """The window to ask for: the configured one, else the model's maximum up to the default."""
        if self._num_ctx:
            return self._num_ctx
        return min(model_max, DEFAULT_NUM_CTX) if model_max else DEFAULT_NUM_CTX

    async def _not_ollama(self, exc: ProviderError) -> ProviderError:
        """``exc``, or, for a 404 from a server that answers ``/v1/models`` (llama.cpp, LM Studio, vLLM: not
        Ollama, whose own 404 names a model that is not pulled), advice to choose the right provider."""
        if exc.status != 404 or "model '" in exc.message:  # Ollama's own: "model 'x' not found"
            return exc
        try:
            response = await self._http.fetch(f"{self.base_url}/v1/models", auth="provider", timeout_s=10)
            listed = response.status == 200 and isinstance(json.loads(response.body).get("data"), list)
        except (HostHttpError, HostRequestError, ValueError, AttributeError):
            listed = False
        if not listed:
            return exc
        return ProviderError(
            "bad_request",
            f"{self.base_url} is not Ollama: it answered HTTP 404 to Ollama's API, but it lists models at /v1/models. "
            "This looks like an OpenAI-compatible server (llama.cpp, LM Studio, vLLM): choose “OpenAI-compatible "
            f"server” in Settings, with the base URL {self.base_url}/v1.",
            status=404,
            retryable=False,
            provider=self.hints.name,
        )

    async def list_models(self) -> list[ModelInfo]:
        try:
            tags = await self._get_json("GET", "/api/tags", None)
        except ProviderError as exc:
            raise await self._not_ollama(exc) from exc
        names = [str(m.get("name") or m.get("model")) for m in tags.get("models") or [] if isinstance(m, dict)]
        limit = asyncio.Semaphore(_SHOW_CONCURRENCY)

        async def describe(name: str) -> ModelInfo:
            async with limit:
                try:
                    show = await self._get_json("POST", "/api/show", {"model": name})
                except ProviderError as exc:
                    log.warning("ollama: no details for %s: %s", name, exc.message)
                    return ModelInfo(name, name)
            return parse_show(name, show)

        shown = list(await asyncio.gather(*(describe(n) for n in names)))
        known_models.remember(self.base_url, shown)  # the models' maxima, for num_ctx
        return [replace(m, context_length=self.num_ctx(m.context_length)) for m in shown]

    async def _get_json(self, method: str, path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        try:
            response = await self._http.fetch(
                f"{self.base_url}{path}",
                method=method,
                headers={"Content-Type": "application/json"} if payload is not None else {},
                body=json.dumps(payload) if payload is not None else None,
                auth="provider",
                timeout_s=15,
            )
        except (HostHttpError, HostRequestError) as exc:
            raise from_host_failure(exc, self.hints) from exc
        if response.status != 200:
            raise from_status(response.status, response.body, self.hints)
        data = json.loads(response.body)
        return data if isinstance(data, dict) else {}


def parse_show(name: str, show: dict[str, Any]) -> ModelInfo:
    info = show.get("model_info") or {}
    context = next((v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)), None)
    caps = show.get("capabilities")
    return ModelInfo(
        id=name,
        name=name,
        context_length=context,
        prompt_price=0.0,
        completion_price=0.0,
        tools=("tools" in caps) if isinstance(caps, list) else None,
        reasoning=("thinking" in caps) if isinstance(caps, list) else None,
        vision=("vision" in caps) if isinstance(caps, list) else None,
    )
