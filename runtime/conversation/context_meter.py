"""How full the model's context is, measured the way compaction measures it (``context_usage``).

``used`` is the estimate of the next request's size (system prompt, tool list — the compact ones for a
small window, ``runtime.prompts.fit`` — and the current session as the model sees it, summaries in
place of what they cover); ``limit`` is the context window the turn
budgets against (``ProviderCache.context_tokens``: the configured ``context_length``, else the model's
from the provider's model list); older turns are summarized once a request would pass ``compact_at``.

The count comes from the request prepared before Send when there is one (its view is what the turn
sends); else the stored context is read a batch at a time and counted as it goes (``streamed_tokens``),
so the gauge of a session far over the window holds no more of it than a batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from runtime.agent.context import TRIGGER, Ready
from runtime.chat.history import TokenCount, conversation, estimate_tokens, system_text
from runtime.chat.messages import SystemMessage, UserMessage
from runtime.host.workspace_fetch import OnDemand
from runtime.persist.state import State
from runtime.prompts.fit import PromptPlan
from runtime.prompts.workspace_map import Listing, listed_map
from runtime.requests.ports import ContextUsage
from runtime.store.values import StoredMessage


class Streamed(Protocol):
    def context_stream(self) -> Iterator[StoredMessage]: ...


def streamed_tokens(journal: Streamed | None, system_prompt: str, tools: Sequence[dict[str, Any]]) -> int:
    """``estimate_tokens(model_view(system_prompt, journal.context()), tools)``, the context read and counted
    a batch at a time (its images counted, not read) and nothing of it kept."""
    count = TokenCount()
    extra: list[str] = []
    stored = journal.context_stream() if journal is not None else iter(())
    for message, chat in conversation(stored, extra):
        images = len(message.images) if message is not None and isinstance(chat, UserMessage) else None
        count.add(chat, images, keep=False)
    system = system_text(system_prompt, extra)
    if system:
        count.add(SystemMessage(system))
    return count.tokens(tools)


class ContextMeter:
    def __init__(
        self,
        state: State,
        plan: Callable[[Listing | None], PromptPlan],
        workspace: Path,
        on_demand: OnDemand,
        prepared: Callable[[], Ready | None] = lambda: None,
    ) -> None:
        self._state = state
        self._on_demand = on_demand
        self._plan = plan  # the next turn's system prompt and tools, planned against the window (given the map)
        self._prepared = prepared  # the next turn's request, prepared and current (None: none is)
        self._workspace = workspace

    async def usage(self) -> ContextUsage:
        """``used``, ``limit``, ``compact_at`` (tokens) and ``prompt``: "compact" when the small-window
        prompt and tools are in use, else "full"."""
        await self._state.store()
        ready = self._prepared()
        listed = None
        if ready is None:  # a current prepared request was built with what its prompt reads listed
            listed = await listed_map(self._workspace, self._on_demand.for_prompt)
        plan = self._plan(listed)
        tools = plan.tools.openai_tools(self._workspace)
        if ready is not None and ready.system_prompt == plan.text:
            used = estimate_tokens(ready.view, tools)
        else:
            used = streamed_tokens(self._state.journal, plan.text, tools)
        limit = plan.window
        compact_at = int(TRIGGER * limit)
        return {"used": used, "limit": limit, "compact_at": compact_at, "prompt": "compact" if plan.compact else "full"}
