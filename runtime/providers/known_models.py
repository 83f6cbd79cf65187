"""What the runtime learned about each provider's models (for this page's life): the listings, the windows
servers named when they refused a request, and which server software listed them.

A provider object is made anew when the settings change, and the model list may be asked of a
provider made just for that request; what the listing said (reasoning, tools, context) is kept here,
by base URL and model id, so whichever provider object streams the next turn knows it.
"""

from __future__ import annotations

from runtime.providers.base import ModelInfo

_KNOWN: dict[tuple[str, str], ModelInfo] = {}
_LEARNED: dict[tuple[str, str], int] = {}  # windows a server named when it refused a request (its n_ctx)
_OWNERS: dict[str, str] = {}  # base URL -> the one owner its listing named ("llamacpp", "me": llama-cpp-python)


def remember(base_url: str, models: list[ModelInfo]) -> None:
    for model in models:
        _KNOWN[(base_url, model.id)] = model


def lookup(base_url: str, model_id: str) -> ModelInfo | None:
    return _KNOWN.get((base_url, model_id))


def learn_window(base_url: str, model_id: str, context_length: int) -> None:
    """The server said (refusing a request) which window it runs this model with."""
    _LEARNED[(base_url.rstrip("/"), model_id)] = context_length


def learned_window(base_url: str, model_id: str) -> int | None:
    return _LEARNED.get((base_url.rstrip("/"), model_id))


def window(base_url: str, model_id: str) -> int | None:
    """The window the server named last, else the one its listing said (None: not known)."""
    known = _KNOWN.get((base_url, model_id))
    return learned_window(base_url, model_id) or (known.context_length if known else None)


def remember_owner(base_url: str, owner: str) -> None:
    _OWNERS[base_url] = owner


def owner(base_url: str) -> str | None:
    """Which server software listed the models at ``base_url`` (its ``owned_by``), when it named one."""
    return _OWNERS.get(base_url)


def forget_all() -> None:
    _KNOWN.clear()
    _LEARNED.clear()
    _OWNERS.clear()
