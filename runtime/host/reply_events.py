"""UI events about how a model's reply unfolds beyond its text: its reasoning, and a notable ending.

Part of the ``Event`` union in ``runtime.host.messages`` (docs/protocol.md, "UI events").
"""

from typing import Literal, TypedDict


class ReasoningDelta(TypedDict):
    """A piece of the model's reasoning for the reply that follows (shown folded once the reply starts)."""

    kind: Literal["reasoning_delta"]
    turn_id: str
    text: str


class ReplyFinished(TypedDict):
    """A reply ended for a reason the person should see: ``length`` (cut off) or ``content_filter``."""

    kind: Literal["reply_finished"]
    turn_id: str
    finish_reason: str
