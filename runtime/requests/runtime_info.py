"""What the runtime tells about itself and its provider: ``ping`` (its version), ``list_models``
(the provider's models; their context lengths feed the token budget) and ``tools_list``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime import __version__
from runtime.providers.base import ProviderEndpoint

if TYPE_CHECKING:
    from runtime.requests.ports import Handler, Ports


async def ping(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    return {"pong": True, "version": __version__}


async def list_models(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    override = None
    p = params.get("provider")
    if isinstance(p, dict) and isinstance(p.get("kind"), str):
        origin = ports.models.page_origin()
        override = ProviderEndpoint(p["kind"], str(p.get("base_url") or ""), bool(p.get("has_key")), origin)
    models = await ports.models.provider(override).list_models()
    if override is None and ports.models.remember_models(models):
        await ports.state.save()  # the windows are kept: a reload shows them before the list is asked again
    return {"models": [m.as_dict() for m in models]}


async def tools_list(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    return {"tools": ports.tools.catalog()}


METHODS: dict[str, Handler] = {"ping": ping, "list_models": list_models, "tools_list": tools_list}
