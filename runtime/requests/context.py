"""``context_usage``: how full the model's context is (see ``runtime.conversation.context_meter``)."""

from runtime.requests.method import Method, NoParams, Table
from runtime.requests.params import RequestError
from runtime.requests.ports import ContextUsage, Ports


async def context_usage(ports: Ports, params: NoParams) -> ContextUsage:
    if ports.context is None:
        raise RequestError("unknown_method", "this runtime does not measure its context")
    return await ports.context.usage()


METHODS: Table = {"context_usage": Method(NoParams, ContextUsage, context_usage)}
