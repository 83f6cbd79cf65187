"""What the runtime learned about each provider's models from their listings (for this page's life).

A provider object is made anew when the settings change, and the model list may be asked of a
provider made just for that request; what the listing said (reasoning, tools, context) is kept here,
by base URL and model id, so whichever provider object streams the next turn knows it.
"""

from __future__ import annotations

from runtime.providers.base import ModelInfo

_KNOWN: dict[tuple[str, str], ModelInfo] = {}


def remember(base_url: str, models: list[ModelInfo]) -> None:
    for model in models:
        _KNOWN[(base_url, model.id)] = model


def lookup(base_url: str, model_id: str) -> ModelInfo | None:
    return _KNOWN.get((base_url, model_id))


def forget_all() -> None:
    _KNOWN.clear()
