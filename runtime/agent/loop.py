"""The agent loop: one turn = rounds of (stream a response → run the tool calls it asked for).

Text deltas are emitted as they stream; each tool call is run by ``agent.calls.CallRunner`` (gate,
approval, hooks, guardrails), whose result the model sees whatever happened. ``tools`` go with every
request. Every completed step goes to the ``Journal`` (stored and saved before the next one), and
each request's messages come from it through ``ContextWindow`` (which compacts when needed). A turn
stops when the model answers without tool calls, after a reply cut off at the length limit (its
complete calls run, a call the limit cut is not: ``agent.unusable``), after ``max_rounds`` rounds,
on an error, or when its task is cancelled (``abort_turn``): the partial text is kept and every
unanswered tool call gets an "aborted" result so the conversation stays valid.

A turn cut off by a reload while a call waited for approval is resumed with ``resume``: the calls of
its last assistant message that have no result yet, asking again for those in ``ask_first``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runtime.agent.approvals import Approvals
from runtime.agent.calls import CallDeps, CallRunner, parse_arguments, unique_call_ids
from runtime.agent.context import DEFAULT_CONTEXT_TOKENS, ContextWindow, Pending, Ready
from runtime.agent.gate import Gate
from runtime.agent.journal import Journal
from runtime.agent.tool_context import AgentToolContext
from runtime.agent.unusable import screen
from runtime.chat.messages import AssistantMessage, ChatMessage, ImagePart, ToolCall, ToolResultMessage, UserMessage
from runtime.errors import ProviderError
from runtime.host.messages import Event, TurnEndReason
from runtime.policy.hooks import Hooks
from runtime.providers.base import (
    Finished,
    Provider,
    ProviderNotice,
    ReasoningDelta,
    Retrying,
    TextDelta,
    UsageReport,
)
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)

STORE_WITHIN_S = 0.05  # the user's message is stored at most this long after its request left (``_store_soon``)

Emit = Callable[[Event], None]
DEFAULT_MAX_ROUNDS = 12
NOTABLE_ENDINGS = frozenset({"length", "content_filter"})  # kept with the reply and shown
ABORTED_RESULT = "The user stopped the turn before this tool call finished."


@dataclass(frozen=True)
class TurnDeps:
    provider: Provider
    model: str
    tools: Registry
    gate: Gate
    context: AgentToolContext
    emit: Emit
    approvals: Approvals
    journal: Journal
    hooks: Hooks = field(default_factory=Hooks)
    max_rounds: int = DEFAULT_MAX_ROUNDS
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    vision: bool | None = None  # whether the model takes images (None: not known)


@dataclass(frozen=True)
class Resume:
    """Go on with a stored turn: run ``calls`` (asking again for ``ask_first``), then the rounds."""

    calls: tuple[ToolCall, ...]
    ask_first: frozenset[str]


def retry_notice(event: Retrying) -> Event:
    what = "rate limited" if event.code == "rate_limited" else "the provider did not answer"
    return {"kind": "notice", "code": "retrying", "text": f"{what.capitalize()}, retrying in {event.delay_s:.0f} s…"}


def failed_turn(turn_id: str, code: str, message: str) -> list[Event]:
    """The events of a turn that could not start: still a whole turn for the UI."""
    return [
        {"kind": "turn_started", "turn_id": turn_id},
        {"kind": "error", "turn_id": turn_id, "code": code, "message": message, "retryable": False},
        {"kind": "turn_finished", "turn_id": turn_id, "reason": "error"},
    ]


async def run_turn(
    deps: TurnDeps,
    turn_id: str,
    text: str | None,
    system_prompt: str,
    first_calls: tuple[ToolCall, ...] = (),
    resume: Resume | None = None,
    images: tuple[tuple[ImagePart, bytes], ...] = (),
    ready: Ready | None = None,
) -> TurnEndReason:
    """Run one turn for the user's ``text`` (``None`` with ``resume``: the message is already stored).

    ``first_calls`` run before the model is asked, as if it had asked for them (``/skill-name``);
    ``images`` are stored with the message (checked already: ``chat.images.check_attachments``);
    ``ready``: the first request's parts, prepared before Send for this prompt (``conversation.prepared``).
    """
    turn = _Turn(deps, turn_id, text, system_prompt, first_calls, resume)
    turn.images = images
    turn.ready = ready if not (first_calls or resume or images) else None
    return await turn.run()


class _Turn:
    def __init__(
        self,
        deps: TurnDeps,
        turn_id: str,
        text: str | None,
        system_prompt: str,
        first_calls: tuple[ToolCall, ...],
        resume: Resume | None,
    ) -> None:
        self.deps = deps
        self.text = text
        self.first_calls = first_calls
        self.resume = resume
        self.turn_id = turn_id
        self.system_prompt = system_prompt
        self.partial: list[str] = []
        self.partial_reasoning: list[str] = []
        self.images: tuple[tuple[ImagePart, bytes], ...] = ()
        self.ready: Ready | None = None  # the first request's parts, prepared before Send
        self.storing: asyncio.Future[None] | None = None  # the user's message, stored while its request travels
        self.answered = asyncio.Event()  # the first round's answer began (its first event)
        self.open: list[ToolCall] = []  # calls of the last assistant message still without a result
        self.window = ContextWindow(
            deps.provider,
            deps.model,
            deps.context_tokens,
            deps.journal,
            deps.emit,
            deps.vision,
            deps.context.workspace,
            on_demand=deps.context.on_demand,
        )
        self.calls = CallRunner(
            CallDeps(deps.tools, deps.gate, deps.hooks, deps.context, deps.approvals, deps.emit, deps.journal),
            turn_id,
            resume.ask_first if resume else frozenset(),
        )

    async def run(self) -> TurnEndReason:
        emit = self.deps.emit
        emit({"kind": "turn_started", "turn_id": self.turn_id})
        try:
            reason = await self._rounds()
        except asyncio.CancelledError:
            await self._close_aborted()
            reason = "aborted"
        except ProviderError as exc:
            await self._keep_partial()
            self._error(exc.code, exc.message, exc.retryable)
            reason = "error"
        except Exception as exc:  # a bug must end the turn, not the runtime
            log.exception("turn %s failed", self.turn_id)
            await self._keep_partial()
            self._error("internal", f"The agent hit an internal error: {type(exc).__name__}: {exc}", False)
            reason = "error"
        await self._user_stored()
        await self.deps.journal.turn_finished(self.turn_id, reason)
        emit({"kind": "turn_finished", "turn_id": self.turn_id, "reason": reason})
        return reason

    async def _rounds(self) -> TurnEndReason:
        journal = self.deps.journal
        if self.text is not None and (self.first_calls or self.resume):
            await journal.user_message(self.turn_id, self.text, self.images)
            self.text = None
        if self.first_calls:
            await journal.assistant_message(self.turn_id, AssistantMessage("", self.first_calls), "complete")
            await self._run_calls(self.first_calls)
        if self.resume:
            await self._run_calls(self.resume.calls)
        for _ in range(self.deps.max_rounds):
            if self.calls.stuck:  # the same failing call again and again: stop instead of looping
                self._error("repeated_failure", self.calls.stuck, False)
                return "error"
            finished = await self._stream_round()
            await self._user_stored()
            screened = screen(unique_call_ids(finished.tool_calls, journal.fresh_call_id), finished.finish_reason)
            calls = screened.calls
            self.partial, self.partial_reasoning = [], []
            said = finished.finish_reason if finished.finish_reason in NOTABLE_ENDINGS else None
            reply = AssistantMessage(finished.text, calls, finished.reasoning, finished.reasoning_details, said)
            await journal.assistant_message(self.turn_id, reply, "complete")
            if said:
                self.deps.emit({"kind": "reply_finished", "turn_id": self.turn_id, "finish_reason": said})
            if not calls:
                return "stop"
            await self._run_calls(calls, screened.refused)
            if said == "length":  # the limit cut the reply: the person decides whether to go on (Continue)
                return "stop"
        return "max_rounds"

    async def _run_calls(self, calls: tuple[ToolCall, ...], refused: dict[str, str] | None = None) -> None:
        """Run each call; one in ``refused`` (cut off, unusable arguments) only gets the result given there."""
        self.open = list(calls)
        for call in calls:
            why = (refused or {}).get(call.id)
            await (self.calls.refuse(call, why) if why is not None else self.calls.run(call))
            self.open.remove(call)

    async def _stream_round(self) -> Finished:
        deps = self.deps
        ready, self.ready = self.ready, None  # the first round's only
        tools = ready.tools if ready is not None else deps.tools.openai_tools(deps.context.workspace)
        messages = await self._request_messages(tools, ready)
        finished: Finished | None = None
        async for event in deps.provider.stream_chat(messages, tools, deps.model):
            self.answered.set()
            match event:
                case TextDelta(text=text):
                    self.partial.append(text)
                    deps.emit({"kind": "text_delta", "turn_id": self.turn_id, "text": text})
                case ReasoningDelta(text=text):
                    self.partial_reasoning.append(text)
                    deps.emit({"kind": "reasoning_delta", "turn_id": self.turn_id, "text": text})
                case Retrying():
                    deps.emit(retry_notice(event))
                case ProviderNotice(code=code, text=text):
                    deps.emit({"kind": "notice", "code": code, "text": text})
                case UsageReport():
                    deps.emit(
                        {
                            "kind": "usage",
                            "turn_id": self.turn_id,
                            "prompt_tokens": event.prompt_tokens,
                            "completion_tokens": event.completion_tokens,
                            "total_tokens": event.total_tokens,
                            "cost": event.cost,
                        }
                    )
                case Finished():
                    finished = event
        if finished is None:
            raise ProviderError("provider_error", "The model's response ended without finishing. Try again.")
        return finished

    async def _request_messages(self, tools: list[dict[str, Any]], ready: Ready | None) -> list[ChatMessage]:
        """The round's messages. The user's new message goes out before it is stored: the store (a few ms
        of SQLite writes) runs while the request travels, once this turn waits for the provider's answer.
        Every later step of the turn waits for it (``_user_stored``), so the stored order stays the same."""
        pending = None
        if self.text is not None:
            pending = Pending(UserMessage(self.text, tuple(part for part, _ in self.images)), self._store_user)
        messages = await self.window.messages(self.system_prompt, tools, pending, ready)
        if self.text is not None:
            self.storing = asyncio.ensure_future(self._store_soon())
        return messages

    async def _store_soon(self) -> None:
        """Store the message once the answer began, or ``STORE_WITHIN_S`` after the request left, whichever
        comes first: a fast server's first token is not held behind the SQLite write, and a slow one's wait
        is not a time the message could be lost in."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.answered.wait(), STORE_WITHIN_S)
        await self._store_user()

    async def _store_user(self) -> None:
        if self.text is not None:
            text, self.text = self.text, None
            await self.deps.journal.user_message(self.turn_id, text, self.images)

    async def _user_stored(self) -> None:
        await self._store_user()  # the turn ended before its request went out
        if self.storing is not None:
            await asyncio.shield(self.storing)  # a stopped turn must not stop the save of its message
            self.storing = None

    async def _keep_partial(self) -> None:
        await self._user_stored()
        if self.partial or self.partial_reasoning:
            text, reasoning = "".join(self.partial), "".join(self.partial_reasoning)
            self.partial, self.partial_reasoning = [], []
            message = AssistantMessage(text, reasoning=reasoning)
            await self.deps.journal.assistant_message(self.turn_id, message, "interrupted")

    async def _close_aborted(self) -> None:
        """Keep the partial text; answer every tool call left without a result."""
        await self._keep_partial()
        for call in self.open:
            result = ToolResultMessage(call.id, call.name, ABORTED_RESULT, False)
            arguments = parse_arguments(call.arguments)
            await self.deps.journal.tool_result(
                self.turn_id, result, "error", arguments if isinstance(arguments, dict) else {}
            )
        self.open = []

    def _error(self, code: str, message: str, retryable: bool) -> None:
        self.deps.emit(
            {"kind": "error", "turn_id": self.turn_id, "code": code, "message": message, "retryable": retryable}
        )
