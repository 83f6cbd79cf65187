"""Explicit wiring: ``boot(config, transport)`` builds a Session; nothing happens at import time."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runtime.agent.gate import Gate
from runtime.host.log_frames import FrameLogHandler
from runtime.host.transport import Transport
from runtime.policy.hooks import Hooks, default_hooks
from runtime.providers.registry import ProviderRegistry, builtin_providers
from runtime.session import Session
from runtime.tools.registry import Registry, builtin_registry


def default_gate(mode: str) -> Gate:
    from runtime.policy.permissions import Policy

    return Policy(mode)  # type: ignore[arg-type]


@dataclass(frozen=True)
class BootConfig:
    workspace: Path = Path("/workspace")
    max_rounds: int = 12
    tools: Callable[[], Registry] = builtin_registry
    providers: Callable[[], ProviderRegistry] = builtin_providers
    gate: Callable[[str], Gate] = default_gate
    hooks: Callable[[], Hooks] = default_hooks
    log_level: int = logging.INFO


def boot(config: BootConfig, transport: Transport) -> Session:
    """Build the session for ``transport``; ``await session.run()`` runs it until the host goes away."""
    handler = FrameLogHandler(transport, config.log_level)
    root = logging.getLogger("runtime")
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > config.log_level:
        root.setLevel(config.log_level)
    session = Session(
        transport,
        workspace=config.workspace,
        tools=config.tools(),
        providers=config.providers(),
        gate_factory=config.gate,
        max_rounds=config.max_rounds,
        hooks=config.hooks(),
    )
    session.on_close.append(lambda: root.removeHandler(handler))
    return session
