"""Ollama: chat at ``{base}/v1/chat/completions``; models from ``/api/tags`` + ``/api/show``."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from runtime.chat.messages import ChatMessage
from runtime.errors import HostHttpError, HostRequestError, ProviderError
from runtime.host.constants import PROVIDER_DEFAULT_BASE_URLS
from runtime.host.http import HttpClient
from runtime.providers.base import ModelInfo, ProviderEndpoint, StreamEvent
from runtime.providers.failures import OLLAMA_ADVICE, Hints, from_host_failure, from_status
from runtime.providers.openai_compat import ChatEndpoint, OpenAICompatChat

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = PROVIDER_DEFAULT_BASE_URLS["ollama"]
_SHOW_CONCURRENCY = 4


def unreachable_advice(page_origin: str | None) -> str:
    origin = page_origin or "<this page's origin>"
    return (
        "Is Ollama running, and does it allow this page? Start it with "
        f"`OLLAMA_ORIGINS={origin} ollama serve` and check the base URL in Settings."
    )


class OllamaProvider:
    kind = "ollama"

    def __init__(self, settings: ProviderEndpoint, http: HttpClient) -> None:
        base = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
        self.base_url = base.removesuffix("/v1")
        self._http = http
        self.hints = Hints("Ollama", self.base_url, unreachable_advice(settings.page_origin), OLLAMA_ADVICE)
        self.chat = OpenAICompatChat(http, ChatEndpoint(f"{self.base_url}/v1/chat/completions", self.hints))

    def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        return self.chat.stream(messages, tools, model)

    async def list_models(self) -> list[ModelInfo]:
        tags = await self._get_json("GET", "/api/tags", None)
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

        return list(await asyncio.gather(*(describe(n) for n in names)))

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
    )
