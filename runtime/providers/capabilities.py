"""What a model can do decides what it is offered: a model that cannot call tools gets none (the
provider would refuse the request), and the chat says so once per model."""

from __future__ import annotations

from typing import Any

from runtime.providers.base import ModelInfo, ProviderNotice


class ToolOffer:
    """Per provider object: the tools each request may carry, and the one notice per model without them."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def tools_for(
        self, model: str, known: ModelInfo | None, tools: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], ProviderNotice | None]:
        if not tools or known is None or known.tools is not False:
            return tools, None
        if model in self._told:
            return [], None
        self._told.add(model)
        return [], ProviderNotice(
            "no_tools",
            f"{model} cannot use tools, so it answers from the conversation alone: it cannot read or write "
            "files, run code or fetch pages. Choose a model with the “tools” badge for that.",
        )
