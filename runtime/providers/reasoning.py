"""Reasoning: the request option, and the provider's reasoning blocks put together from a stream.

OpenRouter streams reasoning two ways at once: ``delta.reasoning`` (readable text, for people) and
``delta.reasoning_details`` (structured blocks: ``reasoning.text`` with an optional ``signature``,
``reasoning.summary``, ``reasoning.encrypted`` with ``data``; each with ``type``, ``index``,
``format`` and maybe ``id``). The blocks arrive in pieces; pieces with the same ``index`` belong to
one block: their text-like fields (``text``, ``summary``, ``data``, ``signature``) are concatenated
in order, any other field keeps its first value. The result is kept exactly so and sent back with
the assistant message on every later request ("preserving reasoning blocks"): reasoning models
that call tools refuse the next round without it.
"""

from __future__ import annotations

from typing import Any, get_args

from runtime.host.constants import ReasoningEffort

EFFORTS = tuple(e for e in get_args(ReasoningEffort) if e != "auto")
DEFAULT_EFFORT: ReasoningEffort = "medium"  # what "auto" asks of a model that reasons
_JOINED = ("text", "summary", "data", "signature")


def reasoning_option(setting: ReasoningEffort, supports: bool | None) -> dict[str, Any] | None:
    """The request's ``reasoning`` object for a setting and a model, or ``None`` to send none.

    ``auto`` asks a model that lists ``reasoning`` among its supported parameters for medium effort
    and leaves other models alone; ``off`` asks for none (``effort: "none"``) where the model
    reasons; an explicit effort is sent to models that reason or whose support is unknown.
    """
    if supports is False:
        return None
    if setting == "off":
        return {"effort": "none"} if supports else None
    if setting in EFFORTS:
        return {"effort": setting}
    return {"effort": DEFAULT_EFFORT} if supports else None


class DetailsMerger:
    """Pieces of ``reasoning_details`` in, whole blocks (in ``index`` order) out."""

    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, Any]] = {}

    def add(self, pieces: object) -> None:
        if not isinstance(pieces, list):
            return
        for piece in pieces:
            if not isinstance(piece, dict):
                continue
            index = piece.get("index")
            key = index if isinstance(index, int) and not isinstance(index, bool) else len(self._blocks)
            block = self._blocks.get(key)
            if block is None:
                self._blocks[key] = dict(piece)
                continue
            for name, value in piece.items():
                if name in _JOINED and isinstance(value, str) and isinstance(block.get(name), str):
                    block[name] += value
                elif block.get(name) is None:
                    block[name] = value

    def blocks(self) -> tuple[dict[str, Any], ...]:
        return tuple(self._blocks[k] for k in sorted(self._blocks))
