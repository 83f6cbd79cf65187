"""Fit the model's view into its context window by cutting the middle of the longest messages.

Compaction summarizes older turns; the turns it keeps stay verbatim. When those alone are over the
window (an 8 MiB reply, a pasted book), the request would be refused, so the *view* is shortened
here — never the store: the session keeps every message whole. The longest texts (user, assistant,
tool result) are cut first, each to the same length, keeping their start and end around a marker that
says how much was cut; shorter messages stay whole. The newest user message is cut only when nothing
else is enough. Structure is untouched: every message stays, tool calls keep their ids and
arguments, results stay paired with their calls, ``reasoning_details`` go back as received.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from runtime.chat.history import estimate_tokens
from runtime.chat.messages import AssistantMessage, ChatMessage, ToolResultMessage, UserMessage

CHARS_PER_TOKEN = 4  # as ``estimate_tokens`` counts
MIN_KEPT_CHARS = 1_000  # of a cut message: its start and end, each half of it
MARKER = (
    "\n\n[… {cut:,} characters cut here to fit the model's context window; the full text stays in the session …]\n\n"
)
Cuttable = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True)
class Fitted:
    """The view to send; ``cut_chars`` were cut from ``cut_messages`` messages; ``tokens``: its estimate."""

    messages: list[ChatMessage]
    tokens: int
    cut_chars: int = 0
    cut_messages: int = 0

    def fits(self, limit_tokens: int) -> bool:
        return self.tokens <= limit_tokens


def fit_view(view: Sequence[ChatMessage], tools: Sequence[dict[str, Any]], limit_tokens: int) -> Fitted:
    """``view`` with its longest texts cut until the estimate is within ``limit_tokens``, if it can be.

    The result may still be over (``Fitted.fits``) when what cannot be cut — the system message, tool
    schemas, tool call arguments, images, ``MIN_KEPT_CHARS`` of each message — is too much.
    """
    whole = Fitted(list(view), estimate_tokens(view, tools))
    newest_user = max((i for i, m in enumerate(view) if isinstance(m, UserMessage)), default=-1)
    fitted = whole
    for spare_newest in (True, False):
        if fitted.fits(limit_tokens):
            break
        indices = [i for i, m in enumerate(view) if _cuttable(m) and not (spare_newest and i == newest_user)]
        fitted = _cut(whole, indices, tools, limit_tokens)
    return fitted


def _cuttable(message: ChatMessage) -> bool:
    return isinstance(message, (UserMessage, AssistantMessage, ToolResultMessage))


def _cut(whole: Fitted, indices: list[int], tools: Sequence[dict[str, Any]], limit_tokens: int) -> Fitted:
    """The messages at ``indices`` cut to one common length, the longest that brings the estimate within
    the limit (never below ``MIN_KEPT_CHARS``); cut again from the originals, deeper, if escaping in the
    wire form made a try fall short."""
    excess = (whole.tokens - limit_tokens) * CHARS_PER_TOKEN
    fitted = whole
    for _ in range(3):
        fitted = _cut_by(whole, indices, excess, tools)
        if fitted.fits(limit_tokens) or not fitted.cut_messages:
            break
        excess += (fitted.tokens - limit_tokens) * CHARS_PER_TOKEN
    return fitted


def _cut_by(whole: Fitted, indices: list[int], excess: int, tools: Sequence[dict[str, Any]]) -> Fitted:
    """At least ``excess`` characters cut (if ``MIN_KEPT_CHARS`` of each allow it), longest texts first."""
    lengths = {i: len(whole.messages[i].content) for i in indices}
    overhead = _marker_cost(max(lengths.values(), default=0))
    keep = _common_length(list(lengths.values()), excess, overhead)
    out = list(whole.messages)
    cut_chars = cut_messages = 0
    for i, length in lengths.items():
        if length - keep > overhead:
            out[i] = _shortened(_as_cuttable(out[i]), keep)
            cut_chars += length - keep
            cut_messages += 1
    if not cut_messages:
        return whole
    return Fitted(out, estimate_tokens(out, tools), cut_chars, cut_messages)


def _common_length(lengths: list[int], excess: int, overhead: int) -> int:
    """The longest length to cut every longer text to so that at least ``excess`` characters go, each
    cut costing ``overhead`` for its marker; ``MIN_KEPT_CHARS`` when even that is not enough."""

    def saved(keep: int) -> int:
        return sum(length - keep - overhead for length in lengths if length - keep > overhead)

    low, high = MIN_KEPT_CHARS, max(lengths, default=MIN_KEPT_CHARS)
    if saved(low) < excess:
        return low
    while low < high:  # saved() falls as keep grows: the largest keep that still saves enough
        middle = (low + high + 1) // 2
        if saved(middle) >= excess:
            low = middle
        else:
            high = middle - 1
    return low


def _marker_cost(longest: int) -> int:
    """What a marker adds to the request at most (its JSON-escaped length, the largest count)."""
    return len(json.dumps(MARKER.format(cut=longest), ensure_ascii=False))


def _as_cuttable(message: ChatMessage) -> Cuttable:
    assert isinstance(message, (UserMessage, AssistantMessage, ToolResultMessage))
    return message


def _shortened(message: Cuttable, keep: int) -> Cuttable:
    """The message with the middle of its text cut: the first and last ``keep / 2`` characters stay."""
    text = message.content
    head = keep // 2
    tail = keep - head
    marker = MARKER.format(cut=len(text) - keep)
    return replace(message, content=text[:head] + marker + (text[-tail:] if tail else ""))
