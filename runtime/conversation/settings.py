"""The conversation's settings (never secrets), how a host ``config`` message changes them, and the
permission gate that follows the chosen mode."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from runtime.agent.gate import Gate
from runtime.host.messages import Config
from runtime.providers.base import ProviderEndpoint

log = logging.getLogger(__name__)

GateFactory = Callable[[str], Gate]


@dataclass(frozen=True)
class Settings:
    provider: ProviderEndpoint | None = None
    model: str | None = None
    permission_mode: str = "ask"
    context_length: int | None = None
    replaying: bool = False  # the model's answers come from a recording (``config.replay``)


@dataclass(frozen=True)
class SettingsChange:
    settings: Settings
    provider_changed: bool  # the provider client must be made anew
    mode_changed: bool  # the permission gate must hear of it


def apply_config(settings: Settings, message: Config) -> SettingsChange:
    """The settings after a (possibly partial) ``config`` message."""
    provider_changed = False
    if "provider" in message:
        p = message["provider"]
        settings = replace(settings, provider=ProviderEndpoint(p["kind"], p["base_url"], p["has_key"]))
        provider_changed = True
    if "page_origin" in message and settings.provider:
        settings = replace(settings, provider=replace(settings.provider, page_origin=message["page_origin"]))
        provider_changed = True
    if "reasoning" in message and settings.provider and message["reasoning"] != settings.provider.reasoning:
        settings = replace(settings, provider=replace(settings.provider, reasoning=message["reasoning"]))
        provider_changed = True
    if "model" in message:
        settings = replace(settings, model=message["model"])
    if "context_length" in message:
        settings = replace(settings, context_length=message["context_length"])
        if settings.provider and settings.provider.context_length != message["context_length"]:
            settings = replace(settings, provider=replace(settings.provider, context_length=message["context_length"]))
            provider_changed = True
    if "max_output" in message and settings.provider and settings.provider.max_output != message["max_output"]:
        settings = replace(settings, provider=replace(settings.provider, max_output=message["max_output"]))
        provider_changed = True
    if "replay" in message:
        settings = replace(settings, replaying=message["replay"] is True)
    mode_changed = "permission_mode" in message and message["permission_mode"] != settings.permission_mode
    if mode_changed:
        settings = replace(settings, permission_mode=message["permission_mode"])
    return SettingsChange(settings, provider_changed, mode_changed)


class Configuration:
    """The current settings and permission gate; ``apply`` takes each ``config`` message."""

    def __init__(self, gate_factory: GateFactory) -> None:
        self.settings = Settings()
        self._gate_factory = gate_factory
        self.gate = gate_factory("ask")

    def apply(self, message: Config) -> SettingsChange:
        change = apply_config(self.settings, message)
        settings = change.settings
        if change.mode_changed:
            set_mode = getattr(self.gate, "set_mode", None)
            if callable(set_mode):
                set_mode(settings.permission_mode)
            else:
                self.gate = self._gate_factory(settings.permission_mode)
        self.gate.set_replaying(settings.replaying)
        self.settings = settings
        log.info(
            "settings: provider=%s model=%s mode=%s%s",
            settings.provider.kind if settings.provider else None,
            settings.model,
            settings.permission_mode,
            " (replaying a recording)" if settings.replaying else "",
        )
        return change
