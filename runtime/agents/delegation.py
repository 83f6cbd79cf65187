"""Delegation: the model hands a task to an agent profile; the runtime checks, runs and bounds it.

``Delegation`` is the conversation's one place for child agents. ``delegate`` checks the request (the
profile exists and its file is usable, the depth limit, no agent twice in one chain, a task to do), makes
the child session (``agent_tasks`` links it to the parent's session, turn and call) and runs the child
(``runtime.agents.child``) in the foreground or, with ``background``, as a task whose result
``task_result`` fetches. Every child uses the conversation's provider (so its model calls are recorded
with the parent session), approvals (they appear in the parent chat), hooks and store. Stop stops every
child (``stop_all``); a reload leaves running tasks ``stopped`` (``Store.agent_tasks_stop_running``).
Failures come back once with what to do: nothing is retried by itself.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from runtime.agent.approvals import Approvals
from runtime.agent.gate import Gate
from runtime.agents import profiles
from runtime.agents.child import Budget, ChildOutcome, ChildParts, ChildSpec, run_child
from runtime.agents.gate import narrowed
from runtime.agents.profiles import AgentProfile
from runtime.agents.write_locks import WriteLocks
from runtime.errors import ProviderError
from runtime.host.events import AgentTask, AgentTaskStatus
from runtime.host.messages import Event
from runtime.persist.journal import SessionJournal
from runtime.policy.hooks import Hooks
from runtime.providers.base import Provider
from runtime.store import StoreError
from runtime.tools.base import ToolError, ToolOutput
from runtime.tools.registry import Registry

if TYPE_CHECKING:
    from runtime.agent.tool_context import AgentToolContext
    from runtime.persist.state import State

log = logging.getLogger(__name__)

MAX_DEPTH = 2  # the chat's agent delegates (depth 1), its child may once more (depth 2), no further
MAX_BACKGROUND = 4  # background tasks running at once
MAX_TASK_CHARS = 20_000
MAX_ANSWER_CHARS = 4_000  # of the child's answer, in the parent's window
DEFAULT_BUDGET = Budget()


class Providers(Protocol):
    """The conversation's provider client (``conversation.providers.ProviderCache``)."""

    def configured(self) -> Provider: ...
    def context_tokens(self) -> int: ...
    def vision(self) -> bool | None: ...


