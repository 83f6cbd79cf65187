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
        indices = [i for i, m in enumerate(view) if isinstance(m, Cuttable) and not (spare_newest and i == newest_user)]
        fitted = _cut(whole, indices, tools, limit_tokens)
    return fitted


def _cut(whole: Fitted, indices: list[int], tools: Sequence[dict[str, Any]], limit_tokens: int) -> Fitted:
    """The messages at ``indices`` longer than the longest length that fits, cut to that length (never
    below ``MIN_KEPT_CHARS``). Lengths are searched against each text's size on the wire (JSON escapes)."""
    texts = _Texts(whole, indices)
    longest = max(texts.lengths.values(), default=MIN_KEPT_CHARS)
    low, high = MIN_KEPT_CHARS, max(MIN_KEPT_CHARS, min(longest, limit_tokens * CHARS_PER_TOKEN))  # no text beyond it
    if texts.tokens(low) > limit_tokens:
        high = low  # cut as far as it goes; the caller sees it does not fit
    while low < high:  # the tokens grow with what is kept: the largest length that fits
        middle = (low + high + 1) // 2
        if texts.tokens(middle) <= limit_tokens:
            low = middle
        else:
            high = middle - 1
    cuts = texts.cuts(low)
    if not cuts:
        return whole
    out = [cuts.get(i, m) for i, m in enumerate(whole.messages)]
    cut_chars = sum(texts.lengths[i] - low for i in cuts)
    return Fitted(out, estimate_tokens(out, tools), cut_chars, len(cuts))


class _Texts:
    """The cuttable texts of a view: their lengths, their size on the wire, and the view's estimate with
    them cut to a length (from the whole view's, without serializing it again)."""

    def __init__(self, whole: Fitted, indices: list[int]) -> None:
        self.whole = whole
        self.messages = {i: m for i in indices if isinstance(m := whole.messages[i], Cuttable)}
        self.lengths = {i: len(m.content) for i, m in self.messages.items()}
        self.wire = {i: _wire(m.content) for i, m in self.messages.items()}

    def cuts(self, keep: int) -> dict[int, Cuttable]:
        """The messages that get shorter on the wire when cut to ``keep`` characters, cut."""
        out: dict[int, Cuttable] = {}
        for i, message in self.messages.items():
            if self.lengths[i] > keep:
                cut = _shortened(message, keep)
                if _wire(cut.content) < self.wire[i]:
                    out[i] = cut
        return out

    def tokens(self, keep: int) -> int:
        """At least the view's estimate with the texts cut to ``keep`` (floor(a - b) <= floor(a) - floor(b))."""
        saved = sum(self.wire[i] - _wire(m.content) for i, m in self.cuts(keep).items())
        return self.whole.tokens - saved // CHARS_PER_TOKEN


def _wire(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False))


def _shortened(message: Cuttable, keep: int) -> Cuttable:
    """The message with the middle of its text cut: the first and last ``keep / 2`` characters stay."""
    text = message.content
    head = keep // 2
    tail = keep - head
    marker = MARKER.format(cut=len(text) - keep)
    return replace(message, content=text[:head] + marker + (text[-tail:] if tail else ""))
