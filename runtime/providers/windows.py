"""The context window an OpenAI-compatible server says it runs with, from whichever shape it uses.

- llama.cpp's ``llama-server``: ``/v1/models`` ``data[].meta.n_ctx`` (the window in use; older builds
  give only ``n_ctx_train``, the model's maximum) and ``GET /props``
  ``default_generation_settings.n_ctx``; a refused request's 400 body carries ``n_ctx`` too;
- LM Studio: ``loaded_context_length`` (in use) before ``max_context_length`` (the model's maximum);
- vLLM: ``max_model_len``;
- OpenRouter-style listings and LiteLLM: ``context_length``.

What is in use wins over the model's maximum: compaction must start before the server refuses.
"""

from __future__ import annotations

import json
from typing import Any

# In order of preference: what the server runs with, then what the model could take.
_IN_USE = ("loaded_context_length", "max_model_len", "context_length", "n_ctx")
_MAXIMUM = ("max_context_length", "n_ctx_train")


def _positive(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if value > 0 else None


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        found = _positive(obj.get(key))
        if found is not None:
            return found
    return None


def listed_window(item: dict[str, Any]) -> int | None:
    """The window one ``/v1/models`` entry says (its own fields first, then llama-server's ``meta``)."""
    found = item.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    return _first(item, _IN_USE) or _first(meta, _IN_USE) or _first(item, _MAXIMUM) or _first(meta, _MAXIMUM)


def props_window(props: Any) -> int | None:
    """llama-server's ``GET /props``: ``default_generation_settings.n_ctx`` (or a top-level ``n_ctx``)."""
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    from_settings = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    return from_settings or _positive(props.get("n_ctx"))


def refusal_window(body: bytes | str) -> int | None:
    """The window a refused request's body names: llama-server's 400 ``{"error": {"n_ctx": 4096, ...}}``."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return None
    err = data.get("error", data) if isinstance(data, dict) else None
    return _positive(err.get("n_ctx")) if isinstance(err, dict) else None
