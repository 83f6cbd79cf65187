"""A provider resolved when it is first used: a resumed turn starts before the host's ``config`` may
have arrived, and needs the provider only once the person answered the approval it waits for."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from runtime.chat.messages import ChatMessage
from runtime.errors import ProviderError
from runtime.providers.base import ModelInfo, Provider, StreamEvent


class LazyProvider:
    kind = "lazy"

    def __init__(self, resolve: Callable[[], Provider], model: Callable[[], str | None]) -> None:
        self._resolve = resolve
        self._model = model

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        chosen = self._model() or model
        if not chosen:
            raise ProviderError("bad_request", "No model is selected. Choose one in Settings.", retryable=False)
        async for event in self._resolve().stream_chat(messages, tools, chosen):
            yield event

    async def list_models(self) -> list[ModelInfo]:
        return await self._resolve().list_models()
