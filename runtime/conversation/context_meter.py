"""How full the model's context is, measured the way compaction measures it (``context_usage``).

``used`` is the estimate of the next request's size (system prompt, tool list and the current session
as the model sees it, summaries in place of what they cover); ``limit`` is the context window the turn
budgets against (``ProviderCache.context_tokens``: the configured ``context_length``, else the model's
from the provider's model list); older turns are summarized once a request would pass ``compact_at``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.agent.context import TRIGGER
from runtime.chat.history import estimate_tokens, model_view
from runtime.host.workspace_fetch import on_demand
from runtime.persist.state import State
from runtime.prompts.render import MAX_MAP_DEPTH, MAX_MAP_ENTRIES
from runtime.tools.registry import Registry


class ContextMeter:
    def __init__(
        self,
        state: State,
        system_prompt: Callable[[], str],
        context_tokens: Callable[[], int],
        tools: Registry,
        workspace: Path,
    ) -> None:
        self._state = state
        self._system_prompt = system_prompt
        self._context_tokens = context_tokens
        self._tools = tools
        self._workspace = workspace

    async def usage(self) -> dict[str, Any]:
        await self._state.store()
        await on_demand(self._workspace).for_prompt(MAX_MAP_DEPTH, MAX_MAP_ENTRIES)
        journal = self._state.journal
        view = model_view(self._system_prompt(), journal.context() if journal is not None else [])
        used = estimate_tokens(view, self._tools.openai_tools(self._workspace))
        limit = self._context_tokens()
        return {"used": used, "limit": limit, "compact_at": int(TRIGGER * limit)}