class Settings(Protocol):
    @property
    def permission_mode(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def replaying(self) -> bool: ...


class Configuration(Protocol):
    """The conversation's settings of the moment (``conversation.settings.Configuration``)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def gate(self) -> Gate: ...


@dataclass(frozen=True)
class DelegationParts:
    """What the conversation lends its children: the same objects its own turns use."""

    workspace: Path
    tools: Registry
    providers: Providers
    configuration: Configuration
    chat_mode: Callable[[], str]  # the mode the chat's own turns run under (its profile's, or the chat's)
    state: State
    approvals: Approvals
    hooks: Hooks
    emit: Callable[[Event], None]
    locks: WriteLocks = field(default_factory=WriteLocks)  # the chat's turns take the same ones


@dataclass
class _Task:
    event: AgentTask
    parent_session: str
    started: float = field(default_factory=time.monotonic)
    runner: asyncio.Task[tuple[AgentTaskStatus, str]] | None = None
    text: str = ""


class Delegation:
    def __init__(self, parts: DelegationParts, budget: Budget = DEFAULT_BUDGET) -> None:
        self.parts = parts
        self.budget = budget
        self.tasks: dict[str, _Task] = {}
        self.locks = parts.locks  # every write (the chat's and each child's), one per path at a time
        self.closing = False  # the host went away: a task stopped now stays ``running`` for the reload to mark

    # ---- the tools' side --------------------------------------------------------------------------

    async def delegate(self, ctx: AgentToolContext, agent: str, task: str, background: bool) -> ToolOutput:
        store = await self.parts.state.store()
        parent_session = ctx.session_id() or self.parts.state.session_id
        if parent_session is None:
            raise ToolError("No session is open to delegate from; try again in a moment.")
        chat_agent = store.session_agent(store.task_chat(parent_session))  # the chat's own profile is in the chain
        profile = self._check((chat_agent, *ctx.agents), agent, task)
        turn_id, call_id = ctx.live.current or ("", "")
        if background and sum(1 for t in self.tasks.values() if t.event["status"] == "running") >= MAX_BACKGROUND:
            raise ToolError(
                f"{MAX_BACKGROUND} tasks run already. Wait for one to finish (task_result) before starting another."
            )
        task_id = f"task-{secrets.token_hex(4)}"
        with store.atomic():  # the child's session and its task: one commit
            child = store.create_session(title=f"{profile.name}: {' '.join(task.split())[:60]}")
            store.agent_task_add(task_id, parent_session, turn_id, call_id, profile.name, child.id, background)
        if background:  # a foreground task is saved with the child's first step
            await self.parts.state.save()
        event: AgentTask = {
            "kind": "agent_task",
            "turn_id": turn_id,
            "call_id": call_id,
            "task_id": task_id,
            "agent": profile.name,
            "status": "running",
            "session_id": child.id,
            "background": background,
        }
        entry = _Task(event, parent_session)
        self.tasks[task_id] = entry
        self._show(entry, ctx)
        work = self._run(entry, ctx, profile, task)
        if not background:
            status, text = await work
            return ToolOutput(text, ok=status == "done")
        entry.runner = asyncio.ensure_future(work)
        return ToolOutput(
            f"Task {task_id} ({profile.name}) started in the background. Go on with other work; call "
            f"task_result with task_id {task_id!r} when you need its result."
        )

    def result(self, task_id: str, session_id: str | None) -> ToolOutput:
        """A task's result: finished (done, failed, stopped) or still running; never waits, never retries."""
        entry = self.tasks.get(task_id)
        if entry is not None and entry.event["status"] == "running":
            elapsed = time.monotonic() - entry.started
            return ToolOutput(
                f"Task {task_id} ({entry.event['agent']}) is still running ({elapsed:.0f} s so far). Go on with "
                "other work and ask again later; do not call task_result in a loop.",
                ok=True,
            )
        if entry is not None:
            return ToolOutput(entry.text, ok=entry.event["status"] == "done")
        store = self.parts.state.opened.store if self.parts.state.opened else None
        try:
            stored = store.agent_task(task_id) if store is not None else None
        except StoreError:
            stored = None
        if stored is None or (session_id is not None and stored.session_id != session_id):
            known = ", ".join(t for t, e in self.tasks.items() if e.parent_session == session_id) or "none"
            raise ToolError(f"There is no task {task_id!r} in this session. Tasks here: {known}.")
        return ToolOutput(stored.result or f"Task {task_id} ended {stored.status}.", ok=stored.status == "done")

    # ---- Stop and the end of the conversation ----------------------------------------------------

    def stop_all(self) -> int:
        """Stop: every running background child (a foreground one stops with the turn it runs in)."""
        running = [t.runner for t in self.tasks.values() if t.runner is not None and not t.runner.done()]
        for runner in running:
            runner.cancel()
        return len(running)

    def close(self) -> list[asyncio.Task[Any]]:
        """The host went away: the running children, cancelled (what they stored stays as it is)."""
        self.closing = True
        self.stop_all()
        return [t.runner for t in self.tasks.values() if t.runner is not None and not t.runner.done()]

    # ---- inside ----------------------------------------------------------------------------------

    def _check(self, chain: tuple[str, ...], agent: str, task: str) -> AgentProfile:
        """The profile to run, or a ToolError saying why not and what to do. ``chain``: the chat's profile,
        then each delegated agent down to the one delegating now."""
        agent = agent.strip()
        if agent in chain:
            path = " → ".join((*chain, agent))
            raise ToolError(
                f"Not delegated: {path} is a loop ({agent!r} is already running this work: "
                f"{'this chat runs under it' if chain[0] == agent else 'it delegated this task'}). Do it here."
            )
        depth = len(chain) - 1  # the chat's own agent is depth 0
        if depth >= MAX_DEPTH:
            raise ToolError(
                f"Not delegated: agents delegate at most {MAX_DEPTH} levels deep and this one is at depth "
                f"{depth}. Do the task with your own tools."
            )
        if not task.strip():
            raise ToolError("Not delegated: the task is empty. Say what the agent should do.")
        if len(task) > MAX_TASK_CHARS:
            raise ToolError(f"Not delegated: the task is over {MAX_TASK_CHARS} characters; say it shorter.")
        catalog = profiles.load(self.parts.workspace, known_tools=[t.name for t in self.parts.tools])
        profile = catalog.find(agent)
        if profile is not None:
            return profile
        names = ", ".join(p.name for p in catalog.profiles)
        broken = [why for path, why in catalog.problems if Path(path).stem == agent]
        if broken:
            raise ToolError(
                f"The profile {agent!r} cannot be used: {broken[0]} Fix its file "
                f"({profiles.PROFILES_DIR.as_posix()}/{agent}.md) or use another: {names}."
            )
        raise ToolError(f"There is no agent profile {agent!r}. Profiles: {names}.")

    def _show(self, entry: _Task, ctx: AgentToolContext) -> None:
        if not ctx.agents:  # the chat shows its own tasks; a child's are in the child's session
            self.parts.emit(dict(entry.event))  # type: ignore[arg-type]

    async def _run(
        self, entry: _Task, ctx: AgentToolContext, profile: AgentProfile, task: str
    ) -> tuple[AgentTaskStatus, str]:
        event = entry.event
        try:
            outcome = await self._child(entry, ctx, profile, task)
            status, text = _summary(event, outcome, profile, self.budget)
        except asyncio.CancelledError:
            if not self.closing:
                status, text = "stopped", f"Task {event['task_id']} ({event['agent']}) was stopped by the user."
                await asyncio.shield(self._finish(entry, ctx, status, text))
            raise
        except ProviderError as exc:
            status, text = "failed", _failed(event, exc.message, "fix the provider settings, then delegate again")
        except Exception as exc:  # a bug must fail the task, not the parent's turn
            log.exception("task %s failed", event["task_id"])
            status, text = "failed", _failed(event, f"internal error: {type(exc).__name__}: {exc}", "report it")
        await self._finish(entry, ctx, status, text)
        return status, text

    async def _child(self, entry: _Task, ctx: AgentToolContext, profile: AgentProfile, task: str) -> ChildOutcome:
        parts = self.parts
        settings = parts.configuration.settings
        provider = parts.providers.configured()
        parent_mode = ctx.mode or parts.chat_mode()  # the parent's own mode: a chat's profile may narrow it
        mode = profiles.effective_mode(parent_mode, profile.permission_mode)
        gate = narrowed(parts.configuration.gate, settings.permission_mode, mode, profile.name)
        child = ChildParts(
            parts.workspace,
            parts.tools,
            provider,
            settings.model or "",
            gate,
            parts.approvals,
            parts.hooks,
            ctx.live.emit,  # the chat's, or the parent child's filter (its approvals go on up)
            parts.providers.context_tokens(),
            parts.providers.vision(),
            self.locks,
        )
        store = await parts.state.store()
        journal = SessionJournal(store, entry.event["session_id"], parts.state.flusher, parts.emit)
        rounds = min(profile.max_rounds or self.budget.rounds, 50)
        budget = Budget(rounds, self.budget.tokens, self.budget.wall_s)
        spec = ChildSpec(
            profile, task, entry.event["task_id"], entry.event["session_id"], entry.event["turn_id"], budget
        )
        return await run_child(spec, child, ctx, journal, _skills_block(parts.workspace, profile.skills), mode)

    async def _finish(self, entry: _Task, ctx: AgentToolContext, status: AgentTaskStatus, text: str) -> None:
        entry.text = text
        entry.event = {**entry.event, "status": status, "summary": text.split("\n", 1)[0]}
        opened = self.parts.state.opened
        try:
            if opened is not None:
                opened.store.agent_task_finish(entry.event["task_id"], status, text)
                if entry.event["background"]:  # a foreground task's end is saved with its call's result
                    await self.parts.state.save()
        except Exception as exc:  # the store closed under it (the page went away): the reload marks it
            log.warning("task %s could not be saved: %s", entry.event["task_id"], exc)
        self._show(entry, ctx)


def _skills_block(workspace: Path, skills: tuple[str, ...] | None) -> str:
    from runtime.prompts.gather import skills_block
    from runtime.skills.catalog import available_skills_block, list_skills

    if skills is None:
        return skills_block(workspace)
    try:
        return available_skills_block(tuple(s for s in list_skills(workspace) if s.name in skills))
    except Exception as exc:  # a broken skills folder must not stop the agent
        log.warning("listing the skills failed: %s", exc)
        return ""


def _failed(event: AgentTask, why: str, what: str) -> str:
    return f"Task {event['task_id']} ({event['agent']}) failed: {why}\nWhat to do: {what}. It is not retried by itself."


_ENDINGS: dict[str, tuple[str, str]] = {
    "max_rounds": ("it used all {rounds} of its rounds without finishing", "give it a narrower task"),
    "tokens": ("it went over its budget of {tokens} tokens", "split the task into smaller ones"),
    "time": ("it ran past its {wall:.0f} s", "give it a smaller task"),
    "error": ("{error}", "fix what the error says, then delegate again"),
    "aborted": ("it was stopped", "delegate again if it is still needed"),
}


def _summary(
    event: AgentTask, outcome: ChildOutcome, profile: AgentProfile, budget: Budget
) -> tuple[AgentTaskStatus, str]:
    answer = outcome.answer
    if len(answer) > MAX_ANSWER_CHARS:
        answer = f"{answer[:MAX_ANSWER_CHARS]}\n… [{len(answer) - MAX_ANSWER_CHARS} more characters in its session]"
    cost = f", cost ${outcome.cost:.4f}" if outcome.cost else ""
    files = ", ".join(outcome.files) or "none"
    facts = f"Rounds: {outcome.rounds}, tokens: {outcome.tokens}{cost}. Files changed: {files}."
    if profile.warnings:  # what of the profile's file was left out (a tool that is not here, …)
        facts += f" Its profile: {' '.join(profile.warnings)}"
    if outcome.reason == "stop":
        head = f"Task {event['task_id']} ({event['agent']}) done."
        return "done", f"{head}\n{facts}\nAnswer:\n{answer or '(no text)'}"
    why, what = _ENDINGS.get(str(outcome.reason), ("it ended: {error}", "delegate again if needed"))
    rounds = min(profile.max_rounds or budget.rounds, 50)
    why = why.format(rounds=rounds, tokens=budget.tokens, wall=budget.wall_s, error=outcome.error or "an error")
    status: AgentTaskStatus = "stopped" if outcome.reason == "aborted" else "failed"
    text = _failed(event, why, what) if status == "failed" else f"Task {event['task_id']} ({event['agent']}) {why}."
    partial = f"\nWhat it said last:\n{answer}" if answer else ""
    return status, f"{text}\n{facts}{partial}"
