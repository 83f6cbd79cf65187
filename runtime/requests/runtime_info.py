"""What the runtime tells about itself and its provider: ``ping`` (its version), ``list_models``
(the provider's models; their context lengths feed the token budget) and ``tools_list``."""

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, cast

from runtime import __version__
from runtime.host.events import ToolInfo
from runtime.host.messages import ProviderSettings
from runtime.providers.base import ProviderEndpoint
from runtime.requests.method import Method, NoParams, Table

if TYPE_CHECKING:
    from runtime.requests.ports import Ports


class Pong(TypedDict):
    pong: Literal[True]
    version: str


class ModelsParams(TypedDict):
    provider: NotRequired[ProviderSettings]  # list for settings not saved yet


class ModelRecord(TypedDict):
    """One model (prices per token in USD; ``tools``, ``reasoning``, ``vision``: null when not known)."""

    id: str
    name: str
    context_length: int | None
    prompt_price: float | None
    completion_price: float | None
    tools: bool | None
    reasoning: bool | None
    vision: bool | None


class Models(TypedDict):
    models: list[ModelRecord]


class Tools(TypedDict):
    tools: list[ToolInfo]


async def ping(ports: "Ports", params: NoParams) -> Pong:
    return {"pong": True, "version": __version__}


async def list_models(ports: "Ports", params: ModelsParams) -> Models:
    override = None
    p = params.get("provider")
    if p is not None:
        origin = ports.models.page_origin()
        override = ProviderEndpoint(p["kind"], p["base_url"], p["has_key"], origin)
    models = await ports.models.provider(override).list_models()
    if override is None and ports.models.remember_models(models):
        await ports.state.save()  # the windows are kept: a reload shows them before the list is asked again
    return {"models": [cast(ModelRecord, m.as_dict()) for m in models]}


async def tools_list(ports: "Ports", params: NoParams) -> Tools:
    return {"tools": ports.tools.catalog()}


METHODS: Table = {
    "ping": Method(NoParams, Pong, ping),
    "list_models": Method(ModelsParams, Models, list_models),
    "tools_list": Method(NoParams, Tools, tools_list),
}
