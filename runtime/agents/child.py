"""One delegated agent's run: its own session, tools, prompt, gate and budget, governed by the parent's runtime.

``run_child`` runs the agent loop (``runtime.agent.loop``) once for the task, in a child session of the
store, with the profile's view of the session's registry (the provider sees only those tools; a call to
any other is refused at lookup like an unknown tool), under ``effective_mode(parent, profile)``. What the
child streams stays in its session; ``ChildEmit`` passes to the parent chat only what the person must see
or what counts: its approvals (naming the agent, under the parent's turn), the cards of the calls asked
about, and its usage (so the parent turn's cost includes it). The run ends at the profile's rounds, or is
cut at the token or time budget; the outcome is bounded text, never the transcript.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from runtime.agent.approvals import Approvals
from runtime.agent.gate import Gate
from runtime.agent.live_output import LiveOutput
from runtime.agent.loop import TurnDeps, run_turn
from runtime.agent.tool_context import AgentToolContext
from runtime.agents.profiles import AgentProfile
from runtime.agents.write_locks import WriteLocks
from runtime.chat.messages import ToolCall
from runtime.checkpoints.store import CHECKPOINTS_DIR
from runtime.host.messages import Event, TurnEndReason
from runtime.persist.journal import SessionJournal
from runtime.policy.guardrails import RESULTS_DIR
from runtime.policy.hooks import Hooks
from runtime.prompts.render import PromptInputs, read_agents_md, render_system_prompt
from runtime.prompts.workspace_map import workspace_map
from runtime.providers.base import Provider
from runtime.tools.base import ToolDefinition, ToolError
from runtime.tools.registry import Registry

Emit = Callable[[Event], None]
_FORWARDED_CARDS = frozenset({"tool_started", "tool_output", "tool_finished"})


@dataclass(frozen=True)
class Budget:
    """What one child may spend: model rounds, tokens (prompt + completion, all rounds) and wall time."""

    rounds: int = 8
    tokens: int = 200_000
    wall_s: float = 600.0


@dataclass
class ChildEmit:
    """The child's events: approvals and usage go to the parent chat, the rest stays in the child."""

    parent: Emit
    agent: str
    parent_turn: str
    token_limit: int
    on_over: Callable[[], None] = lambda: None
    tokens: int = 0
    cost: float = 0.0
    answer: list[str] = field(default_factory=list)
    error: str | None = None
    rounds: int = 0
    _asked: set[str] = field(default_factory=set)

    def __call__(self, event: Event) -> None:
        e = cast(dict[str, Any], event)
        kind = e["kind"]
        if kind == "text_delta":
            self.answer.append(e["text"])
        elif kind == "usage":
            self._usage(e)
        elif kind == "approval_needed":
            self._asked.add(e["call_id"])
            self.parent(cast(Event, {"agent": self.agent, **e, "turn_id": self.parent_turn}))
        elif kind in _FORWARDED_CARDS:
            self._card(e)
        elif kind == "error":
            self.error = e["message"]

    def _usage(self, event: dict[str, Any]) -> None:
        self.rounds += 1
        self.tokens += int(event.get("total_tokens") or 0)
        self.cost += float(event.get("cost") or 0.0)
        self.parent(cast(Event, {**event, "turn_id": self.parent_turn}))
        if self.tokens > self.token_limit:
            self.on_over()

    def _card(self, event: dict[str, Any]) -> None:
        if event["kind"] in ("tool_started", "tool_finished"):
            self.answer.clear()  # the answer is what the child said after its last call
        if event["call_id"] in self._asked:  # a call the person was asked about: its card goes on in the chat
            self.parent(cast(Event, {**event, "turn_id": self.parent_turn}))


@dataclass(frozen=True)
class ChildSpec:
    profile: AgentProfile
    task: str
    task_id: str
    session_id: str  # the child's
    parent_turn: str
    budget: Budget


@dataclass(frozen=True)
class ChildParts:
    """What the conversation lends each child (the same objects the parent's turns use)."""

    workspace: Path
    tools: Registry
    provider: Provider
    model: str
    gate: Gate
    approvals: Approvals
    hooks: Hooks
    emit: Emit
    context_tokens: int
    vision: bool | None
    locks: WriteLocks = field(default_factory=lambda: WriteLocks())


@dataclass(frozen=True)
class ChildOutcome:
    reason: TurnEndReason | str  # the loop's, or "tokens" / "time" when the budget cut it
    answer: str
    files: tuple[str, ...]
    tokens: int
    cost: float
    rounds: int
    error: str | None


