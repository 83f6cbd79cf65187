"""One tool call, start to finish: gate → (approval) → pre-hooks → tool → post-hooks → guardrails.

Whatever happens, the model gets a result: a denial, a failing tool, a hook's veto, an unknown tool or
arguments that are not JSON all become text it can read. Events tell the UI what happened. Results over
the inline cap are spilled to a workspace file and referenced (``runtime.policy.guardrails``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from runtime.agent.approvals import Approvals
from runtime.agent.gate import Gate, Verdict
from runtime.agent.journal import Journal
from runtime.agent.seen import fingerprint
from runtime.agent.tool_context import AgentToolContext
from runtime.chat.messages import ToolCall, ToolResultMessage
from runtime.host.events import ToolFinished
from runtime.host.messages import ApprovalNeeded, Event, ToolStatus
from runtime.policy.guardrails import RepeatedFailures, spill
from runtime.policy.hooks import Denied, HookCall, HookResult, Hooks, result_of
from runtime.tools.base import ToolDefinition, ToolError
from runtime.tools.registry import Registry, UnknownTool

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]
MAX_EVENT_RESULT_CHARS = 20_000


@dataclass(frozen=True)
class CallDeps:
    tools: Registry
    gate: Gate
    hooks: Hooks
    context: AgentToolContext
    approvals: Approvals
    emit: Emit
    journal: Journal


@dataclass(frozen=True)
class _Outcome:
    text: str
    ok: bool
    status: ToolStatus
    images: tuple[str, ...] = ()


class CallRunner:
    """Runs the tool calls of one turn (the repeat guard counts within the turn)."""

    def __init__(self, deps: CallDeps, turn_id: str, ask_first: frozenset[str] = frozenset()) -> None:
        self.deps = deps
        self.turn_id = turn_id
        self.ask_first = ask_first  # calls that waited for approval before a reload: asked again
        self.repeats = RepeatedFailures()
        self.stuck: str | None = None  # set when a call failed the same way too often: the turn stops
        # call id → the tool and arguments the person approved, and the fingerprint of the files they saw
        self.approved: dict[str, tuple[str, str, str]] = {}

    async def run(self, call: ToolCall) -> ToolResultMessage:
        try:
            tool = self.deps.tools.get(call.name)
        except UnknownTool:
            names = ", ".join(t.name for t in self.deps.tools) or "none"
            return await self._finish(
                call, {}, _Outcome(f"Error: there is no tool {call.name!r}. Tools: {names}.", False, "error")
            )
        arguments = parse_arguments(call.arguments)
        if isinstance(arguments, str):
            return await self._finish(call, {}, _Outcome(arguments, False, "error"))
        refusal = await self._permission(tool, call, arguments)
        if refusal:
            return await self._finish(call, arguments, refusal)
        if self.repeats.blocked(tool.name, arguments):
            text = (
                f"Error: not run: {tool.name} already failed {self.repeats.limit} times with exactly these "
                "arguments. Change the arguments or the approach, or ask the user."
            )
            return await self._finish(call, arguments, _Outcome(text, False, "error"))
        hooked = await self.deps.hooks.before(HookCall(call.id, tool, arguments))
        if isinstance(hooked, Denied):
            text = f"This call was blocked by {hooked.hook}: {hooked.reason}"
            return await self._finish(call, arguments, _Outcome(text, False, "denied"))
        unseen = await self._unseen(call.id, tool, hooked.arguments)
        if unseen:
            return await self._finish(call, hooked.arguments, _Outcome(unseen, False, "denied"))
        self.deps.journal.call_started(self.turn_id, call.id, tool.name, hooked.arguments)
        self.deps.emit(
            {
                "kind": "tool_started",
                "turn_id": self.turn_id,
                "call_id": call.id,
                "name": tool.name,
                "arguments": hooked.arguments,
            }
        )
        return await self._finish(call, hooked.arguments, await self._execute(hooked))

    async def refuse(self, call: ToolCall, text: str) -> ToolResultMessage:
        """A call that is not run (its arguments cut off or unusable: ``agent.unusable``); ``text`` says why."""
        return await self._finish(call, {}, _Outcome(text, False, "error"))

    async def _permission(self, tool: ToolDefinition, call: ToolCall, arguments: dict[str, Any]) -> _Outcome | None:
        verdict, reason = self.deps.gate.decide(tool, arguments)
        if verdict == "allow" and call.id in self.ask_first:
            verdict = "ask"
        if verdict == "allow":
            return None
        if verdict == "ask":
            if await self._ask(tool, call, arguments) == "allow":
                return None
            text = "The user denied this call. Do not retry it; continue without it or ask the user what they want."
        else:
            text = f"This call is not allowed ({reason}). Do not retry it; continue without it or ask the user."
        return _Outcome(text, False, "denied")

    async def _unseen(self, call_id: str, tool: ToolDefinition, arguments: dict[str, Any]) -> str | None:
        """Why an approved call must not run: its arguments, or the files it changes, are not what was shown."""
        if call_id not in self.approved:
            return None
        name, approved_arguments, seen = self.approved[call_id]
        if (name, approved_arguments) != (tool.name, canonical(arguments)):
            return "Not run: the call changed after the user approved it. Ask again with the arguments you mean."
        await self.deps.context.on_demand.reach(tool.reach(arguments))
        if fingerprint(self.deps.context.workspace, tool, arguments) != seen:
            return (
                "Not run: the files this call changes changed after the user approved it, so the approval "
                "does not cover them. Read them again and ask again."
            )
        return None

    async def _ask(self, tool: ToolDefinition, call: ToolCall, arguments: dict[str, Any]) -> Verdict:
        event: ApprovalNeeded = {
            "kind": "approval_needed",
            "turn_id": self.turn_id,
            "call_id": call.id,
            "name": tool.name,
            "arguments": arguments,
            "effect": tool.effect,
        }
        await self.deps.context.on_demand.reach(tool.reach(arguments))  # what the preview reads
        try:
            preview = tool.render_preview(self.deps.context, arguments)
        except Exception as exc:
            log.warning("the preview of %s failed: %s", tool.name, exc)
            preview = None
        if preview is not None:
            event["preview"] = preview
        seen = fingerprint(self.deps.context.workspace, tool, arguments)  # what the preview was made from
        always = self.deps.gate.always_asks(tool, arguments)
        if always is not None:
            event["always_asks"] = always
        await self.deps.journal.call_asking(self.turn_id, call.id, tool.name, arguments)
        self.deps.emit(event)
        decision = await self.deps.approvals.wait(call.id)
        await self.deps.journal.call_decided(call.id, decision)
        if decision == "deny":
            return "deny"
        self.approved[call.id] = (tool.name, canonical(arguments), seen)  # exactly this call, on these files
        if decision == "allow_session" and always is None:  # instructions, a recording's network: once only
            self.deps.gate.grant_session(tool.name, arguments)  # the call the card showed
        return "allow"

    async def _execute(self, call: HookCall) -> _Outcome:
        await self.deps.context.on_demand.reach(call.tool.reach(call.arguments))
        try:
            with self.deps.context.live.calling(self.turn_id, call.call_id):
                if call.tool.effect == "write":  # what it names, as it was: the turn's checkpoint
                    reach = call.tool.reach(call.arguments)
                    await self.deps.context.keep_before((*reach.paths, *reach.trees))
                outcome = result_of(await call.tool.call(self.deps.context, call.arguments))
        except ToolError as exc:
            outcome = HookResult(f"Error: {exc}", ok=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken tool is the model's problem to work around, not a crash
            log.warning("tool %s raised %s: %s", call.tool.name, type(exc).__name__, exc)
            outcome = HookResult(f"Error: {type(exc).__name__}: {exc}", ok=False)
        outcome = await self.deps.hooks.after(call, outcome)
        text = outcome.text
        tripped = self.repeats.record(call.tool.name, call.arguments, outcome.ok)
        if tripped:
            text += f"\n\n{tripped.message}"
            self.stuck = (
                f"Stopped this turn: {call.tool.name} failed {tripped.count} times with exactly the same "
                "arguments. Say what should change, or try another way."
            )
        spilled = spill(self.deps.context.workspace, call.call_id, text)
        changed = (*self.deps.context.take_kept(), *outcome.changed_paths, *((spilled.path,) if spilled.path else ()))
        await self.deps.context.flush_changed(changed)
        return _Outcome(spilled.text, outcome.ok, "ok" if outcome.ok else "error", outcome.images)

    async def _finish(self, call: ToolCall, arguments: dict[str, Any], outcome: _Outcome) -> ToolResultMessage:
        shown = outcome.text
        if len(shown) > MAX_EVENT_RESULT_CHARS:
            shown = f"{shown[:MAX_EVENT_RESULT_CHARS]}\n… [{len(shown) - MAX_EVENT_RESULT_CHARS} more characters]"
        finished: ToolFinished = {
            "kind": "tool_finished",
            "turn_id": self.turn_id,
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments,
            "ok": outcome.ok,
            "result": shown,
            "status": outcome.status,
        }
        if outcome.images:
            finished["images"] = list(outcome.images)
        self.deps.emit(finished)
        result = ToolResultMessage(call.id, call.name, outcome.text, outcome.ok, outcome.images)
        await self.deps.journal.tool_result(self.turn_id, result, outcome.status, arguments)
        return result


def unique_call_ids(calls: Iterable[ToolCall], fresh: Callable[[str], str]) -> tuple[ToolCall, ...]:
    """A reply's calls, each under an id no other call of the reply has and ``fresh`` accepts.

    A provider may send two calls with one id (or none): each must still get its own approval card,
    its own decision and its own result, so a repeated id is replaced. ``fresh`` maps an id to one the
    workspace has not used (``Journal.fresh_call_id``).
    """
    seen: set[str] = set()
    unique: list[ToolCall] = []
    for call in calls:
        call_id = fresh(call.id)
        while call_id in seen:
            call_id = fresh(f"call_{secrets.token_hex(8)}")
        seen.add(call_id)
        unique.append(call if call_id == call.id else replace(call, id=call_id))
    return tuple(unique)


def canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def parse_arguments(raw: str) -> dict[str, Any] | str:
    """The parsed arguments, or the error text the model should see."""
    try:
        value = json.loads(raw or "{}")
    except ValueError as exc:
        return f"Error: the arguments are not valid JSON ({exc}). Send a JSON object."
    if not isinstance(value, dict):
        return "Error: the arguments must be a JSON object."
    return value
