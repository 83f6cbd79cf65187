"""What request handlers may use of the conversation: narrow interfaces, one per concern.

Every handler gets a ``Ports`` and the request's ``params``; the conversation fills ``Ports`` with
its pieces (the stored state, the session switcher, the provider cache, the tool registry).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from runtime.host.events import ToolInfo
from runtime.host.workspace_fetch import OnDemand
from runtime.providers.base import ModelInfo, Provider, ProviderEndpoint
from runtime.store import Store


class WorkspaceSaver(Protocol):
    async def workspace(self, paths: tuple[str, ...] | list[str]) -> bool:
        """Save these workspace paths (a folder: all of it) to the host."""
        ...


class StoredState(Protocol):
    """The state store and which stored session is open."""

    @property
    def session_id(self) -> str | None: ...

    @property
    def flusher(self) -> WorkspaceSaver: ...

    async def store(self) -> Store: ...

    async def save(self) -> bool: ...


class SessionSwitch(Protocol):
    """Opening, leaving and showing stored sessions."""

    @property
    def turn_running(self) -> bool: ...

    def view(self, shown: int = ...) -> dict[str, Any]: ...

    async def switch(self, session_id: str | None, *, create: bool = False) -> dict[str, Any]: ...

    async def leave(self) -> None: ...


class ModelSource(Protocol):
    """The provider for listing models, and where the listed context lengths go."""

    def provider(self, override: ProviderEndpoint | None = None) -> Provider: ...

    def page_origin(self) -> str | None: ...

    def remember_models(self, models: list[ModelInfo]) -> bool:
        """Keep what the list says; True when the stored windows changed (then the state is saved)."""
        ...


class ToolCatalog(Protocol):
    def catalog(self) -> list[ToolInfo]: ...


class ContextMeasure(Protocol):
    """How full the model's context is (``context_usage``)."""

    async def usage(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Ports:
    state: StoredState
    sessions: SessionSwitch
    models: ModelSource
    tools: ToolCatalog
    workspace: Path
    on_demand: OnDemand  # lists the workspace's folders from the host's storage before a handler reads them
    context: ContextMeasure | None = None


Handler = Callable[[Ports, dict[str, Any]], Awaitable[Any]]
