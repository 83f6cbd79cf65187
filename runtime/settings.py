"""The session's settings (never secrets) and how a host ``config`` message changes them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from runtime.host.messages import Config
from runtime.providers.base import ProviderSettings


@dataclass(frozen=True)
class Settings:
    provider: ProviderSettings | None = None
    model: str | None = None
    permission_mode: str = "ask"
    context_length: int | None = None


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
        settings = replace(settings, provider=ProviderSettings(p["kind"], p["base_url"], p["has_key"]))
        provider_changed = True
    if "page_origin" in message and settings.provider:
        settings = replace(settings, provider=replace(settings.provider, page_origin=message["page_origin"]))
        provider_changed = True
    if "model" in message:
        settings = replace(settings, model=message["model"])
    if "context_length" in message:
        settings = replace(settings, context_length=message["context_length"])
    mode_changed = "permission_mode" in message and message["permission_mode"] != settings.permission_mode
    if mode_changed:
        settings = replace(settings, permission_mode=message["permission_mode"])
    return SettingsChange(settings, provider_changed, mode_changed)
