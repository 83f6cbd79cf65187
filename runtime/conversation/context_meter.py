"""How full the model's context is, measured the way compaction measures it (``context_usage``).

``used`` is the estimate of the next request's size (system prompt, tool list — the compact ones for a
small window, ``runtime.prompts.fit`` — and the current session as the model sees it, summaries in
place of what they cover); ``limit`` is the context window the turn
budgets against (``ProviderCache.context_tokens``: the configured ``context_length``, else the model's
from the provider's model list); older turns are summarized once a request would pass ``compact_at``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from runtime.agent.context import TRIGGER
from runtime.chat.history import estimate_tokens, model_view
from runtime.host.workspace_fetch import OnDemand
from runtime.persist.state import State
from runtime.prompts.fit import PromptPlan
from runtime.prompts.render import MAX_MAP_DEPTH, MAX_MAP_ENTRIES
from runtime.requests.ports import ContextUsage


class ContextMeter:
    def __init__(self, state: State, plan: Callable[[], PromptPlan], workspace: Path, on_demand: OnDemand) -> None:
        self._state = state
        self._on_demand = on_demand
        self._plan = plan  # the next turn's system prompt and tools, planned against the window
        self._workspace = workspace

    async def usage(self) -> ContextUsage:
        """``used``, ``limit``, ``compact_at`` (tokens) and ``prompt``: "compact" when the small-window
        prompt and tools are in use, else "full"."""
        await self._state.store()
        await self._on_demand.for_prompt(MAX_MAP_DEPTH, MAX_MAP_ENTRIES)
        journal = self._state.journal
        plan = self._plan()
        view = model_view(plan.text, journal.context() if journal is not None else [])
        used = estimate_tokens(view, plan.tools.openai_tools(self._workspace))
        limit = plan.window
        compact_at = int(TRIGGER * limit)
        return {"used": used, "limit": limit, "compact_at": compact_at, "prompt": "compact" if plan.compact else "full"}
