"""One conversation with the host: handshake, settings, turns, approvals, stored sessions, requests.

``Session.run`` reads messages until the host goes away. Each message is checked once at the boundary
(``parse_host_message``); answers to the runtime's own requests go to the RPC layer; the rest is handled
here. A turn runs as its own task so ``abort_turn`` can cancel it at any await point. The state store
opens right after ``ready``; then the latest stored session (or ``session_id``) becomes the
conversation, and a turn that waited for approval when the page went away resumes. Host ``request``s
go through ``runtime.requests.dispatch``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from runtime import PROTOCOL_VERSION, __version__
from runtime.agent.approvals import Approvals
from runtime.agent.context import DEFAULT_CONTEXT_TOKENS
from runtime.agent.gate import Gate
from runtime.agent.loop import Resume, TurnDeps, failed_turn, run_turn
from runtime.agent.messages import ChatMessage, ToolCall
from runtime.agent.tool_context import AgentToolContext
from runtime.errors import ProviderError
from runtime.host.codec import Message
from runtime.host.http import HttpClient
from runtime.host.messages import BadMessage, Config, Event, HostMessage, parse_host_message
from runtime.host.rpc import Rpc
from runtime.host.transport import Transport
from runtime.persist.display import session_view
from runtime.persist.history import chat_history
from runtime.persist.restore import Resumable
from runtime.persist.state import State
from runtime.policy.hooks import Hooks
from runtime.prompts.gather import slash_skill, system_prompt, warm_up
from runtime.providers.base import ModelInfo, Provider, ProviderSettings
from runtime.providers.lazy import LazyProvider
from runtime.providers.registry import ProviderRegistry, UnknownProvider
from runtime.requests.dispatch import Requests
from runtime.settings import Settings, apply_config
from runtime.store import Store, StoreError
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)

CAPABILITIES = ["http", "events", "approvals", "list_models", "sessions", "memory", "skills", "flush"]
GateFactory = Callable[[str], Gate]


class Session:
    def __init__(
        self,
        transport: Transport,
        *,
        workspace: Path,
        tools: Registry,
        providers: ProviderRegistry,
        gate_factory: GateFactory,
        max_rounds: int,
        hooks: Hooks | None = None,
        state_dir: Path | None = None,
        session_id: str | None = None,
    ) -> None:
        self.transport = transport
        self.rpc = Rpc(transport)
        self.http = HttpClient(self.rpc)
        self.tools = tools
        self.providers = providers
        self.workspace = workspace
        self._host_capabilities: frozenset[str] = frozenset()
        self.state = State(state_dir, self.rpc, self.emit, lambda: "flush" in self._host_capabilities)
        self.context = AgentToolContext(
            workspace, self.rpc, self.http, self.state.flusher.workspace, lambda: self._open_store()
        )
        self.approvals = Approvals()
        self.settings = Settings()
        self._initial_session = session_id
        self._activation: asyncio.Task[None] | None = None
        self._context_lengths: dict[str, int] = {}
        self._gate_factory = gate_factory
        self.gate = gate_factory("ask")
        self.max_rounds = max_rounds
        self.hooks = hooks or Hooks()
        self._provider: Provider | None = None
        self._turn: asyncio.Task[None] | None = None
        self._turn_id: str | None = None
        self.requests = Requests(self)
        self._turn_ids = (f"t{n}-{secrets.token_hex(3)}" for n in itertools.count(1))  # unique across restarts
        self._handshaken = False
        self.on_close: list[Callable[[], None]] = []

    # ---- the message pump ---------------------------------------------------------------------------

    async def run(self) -> None:
        agent = f"tidepool-runtime/{__version__}"
        self.transport.send(
            {"type": "hello", "protocol": PROTOCOL_VERSION, "capabilities": CAPABILITIES, "agent": agent}
        )
        try:
            async for raw in self.transport.messages():
                if not self._receive(raw):
                    break
        finally:
            await self._shutdown()

    def _receive(self, raw: Message) -> bool:
        """Handle one message; ``False`` ends the session."""
        try:
            message = parse_host_message(raw)
        except BadMessage as exc:
            log.warning("%s", exc)
            self._send_error("bad_message", str(exc), exc.request_id)
            if exc.request_id:  # a broken answer to one of our requests fails that request now
                self.rpc.dispatch({"type": "error", "id": exc.request_id, "code": "bad_message", "message": str(exc)})
            return True
        if message is None or self.rpc.dispatch(raw):
            return True
        if message["type"] == "hello":
            return self._hello(message["protocol"], message.get("capabilities") or [])
        if not self._handshaken:
            self._send_error("handshake_required", f"send hello before {message['type']!r}", raw.get("id"))
            return True
        self._handle(message)
        return True

    def _handle(self, message: HostMessage) -> None:
        if message["type"] == "config":
            self._configure(message)
        elif message["type"] == "user_message":
            self._start_turn(message["text"], message.get("turn_id"))
        elif message["type"] == "abort_turn":
            self._abort_turn()
        elif message["type"] == "approval":
            self.approvals.resolve(message["call_id"], message["decision"])
        elif message["type"] == "request":
            self.requests.start(message)
        elif message["type"] == "cancel":
            self.requests.cancel(message["id"])
        elif message["type"] == "error":
            log.warning("the host reported an error: %s: %s", message["code"], message["message"])
        else:
            log.debug("nothing to do with a %r message here", message["type"])

    def _hello(self, protocol: int, capabilities: list[str]) -> bool:
        if protocol != PROTOCOL_VERSION:
            self._send_error(
                "protocol_mismatch",
                f"the host speaks protocol {protocol}, this runtime speaks {PROTOCOL_VERSION}; "
                "reload the page so both come from the same build",
            )
            return False
        if self._handshaken:
            log.warning("a second hello; ignored")
            return True
        self._handshaken = True
        self._host_capabilities = frozenset(capabilities)
        self.emit({"kind": "ready", "models_known": False, "tools": self.tools.catalog()})
        self.state.start()  # opens right after the ready frame went out
        self._activation = asyncio.ensure_future(self._activate_initial())
        self._activation.add_done_callback(_log_failure)
        asyncio.get_running_loop().call_later(0.05, warm_up)
        return True

    def emit(self, event: Event) -> None:
        self.transport.send({"type": "event", "event": event})

    def _send_error(self, code: str, message: str, request_id: Any = None) -> None:
        error: Message = {"type": "error", "code": code, "message": message}
        if isinstance(request_id, str):
            error["id"] = request_id
        self.transport.send(error)

    # ---- settings -----------------------------------------------------------------------------------

    def _configure(self, message: Config) -> None:
        change = apply_config(self.settings, message)
        settings = change.settings
        if change.provider_changed:
            self._provider = None
        if "package_index_urls" in message:
            self.context.package_index_urls = tuple(str(url) for url in message["package_index_urls"] or ())
        if change.mode_changed:
            set_mode = getattr(self.gate, "set_mode", None)
            if callable(set_mode):
                set_mode(settings.permission_mode)
            else:
                self.gate = self._gate_factory(settings.permission_mode)
        self.settings = settings
        log.info(
            "settings: provider=%s model=%s mode=%s",
            settings.provider.kind if settings.provider else None,
            settings.model,
            settings.permission_mode,
        )

    def provider(self, override: ProviderSettings | None = None) -> Provider:
        """The configured provider; raises ``ProviderError`` with advice when there is none."""
        settings = override or self.settings.provider
        if settings is None:
            raise ProviderError("bad_request", "No provider is configured. Choose one in Settings.", retryable=False)
        if override is None and self._provider is not None:
            return self._provider
        try:
            provider = self.providers.create(settings, self.http)
        except UnknownProvider:
            raise ProviderError(
                "bad_request", f"Unknown provider {settings.kind!r}. Choose one in Settings.", retryable=False
            ) from None
        if override is None:
            self._provider = provider
        return provider

    def _configured(self) -> Provider:
        provider = self.provider()
        if not self.settings.model:
            raise ProviderError("bad_request", "No model is selected. Choose one in Settings.", retryable=False)
        return provider

    def remember_models(self, models: list[ModelInfo]) -> None:
        """Context lengths from the provider's model list: the token budget of each model."""
        self._context_lengths.update({m.id: m.context_length for m in models if m.context_length})

    def context_tokens(self) -> int:
        model = self.settings.model or ""
        return self.settings.context_length or self._context_lengths.get(model) or DEFAULT_CONTEXT_TOKENS

    # ---- stored sessions ------------------------------------------------------------------------------

    def _open_store(self) -> Store | None:
        return self.state.opened.store if self.state.opened else None

    async def _activate_initial(self) -> None:
        try:
            repair = await self.state.activate(self._initial_session)
        except StoreError as exc:
            if exc.code != "not_found":
                raise
            self.emit({"kind": "notice", "code": "session_missing", "text": f"{exc.message} Opened the latest."})
            repair = await self.state.activate(None)
        self._opened_session(repair.resumable)

    async def _session_ready(self) -> None:
        """Wait for the boot-time session; a failure is logged (turns then fail with a message)."""
        if self._activation is not None:
            try:
                await asyncio.shield(self._activation)
            except Exception:
                log.debug("no session to work in (logged when opening it failed)")

    def _opened_session(self, resumable: Resumable | None) -> None:
        store, sid = self._open_store(), self.state.session_id
        if store is None or sid is None:
            return
        title = store.get_session(sid).title
        resumed = resumable.turn_id if resumable else None
        self.emit({"kind": "session_opened", "session_id": sid, "title": title, "resumed_turn": resumed})
        if resumable is not None:
            self.approvals.expect(resumable.ask_first)
            resume = Resume(resumable.calls, resumable.ask_first)
            self._launch(resumable.turn_id, lambda started: self._run_turn(resumable.turn_id, None, started, resume))

    async def switch_session(self, session_id: str | None, *, create: bool = False) -> dict[str, Any]:
        """Leave the current session (a running turn stops as if the page went away) and open another."""
        await self._session_ready()
        if session_id is not None:
            (await self.state.store()).get_session(session_id)  # not_found before anything changes
        await self.leave_session()
        repair = await self.state.activate(session_id, create=create)
        self._opened_session(repair.resumable)
        return self.session_view()

    async def leave_session(self) -> None:
        self.state.detach()
        self.approvals.clear()
        turn = self._turn
        if turn and not turn.done():
            turn.cancel()
            await asyncio.wait([turn], timeout=5.0)

    def session_view(self) -> dict[str, Any]:
        store, sid = self._open_store(), self.state.session_id
        if store is None or sid is None:
            raise StoreError("not_found", "No session is open yet.", entity="session")
        return session_view(store, sid, self.tools, self._turn_id if self.turn_running else None)

    @property
    def history(self) -> list[ChatMessage]:
        """The current session's conversation as stored (every message, summaries left out)."""
        store, sid = self._open_store(), self.state.session_id
        return chat_history(store.list_messages(sid)) if store and sid else []

    # ---- turns ----------------------------------------------------------------------------------------

    @property
    def turn_running(self) -> bool:
        return self._turn is not None and not self._turn.done()

    def _start_turn(self, text: str, turn_id: str | None) -> None:
        turn_id = turn_id or next(self._turn_ids)
        if self.turn_running:
            self.emit(
                {
                    "kind": "error",
                    "turn_id": turn_id,
                    "code": "busy",
                    "message": "A turn is already running. Wait for it, or stop it first.",
                    "retryable": True,
                }
            )
            return
        self._launch(turn_id, lambda started: self._run_turn(turn_id, text, started))

    def _launch(self, turn_id: str, work: Callable[[list[bool]], Awaitable[None]]) -> None:
        started: list[bool] = []
        self._turn_id = turn_id
        self._turn = asyncio.ensure_future(work(started))
        self._turn.add_done_callback(lambda task: self._turn_done(task, turn_id, started))

    async def _run_turn(
        self, turn_id: str, text: str | None, started: list[bool], resume: Resume | None = None
    ) -> None:
        started.append(True)
        await self._session_ready()
        journal = self.state.journal
        if journal is None:
            self._fail_turn(turn_id, "internal", "No session could be opened. Reload the page.")
            return
        try:  # a resumed turn needs the provider only after the approval it waits for
            provider = LazyProvider(self.provider, lambda: self.settings.model) if resume else self._configured()
        except ProviderError as exc:
            self._fail_turn(turn_id, "not_configured", exc.message)
            return
        try:
            prompt = self.system_prompt()
        except Exception as exc:
            log.exception("rendering the system prompt failed")
            self._fail_turn(turn_id, "internal", f"The system prompt could not be built: {exc}. Reload the page.")
            return
        deps = TurnDeps(
            provider,
            self.settings.model or "",
            self.tools,
            self.gate,
            self.context,
            self.emit,
            self.approvals,
            journal,
            hooks=self.hooks,
            max_rounds=self.max_rounds,
            context_tokens=self.context_tokens(),
        )
        if self.settings.model:
            journal.note_model(self.settings.model)
        slash = slash_skill(text, self.workspace) if text is not None and "activate_skill" in self.tools else None
        first = (ToolCall(f"slash_{turn_id}", "activate_skill", json.dumps({"name": slash})),) if slash else ()
        await run_turn(deps, turn_id, text, prompt, first, resume)

    def _fail_turn(self, turn_id: str, code: str, message: str) -> None:
        """A turn that could not start: still a whole turn for the UI (started, error, finished)."""
        for event in failed_turn(turn_id, code, message):
            self.emit(event)

    def _turn_done(self, task: asyncio.Task[None], turn_id: str, started: list[bool]) -> None:
        if task.cancelled() and not started:  # aborted before it began
            self.emit({"kind": "turn_started", "turn_id": turn_id})
            self.emit({"kind": "turn_finished", "turn_id": turn_id, "reason": "aborted"})
        elif not task.cancelled() and task.exception():
            log.error("turn %s crashed: %r", turn_id, task.exception())

    def _abort_turn(self) -> None:
        if self.turn_running and self._turn:
            log.info("aborting the running turn")
            self._turn.cancel()

    def system_prompt(self) -> str:
        store = self._open_store()
        pinned = [m.text for m in store.memory_pinned()] if store is not None else []
        return system_prompt(self.workspace, self.tools.catalog(), self.settings.permission_mode, pinned)

    async def _shutdown(self) -> None:
        self.state.detach()  # the host went away: the stored turn stays as it was, like after a reload
        tasks = [t for t in [self._turn, self._activation, *self.requests.running()] if t and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        self.state.close()
        await self.transport.close()
        for callback in self.on_close:
            callback()


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("opening the stored session failed", exc_info=task.exception())
