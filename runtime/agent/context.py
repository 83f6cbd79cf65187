"""The model's context: a token budget from the model's context length, and compaction.

Before each request the loop asks ``ContextWindow.messages``: the stored conversation (with any
summary in place of what it covers), as the model sees it. When that would take more than
``TRIGGER`` of the model's context length, the older turns chosen by
``runtime.store.compaction.select_for_compaction`` are summarized by the model itself (one
non-streamed-to-the-UI request, its text collected), the summary is stored (the originals stay in
the store) and the compacted view is sent. The latest turns and activated skill bodies stay verbatim.

A request whose system prompt and tools alone take more than ``PROMPT_MAX_SHARE`` of the window (even
the compact ones, ``runtime.prompts.fit``) is refused before it is sent, with advice on giving the model a
larger window. A request never goes out over ``TRIGGER`` of the window when the runtime can tell: if the two latest
turns alone are too big, compaction may keep only the current turn, and if that is still too much the
longest messages of the view are cut in the middle (``runtime.agent.fit_window``; the store keeps them
whole). A ``notice`` tells the person about either, once a turn.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.agent.fit_window import fit_view
from runtime.agent.images import fit_images
from runtime.agent.journal import Journal
from runtime.agent.tool_images import show_tool_images
from runtime.chat.history import estimate_tokens, model_view
from runtime.chat.messages import ChatMessage, SystemMessage, ToolResultMessage, UserMessage
from runtime.errors import ProviderError
from runtime.host.messages import Event
from runtime.host.workspace_fetch import OnDemand
from runtime.prompts.fit import PROMPT_MAX_SHARE, too_small_advice
from runtime.providers.base import Finished, Provider, TextDelta
from runtime.store.compaction import select_for_compaction
from runtime.store.export import content_text
from runtime.store.values import StoredMessage

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_TOKENS = 32_768
TRIGGER = 0.8  # compact when a request would take more than this share of the context window (the rest: the reply)
TARGET = 0.5  # ... down to about this share
SUMMARY_SHARE = 0.2  # of the context window, at most, for the summary the model wrote
MAX_QUOTED_CHARS = 4_000  # of one message, in what the summarizer reads
SUMMARY_PROMPT = (
    "You summarize conversations between a user and an AI agent so the agent can continue the work "
    "without the original messages. Write a concise summary of the conversation so far: the user's goals "
    "and preferences, decisions made, facts learned, files read or changed, tool results that still "
    "matter, and open questions or next steps. Use short bullet points. Do not invent anything."
)

Emit = Callable[[Event], None]


@dataclass(frozen=True)
class Pending:
    """The user's new message, not stored yet (time to first token): it goes last in the request.
    ``store`` stores it now (once); a request that needs compacting does, since compaction works on what
    is stored."""

    message: UserMessage
    store: Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class Ready:
    """A request's parts built before Send (``runtime.conversation.prepared``): the system prompt, the tool
    schemas, the session's stored messages and the model's view of them, as this module would build them."""

    system_prompt: str
    tools: list[dict[str, Any]]
    stored: list[StoredMessage]
    view: list[ChatMessage]


@dataclass(frozen=True)
class ContextWindow:
    provider: Provider
    model: str
    context_tokens: int
    journal: Journal
    emit: Emit
    vision: bool | None = None  # whether the model takes images: None, not known
    workspace: Path | None = None  # where the tools' images are read from (for a vision model)
    on_demand: OnDemand = field(default_factory=OnDemand.present)  # lists those images first
    told: set[str] = field(default_factory=set)  # the notices given this turn, by code

    async def messages(
        self,
        system_prompt: str,
        tools: Sequence[dict[str, Any]],
        pending: Pending | None = None,
        ready: Ready | None = None,
    ) -> list[ChatMessage]:
        """The request's messages; ``ready``: the stored messages and their view, prepared for this prompt."""
        view = await self._text_messages(system_prompt, tools, pending, ready)
        if self.vision is True and self.workspace is not None:  # the images are read from the workspace
            written = (path for m in view if isinstance(m, ToolResultMessage) for path in m.images)
            await self.on_demand.paths(written)
        return self._with_images(view)

    def _with_images(self, view: list[ChatMessage]) -> list[ChatMessage]:
        """Images the tools wrote shown to a vision model, and every image within the request's limits."""
        if self.vision is True and self.workspace is not None:
            view = show_tool_images(view, self.workspace)
        return fit_images(view, self.vision)

    async def _text_messages(
        self, system_prompt: str, tools: Sequence[dict[str, Any]], pending: Pending | None, ready: Ready | None
    ) -> list[ChatMessage]:
        fixed = estimate_tokens([SystemMessage(system_prompt)], tools)
        if fixed > PROMPT_MAX_SHARE * self.context_tokens:  # no room for any conversation: a new chat cannot help
            advice = too_small_advice(fixed, self.context_tokens, self.provider.kind)
            raise ProviderError("bad_request", advice, retryable=False)
        if ready is not None and ready.system_prompt == system_prompt:
            stored, view = ready.stored, list(ready.view)
        else:
            stored = self.journal.context()
            view = model_view(system_prompt, stored)
        view += [pending.message] if pending else []
        limit = int(TRIGGER * self.context_tokens)
        used = estimate_tokens(view, tools)
        if used <= limit:
            return view
        if pending is not None:
            await pending.store()
            stored = self.journal.context()
            view = model_view(system_prompt, stored)
        target = max(256, int(TARGET * self.context_tokens) - fixed)
        compacted = False
        for keep_last_turns in (2, 1):  # the current turn alone only when the latest two are too big
            if used <= limit:
                break
            if await self._compact(stored, target, keep_last_turns, used):
                compacted = True
                stored = self.journal.context()
                view = model_view(system_prompt, stored)
                used = estimate_tokens(view, tools)
        if compacted:
            self._notice(
                "compacted",
                "Older messages were summarized to fit the model's context window; they stay in the session.",
            )
        return view if used <= limit else self._fitted(view, tools, limit)

    async def _compact(self, stored: Sequence[StoredMessage], target: int, keep_last_turns: int, used: int) -> bool:
        """Summarize what compaction may (all but the latest ``keep_last_turns`` turns); False: nothing to."""
        plan = select_for_compaction(stored, target, keep_last_turns=keep_last_turns)
        # An earlier summary sorts first but was stored last: the cut is the last *message* summarized.
        covered = [m.seq for m in plan.summarize if m.kind == "message"]
        if not covered:
            return False
        log.info("summarizing %d older messages (%d tokens in all)", len(plan.summarize), used)
        summary = await self._summarize(plan.summarize)
        await self.journal.save_summary(summary, max(covered))
        return True

    def _fitted(self, view: list[ChatMessage], tools: Sequence[dict[str, Any]], limit: int) -> list[ChatMessage]:
        """The view with its longest messages cut to fit, or a clear error when even that is not enough."""
        fitted = fit_view(view, tools, limit)
        if not fitted.fits(limit):
            raise ProviderError(
                "bad_request",
                f"This conversation does not fit the context window of {self.model} ({self.context_tokens:,} "
                f"tokens), even with its longest messages shortened: the request would take about "
                f"{fitted.tokens:,} tokens. Start a new chat, or choose a model with a larger context window "
                "in Settings.",
                retryable=False,
            )
        log.warning("cut %d characters from %d messages to fit the window", fitted.cut_chars, fitted.cut_messages)
        self._notice(
            "trimmed",
            f"{_count(fitted.cut_messages, 'message')} too long for the model's context window "
            f"{'was' if fitted.cut_messages == 1 else 'were'} shortened in what the model reads "
            f"({fitted.cut_chars:,} characters cut from the middle); the full text stays in the session.",
        )
        return fitted.messages

    def _notice(self, code: str, text: str) -> None:
        if code not in self.told:
            self.told.add(code)
            self.emit({"kind": "notice", "code": code, "text": text})

    async def _summarize(self, messages: Sequence[StoredMessage]) -> str:
        transcript = "\n\n".join(_quoted(m) for m in messages)
        limit = int(self.context_tokens * TARGET) * 4
        if len(transcript) > limit:
            transcript = "[… the start is cut …]\n" + transcript[-limit:]
        request: list[ChatMessage] = [
            SystemMessage(SUMMARY_PROMPT),
            UserMessage(f"Summarize the conversation so far:\n\n<conversation>\n{transcript}\n</conversation>"),
        ]
        parts: list[str] = []
        finished: Finished | None = None
        async for event in self.provider.stream_chat(request, [], self.model):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, Finished):
                finished = event
        text = (finished.text if finished and finished.text else "".join(parts)).strip()
        if not text:
            raise ProviderError("provider_error", "The model returned an empty summary of the conversation. Try again.")
        limit = int(self.context_tokens * SUMMARY_SHARE) * 4  # it joins the system message, which is never cut
        return text if len(text) <= limit else text[:limit] + " [… the rest of the summary is cut …]"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _quoted(message: StoredMessage) -> str:
    text = content_text(message.content)
    if len(text) > MAX_QUOTED_CHARS:
        text = text[:MAX_QUOTED_CHARS] + " […]"
    if message.kind == "summary":
        return f"Summary of what came before:\n{text}"
    if message.role == "tool":
        return f"Tool result ({message.name}):\n{text}"
    calls = ", ".join(f"{c.get('function', {}).get('name')}" for c in message.tool_calls)
    suffix = f"\n(called tools: {calls})" if calls else ""
    return f"{message.role.capitalize()}:\n{text}{suffix}"
