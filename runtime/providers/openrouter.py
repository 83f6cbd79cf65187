"""OpenRouter: chat at ``{base}/chat/completions``, models from ``GET {base}/models``."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from runtime.chat.messages import ChatMessage
from runtime.errors import HostHttpError, HostRequestError
from runtime.host.constants import PROVIDER_DEFAULT_BASE_URLS
from runtime.host.http import HttpClient
from runtime.providers import known_models
from runtime.providers.base import ModelInfo, ProviderEndpoint, StreamEvent
from runtime.providers.capabilities import ToolOffer
from runtime.providers.failures import OPENROUTER_ADVICE, Hints, from_host_failure, from_status
from runtime.providers.openai_compat import ChatEndpoint, OpenAICompatChat
from runtime.providers.reasoning import reasoning_option

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = PROVIDER_DEFAULT_BASE_URLS["openrouter"]
# OpenRouter's app attribution (X-OpenRouter-Title, and the older X-Title); HTTP-Referer is the page's origin
APP_HEADERS = {"X-OpenRouter-Title": "Tidepool", "X-Title": "Tidepool"}


class OpenRouterProvider:
    kind = "openrouter"
    offers_requests = True  # its request is built and sent through HttpClient (conversation/offer.py)

    def __init__(self, settings: ProviderEndpoint, http: HttpClient) -> None:
        self.base_url = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._http = http
        self._reasoning = settings.reasoning
        self._max_output = settings.max_output
        self._tools = ToolOffer()
        headers = dict(APP_HEADERS)
        if settings.page_origin:
            headers["HTTP-Referer"] = settings.page_origin
        self._headers = headers
        self.hints = Hints(
            "OpenRouter",
            self.base_url,
            "Check your network connection and the base URL in Settings.",
            OPENROUTER_ADVICE,
            refusals=True,
        )
        self.chat = OpenAICompatChat(http, ChatEndpoint(f"{self.base_url}/chat/completions", self.hints, headers))

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        known = known_models.lookup(self.base_url, model)
        offered, notice = self._tools.tools_for(model, known, tools)
        if notice is not None:
            yield notice
        option = reasoning_option(self._reasoning, known.reasoning if known else None)
        extra: dict[str, Any] = {"reasoning": option} if option else {}
        if self._max_output:
            extra["max_tokens"] = self._max_output
        async for event in self.chat.stream(messages, offered, model, extra or None):
            yield event

    async def list_models(self) -> list[ModelInfo]:
        try:
            response = await self._http.fetch(
                f"{self.base_url}/models", headers=self._headers, auth="provider", timeout_s=30, max_bytes=20_000_000
            )
        except (HostHttpError, HostRequestError) as exc:
            raise from_host_failure(exc, self.hints) from exc
        if response.status != 200:
            raise from_status(response.status, response.body, self.hints, response.headers.get("retry-after"))
        models = parse_models(json.loads(response.body))
        known_models.remember(self.base_url, models)
        return models


def parse_models(payload: Any) -> list[ModelInfo]:
    models = []
    for item in (payload or {}).get("data") or []:
        if not isinstance(item, dict) or not item.get("id"):
            continue
        pricing = item.get("pricing") or {}
        params = item.get("supported_parameters")
        architecture = item.get("architecture") or {}
        inputs = architecture.get("input_modalities") if isinstance(architecture, dict) else None
        models.append(
            ModelInfo(
                id=str(item["id"]),
                name=str(item.get("name") or item["id"]),
                context_length=_int(item.get("context_length")),
                prompt_price=listed_price(pricing.get("prompt")),
                completion_price=listed_price(pricing.get("completion")),
                tools=("tools" in params) if isinstance(params, list) else None,
                reasoning=("reasoning" in params) if isinstance(params, list) else None,
                vision=("image" in inputs) if isinstance(inputs, list) else None,
            )
        )
    return models


def listed_price(value: Any) -> float | None:
    try:
        price = float(value)
    except (TypeError, ValueError):
        return None
    return price if price >= 0 else None  # OpenRouter uses -1 for "varies" (the auto router)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
