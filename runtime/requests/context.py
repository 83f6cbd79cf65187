"""``context_usage``: how full the model's context is (see ``runtime.conversation.context_meter``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime.requests.params import RequestError

if TYPE_CHECKING:
    from runtime.requests.ports import Handler, Ports


async def context_usage(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    if ports.context is None:
        raise RequestError("unknown_method", "this runtime does not measure its context")
    return await ports.context.usage()


METHODS: dict[str, Handler] = {"context_usage": context_usage}
