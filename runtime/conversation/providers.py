"""The provider client for the current settings, made once per provider change, and what the
provider's model list taught about context lengths and which models take images."""

from __future__ import annotations

from collections.abc import Callable

from runtime.agent.context import DEFAULT_CONTEXT_TOKENS
from runtime.conversation.settings import Settings
from runtime.errors import ProviderError
from runtime.host.http import HttpClient
from runtime.providers.base import ModelInfo, Provider, ProviderEndpoint
from runtime.providers.registry import ProviderRegistry, UnknownProvider


class ProviderCache:
    def __init__(self, registry: ProviderRegistry, http: HttpClient, settings: Callable[[], Settings]) -> None:
        self._registry = registry
        self._http = http
        self._settings = settings
        self._provider: Provider | None = None
        self._context_lengths: dict[str, int] = {}
        self._vision: dict[str, bool] = {}

    def forget(self) -> None:
        """The provider settings changed: the next use makes a new client."""
        self._provider = None

    def provider(self, override: ProviderEndpoint | None = None) -> Provider:
        """The configured provider (or one for ``override``); raises ``ProviderError`` with advice."""
        settings = override or self._settings().provider
        if settings is None:
            raise ProviderError("bad_request", "No provider is configured. Choose one in Settings.", retryable=False)
        if override is None and self._provider is not None:
            return self._provider
        try:
            provider = self._registry.create(settings, self._http)
        except UnknownProvider:
            raise ProviderError(
                "bad_request", f"Unknown provider {settings.kind!r}. Choose one in Settings.", retryable=False
            ) from None
        if override is None:
            self._provider = provider
        return provider

    def configured(self) -> Provider:
        """The provider, when a model is chosen too."""
        provider = self.provider()
        if not self._settings().model:
            raise ProviderError("bad_request", "No model is selected. Choose one in Settings.", retryable=False)
        return provider

    def page_origin(self) -> str | None:
        provider = self._settings().provider
        return provider.page_origin if provider else None

    def remember_models(self, models: list[ModelInfo]) -> None:
        """Context lengths from the provider's model list: the token budget of each model."""
        self._context_lengths.update({m.id: m.context_length for m in models if m.context_length})
        self._vision.update({m.id: m.vision for m in models if m.vision is not None})

    def vision(self) -> bool | None:
        """Whether the chosen model takes images, as its provider's model list said (None: not known)."""
        return self._vision.get(self._settings().model or "")

    def context_tokens(self) -> int:
        settings = self._settings()
        return settings.context_length or self._context_lengths.get(settings.model or "") or DEFAULT_CONTEXT_TOKENS
