"""What request handlers may use of the conversation: narrow interfaces, one per concern.

Every handler gets a ``Ports`` and the request's ``params`` (its method's params ``TypedDict``, see
``runtime.requests.method``); the conversation fills ``Ports`` with its pieces (the stored state, the
session switcher, the provider cache, the tool registry).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypedDict

from runtime.host.events import ToolInfo
from runtime.host.workspace_fetch import OnDemand
from runtime.persist.display import SessionView
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

    def view(
        self, shown: int = ..., running: str | None = ..., before: int | None = ..., after: int | None = ...
    ) -> SessionView: ...

    async def switch(self, session_id: str | None, *, create: bool = False) -> SessionView: ...

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


class ContextUsage(TypedDict):
    """Tokens the next request would take, the window the turn budgets against, where compaction starts,
    and which prompt is in use (``compact``: the small-window prompt and tools)."""

    used: int
    limit: int
    compact_at: int
    prompt: Literal["compact", "full"]


class ContextMeasure(Protocol):
    """How full the model's context is (``context_usage``)."""

    async def usage(self) -> ContextUsage: ...


@dataclass(frozen=True)
class Ports:
    state: StoredState
    sessions: SessionSwitch
    models: ModelSource
    tools: ToolCatalog
    workspace: Path
    on_demand: OnDemand  # lists the workspace's folders from the host's storage before a handler reads them
    context: ContextMeasure | None = None
