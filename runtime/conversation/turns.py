"""The turn runner: one turn at a time, each its own task (so ``abort`` can cancel it at any await
point), built from the current settings, and a stored turn that waited for approval resumed.

Each turn's system prompt and tools are planned against the model's window (``runtime.prompts.fit``):
a small window gets the compact prompt and the reduced tool set — the turn offers, and looks calls up
in, that view of the registry — and a note says so once."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from runtime.agent.approvals import Approvals
from runtime.agent.context import TRIGGER, ContextWindow, Ready
from runtime.agent.images import ImageRefused, check_attachments
from runtime.agent.loop import Resume, TurnDeps, failed_turn, run_turn
from runtime.agent.tool_context import AgentToolContext
from runtime.agents.gate import narrowed
from runtime.agents.turn import ProfileMissing, TurnAgent, general, turn_agent
from runtime.agents.write_locks import WriteLocks
from runtime.chat.history import tokens_at_least
from runtime.chat.messages import ImagePart, ToolCall
from runtime.conversation.context_meter import streamed_tokens
from runtime.conversation.offer import MAX_OFFER_BYTES, OfferParts, build_offer
from runtime.conversation.prepared import Prepared, Preparer, build_ready, workspace_stamp
from runtime.conversation.providers import ProviderCache
from runtime.conversation.settings import Configuration
from runtime.errors import ProviderError
from runtime.host.messages import Event, ImageAttachment
from runtime.host.presend import Presends, Sent
from runtime.persist.branch import supersede_turn
from runtime.persist.restore import Resumable
from runtime.persist.state import State
from runtime.policy.hooks import Hooks
from runtime.prompts.agent import ProfilePrompt
from runtime.prompts.fit import PromptPlan, compact_notice, plan_prompt
from runtime.prompts.gather import slash_skill
from runtime.prompts.workspace_map import Listing, MapWalk, listed_map
from runtime.providers.lazy import LazyProvider
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnParts:
    """What every turn is built from, besides the settings of the moment."""

    workspace: Path
    tools: Registry
    context: AgentToolContext
    approvals: Approvals
    hooks: Hooks
    max_rounds: int
    emit: Callable[[Event], None]
    locks: WriteLocks = field(default_factory=WriteLocks)  # the delegated children's: writes to a file in turn


class TurnRunner:
    def __init__(
        self,
        parts: TurnParts,
        configuration: Configuration,
        providers: ProviderCache,
        state: State,
        session_ready: Callable[[], Awaitable[None]],
    ) -> None:
        self._parts = parts
        self._configuration = configuration
        self._providers = providers
        self._state = state
        self._session_ready = session_ready
        self.task: asyncio.Task[None] | None = None
        self._turn_id: str | None = None
        self._turn_ids = (f"t{n}-{secrets.token_hex(3)}" for n in itertools.count(1))  # unique across restarts
        self._compact_told = False  # the note on the compact prompt was shown (again once it goes away and back)
        self.busy: Callable[[], bool] = lambda: False  # besides a turn: a request or a session switch runs
        self.presends: Presends | None = None  # the host sends the offered request at Send (host/presend.py)
        self.preparer = Preparer(
            self._request_key,
            self._prepare_parts,
            lambda: parts.context.on_demand.for_prompt(MapWalk(parts.workspace)),
            lambda: self.busy(),
            lambda: self.running,
            self._offer,
        )

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def running_id(self) -> str | None:
        """The running turn's id, or ``None``."""
        return self._turn_id if self.running else None

    def start(
        self,
        text: str,
        turn_id: str | None,
        replaces: str | None = None,
        images: list[ImageAttachment] | None = None,
        attached: bool = False,
        sent: Sent | None = None,
    ) -> None:
        """Start a turn; ``replaces``: the stored turn it replaces with every later one (an edit, a regenerate);
        ``images``: what the message carries (refused as a whole turn's error when one cannot go); the request
        prepared before Send is used unless it is an edit, a regenerate or carries attachments (``attached``);
        ``sent``: the request the host sent at Send, which the turn's first request takes or cancels."""
        turn_id = turn_id or next(self._turn_ids)
        if sent is not None and (self.running or images):
            sent.release()
            sent = None
        if self.running:
            self._parts.emit(
                {
                    "kind": "error",
                    "turn_id": turn_id,
                    "code": "busy",
                    "message": "A turn is already running. Wait for it, or stop it first.",
                    "retryable": True,
                }
            )
            return
        try:
            parts = check_attachments(images or [])
        except ImageRefused as exc:
            self._fail(turn_id, "image_refused", f"{exc} Nothing was sent.")
            return
        fresh = bool(replaces or images or attached)
        self._launch(turn_id, lambda started: self._run(turn_id, text, started, None, replaces, parts, not fresh, sent))
        if sent is not None and self.task is not None:
            self.task.add_done_callback(lambda _: sent.release())  # a turn that ended before its request

    def resume(self, resumable: Resumable) -> None:
        """Go on with a stored turn that waited for approval when the page went away."""
        self._parts.approvals.expect(resumable.ask_first)
        resume = Resume(resumable.calls, resumable.ask_first)
        self._launch(resumable.turn_id, lambda started: self._run(resumable.turn_id, None, started, resume))

    def abort(self) -> None:
        if self.running and self.task:
            log.info("aborting the running turn")
            self.task.cancel()

    async def stop(self) -> None:
        """Stop the running turn as if the page went away (its stored state stays as it is)."""
        turn = self.task
        if turn and not turn.done():
            turn.cancel()
            await asyncio.wait([turn], timeout=5.0)

    def turn_agent(self) -> TurnAgent:
        """The open session's agent profile as the next turn runs it; raises ``ProfileMissing``."""
        opened, sid = self._state.opened, self._state.session_id
        mode = self._configuration.settings.permission_mode
        if opened is None or sid is None:
            return general(self._parts.tools, mode)
        return turn_agent(self._parts.workspace, self._parts.tools, opened.store.session_agent(sid), mode)

    def chat_mode(self) -> str:
        """The permission mode the chat's turns run under (its profile's, never wider than the chat's)."""
        try:
            return self.turn_agent().mode
        except ProfileMissing:
            return self._configuration.settings.permission_mode

    def prompt_plan(self, agent: TurnAgent | None = None, listed: Listing | None = None) -> PromptPlan:
        """The system prompt and tools for the next request (under ``agent``, else the session's profile;
        ``general`` when that is missing), planned against the model's window; ``listed``: the workspace map
        when the caller just read it."""
        if agent is None:
            try:
                agent = self.turn_agent()
            except ProfileMissing:
                agent = general(self._parts.tools, self._configuration.settings.permission_mode)
        opened = self._state.opened
        pinned = [m.text for m in opened.store.memory_pinned()] if opened is not None else []
        window = self._providers.context_tokens()
        p = agent.profile
        part = ProfilePrompt(p.name, p.description, p.prompt, p.skills)
        return plan_prompt(self._parts.workspace, agent.tools, agent.mode, pinned, window, part, listed)

    def _request_key(self) -> tuple[object, ...] | None:
        """Everything a plain turn's first request is built from (``conversation.prepared``); None: no session."""
        opened, journal = self._state.opened, self._state.journal
        if opened is None or journal is None:
            return None
        tools = self._parts.tools
        providers = self._providers
        return (
            journal,
            opened.store,
            opened.store.changes,
            self._configuration.settings,
            providers.context_tokens(),
            providers.vision(),
            tools.version,
            workspace_stamp(self._parts.workspace),
        )

    def _prepared(self, use: bool, text: str | None) -> Prepared | None:
        """The request prepared before Send, when this turn may use it and it is current (else dropped)."""
        if not use or text is None or text.startswith("/"):  # a /skill turn runs its call first
            self.preparer.drop()
            return None
        return self.preparer.take()

    def _prepare_parts(self) -> tuple[PromptPlan, Ready] | None:
        """The next plain turn's request; None for a context over the compaction trigger (that turn stores
        its message and compacts first, so nothing prepared would be used): told by the stored size, and when
        that may be over the trigger, by the exact count read a batch at a time (the view is never held whole)."""
        journal = self._state.journal
        if journal is None:
            return None
        plan = self.prompt_plan()
        limit = int(TRIGGER * plan.window)
        if tokens_at_least(*journal.context_size()) > limit:
            tools = plan.tools.openai_tools(self._parts.workspace)
            if streamed_tokens(journal, plan.text, tools) > limit:
                return None
        return plan, build_ready(plan, journal.context(), self._parts.workspace)

    async def _offer(self, prepared: Prepared | None) -> None:
        """Offer the host the first request a plain message would send now (``conversation.offer``)."""
        presends, journal = self.presends, self._state.journal
        if presends is None or not presends.enabled:
            return
        if prepared is None or journal is None or self.running:
            presends.withdraw()
            return
        try:
            provider = self._providers.configured()
            agent = self.turn_agent()
        except (ProviderError, ProfileMissing):
            presends.withdraw()
            return
        made_of, told = (prepared, self._configuration.settings), presends.told
        if presends.again(made_of):  # the host dropped the last offer for a message that changed nothing here
            return
        if journal.context_size()[1] > MAX_OFFER_BYTES:  # not built at all: its JSON alone would cost a while
            presends.withdraw()
            return
        plan, workspace = prepared.plan, self._parts.context.workspace
        model = agent.model(self._configuration.settings.model) or ""
        # As the turn's own window (agent.loop): its notices never come, as an offer needs no compaction.
        on_demand, vision = self._parts.context.on_demand, self._providers.vision()
        window = ContextWindow(provider, model, plan.window, journal, lambda _: None, vision, workspace, on_demand)
        built = await build_offer(OfferParts(window, plan.text, prepared.ready, self._providers.fresh), presends.rpc)
        if self.running or self.busy() or presends.told != told:  # something began or changed meanwhile: it
            return  # prepares again when that ends (the host dropped the last offer when it sent the message)
        if built is None:
            presends.withdraw()
        else:
            presends.offer(*built, made_of)

    def _planned(
        self, turn_id: str, agent: TurnAgent, prepared: PromptPlan | None = None, listed: Listing | None = None
    ) -> PromptPlan | None:
        """This turn's plan, the note when the compact prompt comes into use; None: the turn failed."""
        try:
            plan = prepared or self.prompt_plan(agent, listed)
        except Exception as exc:
            log.exception("rendering the system prompt failed")
            self._fail(turn_id, "internal", f"The system prompt could not be built: {exc}. Reload the page.")
            return None
        if plan.compact and not self._compact_told:
            self._parts.emit({"kind": "notice", "code": "compact_prompt", "text": compact_notice(plan)})
        self._compact_told = plan.compact
        return plan

    def _launch(self, turn_id: str, work: Callable[[list[bool]], Awaitable[None]]) -> None:
        started: list[bool] = []
        self._turn_id = turn_id
        self.task = asyncio.ensure_future(work(started))
        self.task.add_done_callback(lambda task: self._done(task, turn_id, started))
        self.task.add_done_callback(lambda _: self.preparer.soon())  # the next turn's request

    async def _run(
        self,
        turn_id: str,
        text: str | None,
        started: list[bool],
        resume: Resume | None = None,
        replaces: str | None = None,
        images: tuple[tuple[ImagePart, bytes], ...] = (),
        use_prepared: bool = False,
        sent: Sent | None = None,
    ) -> None:
        started.append(True)
        if sent is not None:
            sent.use_in_this_task()
        await self._session_ready()
        journal = self._state.journal
        if journal is None:
            self._fail(turn_id, "internal", "No session could be opened. Reload the page.")
            return
        settings = self._configuration.settings
        try:  # a resumed turn needs the provider only after the approval it waits for
            provider = (
                LazyProvider(self._providers.provider, lambda: self._configuration.settings.model)
                if resume
                else self._providers.configured()
            )
        except ProviderError as exc:
            self._fail(turn_id, "not_configured", exc.message)
            return
        prepared = self._prepared(use_prepared, text)
        listed = None
        if prepared is None:  # a current prepared request was built with what its prompt reads listed (its key
            # holds the workspace map): listing it again would walk the map once more on the way to the request
            listed = await listed_map(self._parts.workspace, self._parts.context.on_demand.for_prompt)
        try:
            agent = self.turn_agent()
        except ProfileMissing as exc:
            self._fail(turn_id, "agent_missing", str(exc))
            return
        plan = self._planned(turn_id, agent, prepared.plan if prepared else None, listed)
        if plan is None:
            return
        parts = self._parts
        model = agent.model(settings.model)
        deps = TurnDeps(
            provider,
            model or "",
            parts.locks.registry(plan.tools),  # a write waits for a background child's write to the same file
            narrowed(self._configuration.gate, settings.permission_mode, agent.mode, agent.profile.name),
            parts.context,
            parts.emit,
            parts.approvals,
            journal,
            hooks=parts.hooks,
            max_rounds=agent.profile.max_rounds or parts.max_rounds,
            context_tokens=plan.window,  # the window the prompt was planned for
            vision=self._providers.vision(),
        )
        if model:
            journal.note_model(model)
        slash = slash_skill(text, parts.workspace) if text is not None and "activate_skill" in plan.tools else None
        first = (ToolCall(f"slash_{turn_id}", "activate_skill", json.dumps({"name": slash})),) if slash else ()
        if replaces:  # an edit or a regenerate: that turn and the later ones become an earlier branch
            supersede_turn(journal, replaces)
        ready = prepared.ready if prepared and not first else None
        await run_turn(deps, turn_id, text, plan.text, first, resume, images, ready)

    def _fail(self, turn_id: str, code: str, message: str) -> None:
        """A turn that could not start: still a whole turn for the UI (started, error, finished)."""
        for event in failed_turn(turn_id, code, message):
            self._parts.emit(event)

    def _done(self, task: asyncio.Task[None], turn_id: str, started: list[bool]) -> None:
        if task.cancelled() and not started:  # aborted before it began
            self._parts.emit({"kind": "turn_started", "turn_id": turn_id})
            self._parts.emit({"kind": "turn_finished", "turn_id": turn_id, "reason": "aborted"})
        elif not task.cancelled() and task.exception():
            log.error("turn %s crashed: %r", turn_id, task.exception())
