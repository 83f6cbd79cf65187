"""Which older turns to summarize when a conversation outgrows its token budget.

Pure selection: the agent loop makes the summarizing call and stores the result with
``Store.save_summary`` (a message of kind ``summary``; the originals stay in the store), and
``Store.context_messages`` then gives the model the summary in place of what it covers.

Never compacted away: the latest ``keep_last_turns`` turns, system messages, and activated skill
bodies (``role="tool"`` results of ``activate_skill``). A kept skill body whose assistant call was
summarized must be rendered by the caller as plain context, not as a dangling tool result.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4
SKILL_TOOL = "activate_skill"


class Compactable(Protocol):
    """What selection reads from a message; ``StoredMessage`` and the loop's messages both fit."""

    @property
    def role(self) -> str: ...

    @property
    def content(self) -> Any: ...

    @property
    def turn_id(self) -> str | None: ...


M = TypeVar("M", bound=Compactable)


def estimate_tokens(message: Compactable) -> int:
    """About 4 characters per token, over the content and any tool calls, plus a little overhead."""
    content = message.content
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    calls = getattr(message, "tool_calls", None)
    if calls:
        text += json.dumps(list(calls), ensure_ascii=False)
    return MESSAGE_OVERHEAD_TOKENS + math.ceil(len(text) / CHARS_PER_TOKEN)


# ``never_compacted`` as a condition on stored rows; the partial index ``messages_kept`` (migration
# 0006, the same text) answers it without reading the summarized rows.
KEPT_ROWS = f"kind = 'message' AND (role = 'system' OR (role = 'tool' AND name = '{SKILL_TOOL}'))"


def never_compacted(message: Compactable) -> bool:
    """System messages and activated skill bodies stay verbatim whatever the budget."""
    if getattr(message, "kind", "message") == "summary":
        return False
    if message.role == "system":
        return True
    return message.role == "tool" and getattr(message, "name", None) == SKILL_TOOL


@dataclass(frozen=True)
class CompactionPlan(Generic[M]):
    """``summarize``: oldest first, what to hand to the summarizer. ``keep``: everything else, in order.

    ``tokens_after`` counts ``keep`` plus the reserve for the summary; ``fits`` says whether that is
    within the budget (it may not be when the latest turns alone are too big).
    """

    summarize: tuple[M, ...]
    keep: tuple[M, ...]
    tokens_before: int
    tokens_after: int
    budget: int
    fits: bool

    @property
    def needed(self) -> bool:
        return bool(self.summarize)

    @property
    def covers_to(self) -> M | None:
        """The last summarized message: its ``seq`` is what ``save_summary`` records."""
        return self.summarize[-1] if self.summarize else None


def group_turns(messages: Sequence[M]) -> list[list[int]]:
    """Indices of consecutive messages sharing a ``turn_id``; a message without one is its own group."""
    groups: list[list[int]] = []
    last_turn: str | None = None
    for index, message in enumerate(messages):
        turn = message.turn_id
        if groups and turn is not None and turn == last_turn:
            groups[-1].append(index)
        else:
            groups.append([index])
        last_turn = turn
    return groups


def select_for_compaction(
    messages: Sequence[M],
    budget_tokens: int,
    *,
    keep_last_turns: int = 2,
    summary_reserve: int | None = None,
    protected: Callable[[M], bool] = never_compacted,
    estimate: Callable[[M], int] = estimate_tokens,
) -> CompactionPlan[M]:
    """Choose the oldest turns to summarize until the rest (plus room for the summary) fits."""
    costs = [estimate(m) for m in messages]
    total = sum(costs)
    reserve = min(512, budget_tokens // 8) if summary_reserve is None else summary_reserve
    if total <= budget_tokens:
        return CompactionPlan((), tuple(messages), total, total, budget_tokens, True)
    groups = group_turns(messages)
    # Only groups that belong to a turn count as turns to keep; system notes between them do not.
    turn_groups = [g for g in groups if messages[g[0]].turn_id is not None]
    latest = {i for g in turn_groups[-max(1, keep_last_turns) :] for i in g}
    chosen: set[int] = set()
    remaining = total
    for group in groups:
        if remaining + reserve <= budget_tokens:
            break
        if group[0] in latest:
            break
        for index in group:
            if not protected(messages[index]):
                chosen.add(index)
                remaining -= costs[index]
    if not chosen:
        return CompactionPlan((), tuple(messages), total, total, budget_tokens, False)
    summarize = tuple(m for i, m in enumerate(messages) if i in chosen)
    keep = tuple(m for i, m in enumerate(messages) if i not in chosen)
    after = remaining + reserve
    return CompactionPlan(summarize, keep, total, after, budget_tokens, after <= budget_tokens)
