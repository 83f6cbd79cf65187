"""The provider client for the current settings, made once per provider change, and what the
provider taught about each model: its context window (kept in the store per provider, base URL and
model, so it survives a reload) and whether it takes images."""

from __future__ import annotations

from collections.abc import Callable

from runtime.agent.context import DEFAULT_CONTEXT_TOKENS
from runtime.conversation.settings import Settings
from runtime.errors import ProviderError
from runtime.host.http import HttpClient
from runtime.providers import known_models
from runtime.providers.base import ModelInfo, Provider, ProviderEndpoint
from runtime.providers.registry import ProviderRegistry, UnknownProvider
from runtime.store import Store


class ProviderCache:
    def __init__(
        self,
        registry: ProviderRegistry,
        http: HttpClient,
        settings: Callable[[], Settings],
        store: Callable[[], Store | None] = lambda: None,
    ) -> None:
        self._registry = registry
        self._http = http
        self._settings = settings
        self._store = store
        self._provider: Provider | None = None
        self._windows: dict[tuple[str, str, str], int] = {}
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

    def fresh(self, http: HttpClient) -> Provider:
        """A new client for the configured provider, on ``http`` (the offer's dry run: conversation/offer.py)."""
        settings = self._settings().provider
        if settings is None:
            raise ProviderError("bad_request", "No provider is configured.", retryable=False)
        try:
            return self._registry.create(settings, http)
        except UnknownProvider:
            raise ProviderError("bad_request", f"Unknown provider {settings.kind!r}.", retryable=False) from None

    def configured(self) -> Provider:
        """The provider, when a model is chosen too."""
        provider = self.provider()
        if not self._settings().model:
            raise ProviderError("bad_request", "No model is selected. Choose one in Settings.", retryable=False)
        return provider

    def page_origin(self) -> str | None:
        provider = self._settings().provider
        return provider.page_origin if provider else None

    def remember_models(self, models: list[ModelInfo]) -> bool:
        """Context windows from the provider's model list (kept); True when the store changed."""
        self._vision.update({m.id: m.vision for m in models if m.vision is not None})
        provider = self._settings().provider
        if provider is None:
            return False
        changed = False
        for m in models:
            if m.context_length:
                changed = self._keep(provider, m.id, m.context_length) or changed
        return changed

    def vision(self) -> bool | None:
        """Whether the chosen model takes images, as its provider's model list said (None: not known)."""
        return self._vision.get(self._settings().model or "")

    def context_tokens(self) -> int:
        """The window to budget against: the configured one, else what the server said when it refused a
        request, else what its model list said (this page or an earlier one: kept), else the default."""
        settings = self._settings()
        if settings.context_length:
            return settings.context_length
        provider, model = settings.provider, settings.model
        if provider is None or not model:
            return DEFAULT_CONTEXT_TOKENS
        learned = known_models.learned_window(_base(provider), model)
        if learned:
            self._keep(provider, model, learned)
            return learned
        return self._window(provider, model) or DEFAULT_CONTEXT_TOKENS

    def _window(self, provider: ProviderEndpoint, model: str) -> int | None:
        key = (provider.kind, _base(provider), model)
        if key not in self._windows:
            store = self._store()
            stored = store.model_window(*key) if store is not None else None
            if stored is None:
                return None
            self._windows[key] = stored
        return self._windows[key]

    def _keep(self, provider: ProviderEndpoint, model: str, window: int) -> bool:
        key = (provider.kind, _base(provider), model)
        self._windows[key] = window
        store = self._store()
        return store.set_model_window(*key, window) if store is not None else False


def _base(provider: ProviderEndpoint) -> str:
    return provider.base_url.rstrip("/")