def child_tools(tools: Registry, profile: AgentProfile, skills: tuple[str, ...] | None, locks: WriteLocks) -> Registry:
    """The profile's view of the session's tools; ``activate_skill`` limited to the profile's skills, and
    the write tools serialized per path."""
    view = tools if profile.tools is None else tools.view(profile.tools)
    only = (_only_skills(t, skills) if t.name == "activate_skill" and skills is not None else t for t in view)
    return locks.registry(Registry(only))


def _only_skills(definition: ToolDefinition, allowed: tuple[str, ...]) -> ToolDefinition:
    tailor = definition.parameters_for

    def parameters_for(workspace: Path) -> dict[str, Any] | None:
        schema = tailor(workspace) if tailor is not None else definition.parameters
        if schema is None:
            return None
        enum = [n for n in schema["properties"]["name"].get("enum", allowed) if n in allowed]
        if not enum:
            return None
        return {
            **schema,
            "properties": {**schema["properties"], "name": {**schema["properties"]["name"], "enum": enum}},
        }

    def activate(ctx: Any, name: str) -> Any:
        if name not in allowed:
            raise ToolError(f"The skill {name!r} is not one of this agent's skills ({', '.join(allowed) or 'none'}).")
        return definition.func(ctx, name=name)

    return replace(definition, func=activate, parameters_for=parameters_for)


def child_prompt(parts: ChildParts, tools: Registry, profile: AgentProfile, mode: str, skills_block: str) -> str:
    """The system prompt of the child: the app's, for its tools and mode, then the profile's prompt and role."""
    paths, truncated = workspace_map(parts.workspace) if parts.workspace.is_dir() else ([], False)
    base = render_system_prompt(
        PromptInputs(
            tools=tools.catalog(),
            permission_mode=mode,
            workspace_map=paths,
            workspace_truncated=truncated,
            agents_md=read_agents_md(parts.workspace),
            skills_block=skills_block,
        )
    )
    role = (
        f"\n\n## You are the delegated agent {profile.name!r}\n\nAnother agent gave you one task. Do it with the "
        "tools you have, then answer with the result in a few paragraphs: that answer is all it will see."
    )
    return base + role + (f"\n\n{profile.prompt}" if profile.prompt else "")


async def run_child(
    spec: ChildSpec, parts: ChildParts, context: AgentToolContext, journal: SessionJournal, skills_block: str, mode: str
) -> ChildOutcome:
    """Run the child's loop once for ``spec.task``; cut it at its token or time budget."""
    profile = spec.profile
    skills = profile.skills
    tools = child_tools(parts.tools, profile, skills, parts.locks)
    cut: list[str] = []
    task: asyncio.Task[TurnEndReason] | None = None

    def over() -> None:
        if task is not None and not task.done():
            cut.append("tokens")
            task.cancel()

    emit = ChildEmit(parts.emit, profile.name, spec.parent_turn, spec.budget.tokens, over)
    live = LiveOutput(emit)
    child_context = context.for_child(profile.name, spec.session_id, live, mode)
    deps = TurnDeps(
        parts.provider,
        profile.model or parts.model,
        tools,
        parts.gate,
        child_context,
        emit,
        parts.approvals,
        journal,
        hooks=parts.hooks,
        max_rounds=spec.budget.rounds,
        context_tokens=parts.context_tokens,
        vision=parts.vision,
    )
    first = tuple(
        ToolCall(f"skill_{spec.task_id}_{i}", "activate_skill", json.dumps({"name": s}))
        for i, s in enumerate(skills or ())
        if "activate_skill" in tools
    )
    prompt = child_prompt(parts, tools, profile, mode, skills_block)
    task = asyncio.ensure_future(run_turn(deps, f"{spec.task_id}-turn", spec.task, prompt, first))
    try:
        done, _ = await asyncio.wait({task}, timeout=spec.budget.wall_s)
        if not done:
            cut.append("time")
            task.cancel()
        reason: TurnEndReason | str = await task
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.wait({task}, timeout=5.0)
        raise
    if cut:
        reason = cut[0]
    files = tuple(p for p in child_context.changed or () if not p.startswith((CHECKPOINTS_DIR, RESULTS_DIR)))
    answer = "".join(emit.answer).strip()
    return ChildOutcome(reason, answer, files, emit.tokens, emit.cost, emit.rounds, emit.error)
