"""``ping``, ``list_models`` (its context lengths feed the token budget) and ``tools_list``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime import __version__
from runtime.providers.base import ProviderSettings

if TYPE_CHECKING:
    from runtime.requests.dispatch import Handler
    from runtime.session import Session


async def ping(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    return {"pong": True, "version": __version__}


async def list_models(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    override = None
    p = params.get("provider")
    if isinstance(p, dict) and isinstance(p.get("kind"), str):
        origin = session.settings.provider.page_origin if session.settings.provider else None
        override = ProviderSettings(p["kind"], str(p.get("base_url") or ""), bool(p.get("has_key")), origin)
    models = await session.provider(override).list_models()
    if override is None:
        session.remember_models(models)
    return {"models": [m.as_dict() for m in models]}


async def tools_list(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    return {"tools": session.tools.catalog()}


METHODS: dict[str, Handler] = {"ping": ping, "list_models": list_models, "tools_list": tools_list}
