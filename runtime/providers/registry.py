"""The one list of provider kinds. Tests register scripted providers through the same registry."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from runtime.host.http import HttpClient
from runtime.providers.base import Provider, ProviderEndpoint

ProviderFactory = Callable[[ProviderEndpoint, HttpClient], Provider]


class UnknownProvider(KeyError):
    pass


class ProviderRegistry:
    def __init__(self) -> None:
        self._factories: dict[str, ProviderFactory] = {}

    def register(self, kind: str, factory: ProviderFactory) -> None:
        if kind in self._factories:
            raise ValueError(f"provider {kind!r} is registered twice")
        self._factories[kind] = factory

    def create(self, settings: ProviderEndpoint, http: HttpClient) -> Provider:
        try:
            factory = self._factories[settings.kind]
        except KeyError:
            raise UnknownProvider(settings.kind) from None
        return factory(settings, http)

    def __contains__(self, kind: object) -> bool:
        return kind in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(self._factories)


def builtin_providers() -> ProviderRegistry:
    from runtime.providers.ollama import OllamaProvider
    from runtime.providers.openai_server import OpenAIServerProvider
    from runtime.providers.openrouter import OpenRouterProvider

    registry = ProviderRegistry()
    registry.register("openrouter", OpenRouterProvider)
    registry.register("ollama", OllamaProvider)
    registry.register("openai-compatible", OpenAIServerProvider)
    return registry
