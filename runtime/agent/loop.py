"""The agent loop: one turn = rounds of (stream a response → run the tool calls it asked for).

Text deltas are emitted as they stream; each tool call is run by ``agent.calls.CallRunner`` (gate,
approval, hooks, guardrails), whose result the model sees whatever happened. ``tools`` go with every
request. A turn stops when the model answers without tool calls, after ``max_rounds`` rounds, on an
error, or when its task is cancelled (``abort_turn``): the partial text is kept in the history and
every unanswered tool call gets an "aborted" result so the conversation stays valid.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.agent.approvals import Approvals
from runtime.agent.calls import CallDeps, CallRunner
from runtime.agent.gate import Gate
from runtime.agent.messages import AssistantMessage, ChatMessage, SystemMessage, ToolCall, ToolResultMessage
from runtime.agent.tool_context import AgentToolContext
from runtime.errors import ProviderError
from runtime.host.messages import Event, TurnEndReason
from runtime.policy.hooks import Hooks
from runtime.providers.base import Finished, Provider, TextDelta, UsageReport
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]
DEFAULT_MAX_ROUNDS = 12
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
    hooks: Hooks = field(default_factory=Hooks)
    max_rounds: int = DEFAULT_MAX_ROUNDS


async def run_turn(
    deps: TurnDeps,
    turn_id: str,
    history: list[ChatMessage],
    system_prompt: str,
    first_calls: tuple[ToolCall, ...] = (),
) -> TurnEndReason:
    """Run one turn; ``history`` (ending with the user's message) is extended in place.

    ``first_calls`` run before the model is asked, as if it had asked for them (``/skill-name``).
    """
    return await _Turn(deps, turn_id, history, system_prompt, first_calls).run()


class _Turn:
    def __init__(
        self,
        deps: TurnDeps,
        turn_id: str,
        history: list[ChatMessage],
        system_prompt: str,
        first_calls: tuple[ToolCall, ...],
    ) -> None:
        self.deps = deps
        self.first_calls = first_calls
        self.turn_id = turn_id
        self.history = history
        self.system_prompt = system_prompt
        self.partial: list[str] = []
        self.calls = CallRunner(
            CallDeps(deps.tools, deps.gate, deps.hooks, deps.context, deps.approvals, deps.emit), turn_id
        )

    async def run(self) -> TurnEndReason:
        emit = self.deps.emit
        emit({"kind": "turn_started", "turn_id": self.turn_id})
        try:
            reason = await self._rounds()
        except asyncio.CancelledError:
            self._close_aborted()
            reason = "aborted"
        except ProviderError as exc:
            self._keep_partial()
            self._error(exc.code, exc.message, exc.retryable)
            reason = "error"
        except Exception as exc:  # a bug must end the turn, not the runtime
            log.exception("turn %s failed", self.turn_id)
            self._keep_partial()
            self._error("internal", f"The agent hit an internal error: {type(exc).__name__}: {exc}", False)
            reason = "error"
        emit({"kind": "turn_finished", "turn_id": self.turn_id, "reason": reason})
        return reason

    async def _rounds(self) -> TurnEndReason:
        if self.first_calls:
            self.history.append(AssistantMessage("", self.first_calls))
            for call in self.first_calls:
                self.history.append(await self.calls.run(call))
        for _ in range(self.deps.max_rounds):
            finished = await self._stream_round()
            self.partial = []
            self.history.append(AssistantMessage(finished.text, finished.tool_calls))
            if not finished.tool_calls:
                return "stop"
            for call in finished.tool_calls:
                self.history.append(await self.calls.run(call))
        return "max_rounds"

    async def _stream_round(self) -> Finished:
        deps = self.deps
        messages = [SystemMessage(self.system_prompt), *self.history] if self.system_prompt else list(self.history)
        finished: Finished | None = None
        async for event in deps.provider.stream_chat(messages, deps.tools.openai_tools(), deps.model):
            match event:
                case TextDelta(text=text):
                    self.partial.append(text)
                    deps.emit({"kind": "text_delta", "turn_id": self.turn_id, "text": text})
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

    def _keep_partial(self) -> None:
        if self.partial:
            self.history.append(AssistantMessage("".join(self.partial)))
            self.partial = []

    def _close_aborted(self) -> None:
        """Keep the partial text; answer every tool call left without a result."""
        self._keep_partial()
        answered = {m.call_id for m in self.history if isinstance(m, ToolResultMessage)}
        last = next((m for m in reversed(self.history) if isinstance(m, AssistantMessage)), None)
        for call in last.tool_calls if last else ():
            if call.id not in answered:
                self.history.append(ToolResultMessage(call.id, call.name, ABORTED_RESULT, False))

    def _error(self, code: str, message: str, retryable: bool) -> None:
        self.deps.emit(
            {"kind": "error", "turn_id": self.turn_id, "code": code, "message": message, "retryable": retryable}
        )
