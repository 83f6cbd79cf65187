"""Explicit wiring: ``boot(config, transport)`` builds a Conversation; nothing happens at import time."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from runtime.agent.gate import Gate
from runtime.conversation.conversation import Conversation
from runtime.host.log_frames import FrameLogHandler
from runtime.host.transport import Transport
from runtime.policy.hooks import Hooks, default_hooks
from runtime.providers.registry import ProviderRegistry, builtin_providers
from runtime.tools.registry import Registry, builtin_registry


def default_gate(mode: str, workspace: Path | None = None) -> Gate:
    """The permission policy in ``mode``; path arguments resolve in ``workspace`` (links are followed)."""
    from runtime.policy.permissions import Policy

    return Policy(mode, workspace=workspace)  # type: ignore[arg-type]


@dataclass(frozen=True)
class BootConfig:
    workspace: Path = Path("/workspace")
    max_rounds: int = 12
    tools: Callable[[], Registry] = builtin_registry
    providers: Callable[[], ProviderRegistry] = builtin_providers
    gate: Callable[[str], Gate] | None = None  # None: ``default_gate`` in ``workspace``
    hooks: Callable[[], Hooks] = default_hooks
    log_level: int = logging.INFO
    # Where the state database lives (see runtime.persist.statefiles); None keeps it in memory only.
    state_dir: Path | None = field(default_factory=lambda: default_state_dir())
    session_id: str | None = None  # the stored session to open; None: the latest


def default_state_dir() -> Path | None:
    """``/state`` in Pyodide (the adapter fills it from OPFS before start); in memory under CPython."""
    return Path("/state") if sys.platform == "emscripten" else None


def boot(config: BootConfig, transport: Transport) -> Conversation:
    """Build the conversation for ``transport``; ``await conversation.run()`` runs it until the host goes away."""
    handler = FrameLogHandler(transport, config.log_level)
    root = logging.getLogger("runtime")
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > config.log_level:
        root.setLevel(config.log_level)
    conversation = Conversation(
        transport,
        workspace=config.workspace,
        tools=config.tools(),
        providers=config.providers(),
        gate_factory=config.gate or (lambda mode: default_gate(mode, config.workspace)),
        max_rounds=config.max_rounds,
        hooks=config.hooks(),
        state_dir=config.state_dir,
        session_id=config.session_id,
    )
    conversation.on_close.append(lambda: root.removeHandler(handler))
    return conversation
