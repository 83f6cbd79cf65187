"""One conversation with the host: the message pump and the handshake, wiring the pieces together.

``Conversation.run`` reads messages until the host goes away. Each message is checked once at the
boundary (``parse_host_message``); answers to the runtime's own requests go to the RPC layer; the
rest goes to its piece: ``config`` to the settings (``settings.Configuration``), turns and aborts to
the turn runner (``turns.TurnRunner``), approvals to ``Approvals``, host ``request``s to
``runtime.requests.dispatch``. The state store opens right after ``ready``; then the session
switcher (``switcher.SessionSwitcher``) opens the latest stored session (or ``session_id``), and a
turn that waited for approval when the page went away resumes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from runtime import __version__
from runtime.agent.approvals import Approvals
from runtime.agent.tool_context import AgentToolContext
from runtime.agents.delegation import Delegation, DelegationParts
from runtime.agents.write_locks import WriteLocks
from runtime.conversation.context_meter import ContextMeter
from runtime.conversation.prepared import EVENT_SETTLE_S, OPENED_SETTLE_S, PREPARE_DELAY_S
from runtime.conversation.providers import ProviderCache
from runtime.conversation.settings import Configuration, GateFactory
from runtime.conversation.switcher import SessionSwitcher
from runtime.conversation.turns import TurnParts, TurnRunner
from runtime.host.codec import Message
from runtime.host.constants import PROTOCOL_VERSION
from runtime.host.http import HttpClient
from runtime.host.messages import Config, Error, Event, HostMessage
from runtime.host.presend import CAPABILITY as PRESEND
from runtime.host.presend import Presends
from runtime.host.rpc import RESPONSE_TYPES, Rpc
from runtime.host.transport import Transport
from runtime.host.validate import BadMessage, parse_host_message
from runtime.host.workspace_fetch import CAPABILITY, OnDemand
from runtime.persist.state import State
from runtime.policy.hooks import Hooks
from runtime.prompts.gather import warm_up
from runtime.providers.registry import ProviderRegistry
from runtime.requests.dispatch import Requests
from runtime.requests.ports import Ports
from runtime.store import Store
from runtime.tools.mcp import ToolServers
from runtime.tools.mcp_prompts import prompt_turn_text
from runtime.tools.mcp_resources import with_resources
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)

CAPABILITIES = ["http", "events", "approvals", "list_models", "sessions", "memory", "skills", "flush"]


class Conversation:
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
        self.tool_servers = ToolServers(tools)
        self.workspace = workspace
        self._host_capabilities: frozenset[str] = frozenset()
        on_demand = OnDemand(self.rpc, lambda: CAPABILITY in self._host_capabilities)  # the one for this workspace
        self.state = State(state_dir, self.rpc, self.emit, lambda: "flush" in self._host_capabilities)
        self.context = AgentToolContext(
            workspace, self.rpc, self.http, self.state.flusher.workspace, self._open_store, on_demand=on_demand
        )
        self.context.live.emit = self.emit  # run_python's output as it comes
        self.context.session_id = lambda: self.state.session_id  # whose turn a checkpoint belongs to
        self.approvals = Approvals()
        self.configuration = Configuration(gate_factory)
        self.providers = ProviderCache(providers, self.http, lambda: self.configuration.settings, self._open_store)
        hooks = hooks or Hooks()
        locks = WriteLocks()  # one per path: the chat's writes and its children's take turns
        parts = TurnParts(workspace, tools, self.context, self.approvals, hooks, max_rounds, self.emit, locks)
        self.delegation = Delegation(
            DelegationParts(
                workspace,
                tools,
                self.providers,
                self.configuration,
                lambda: self.turns.chat_mode(),
                self.state,
                self.approvals,
                hooks,
                self.emit,
                locks,
            )
        )
        self.context.delegation = self.delegation  # the delegate and task_result tools reach it here
        self.turns = TurnRunner(parts, self.configuration, self.providers, self.state, lambda: self.sessions.ready())
        self.sessions = SessionSwitcher(self.state, self.turns, self.approvals, tools, self.emit, session_id)
        self.turns.busy = self._busy
        self.presends = self.turns.presends = Presends(self.rpc, lambda: transport.heard)
        plan = partial(self.turns.prompt_plan, None)  # the session's agent, with the map the meter listed
        meter = ContextMeter(self.state, plan, workspace, on_demand, self.turns.preparer.ready)
        ports = Ports(self.state, self.sessions, self.providers, tools, workspace, on_demand, meter)
        self.requests = Requests(ports, transport.send, lambda: "files" in self._host_capabilities)
        self._handshaken = False
        self.on_close: list[Callable[[], None]] = []
        transport.answers = self._answer

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

    def emit(self, event: Event) -> None:
        self.transport.send({"type": "event", "event": event})
        if not self.turns.running:  # the host dropped its offer (a child's work may have changed the request)
            self.turns.preparer.soon(EVENT_SETTLE_S)

    def _open_store(self) -> Store | None:
        return self.state.opened.store if self.state.opened else None

    def _answer(self, raw: Message) -> bool:
        """An answer to one of the runtime's own requests, checked and handed to it the moment it is decoded
        (an HTTP chunk of the model's reply goes to the turn without a turn of the message pump); ``False``:
        anything else, or a bad answer, which the pump handles and reports."""
        if raw.get("type") not in RESPONSE_TYPES:
            return False
        try:
            message = parse_host_message(raw)
        except BadMessage:
            return False
        return message is not None and self.rpc.dispatch(raw)

    def _receive(self, raw: Message) -> bool:
        """Handle one message; ``False`` ends the conversation."""
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
        self.presends.told += 1
        self._handle(message)
        if message["type"] != "user_message":  # whatever it changed: the next turn's request is prepared again
            opened = message["type"] == "request" and message["method"] == "session_open"
            self.turns.preparer.soon(OPENED_SETTLE_S if opened else PREPARE_DELAY_S)
        return True

    def _busy(self) -> bool:
        """A request or the session's opening is under way (the request is prepared after them)."""
        activation = self.sessions.activation
        return bool(self.requests.running()) or (activation is not None and not activation.done())

    def _handle(self, message: HostMessage) -> None:
        if message["type"] == "config":
            self._configure(message)
        elif message["type"] == "user_message":
            text = prompt_turn_text(message["text"], message.get("prompt"))
            text = with_resources(text, message.get("resources"))
            attached = bool(message.get("resources"))
            images = message.get("images")
            sent = self.presends.presented(message.get("presend"))  # before any answer to it is read
            self.turns.start(text, message.get("turn_id"), message.get("replaces_turn"), images, attached, sent)
        elif message["type"] == "exec_output":
            self.context.live.output(message)
        elif message["type"] == "abort_turn":
            self.turns.abort()
            self.delegation.stop_all()  # Stop stops the children too
        elif message["type"] == "approval":
            self.approvals.resolve(message["call_id"], message["decision"])
        elif message["type"] == "request":
            self.requests.start(message)
        elif message["type"] == "mcp_tools":
            accepted, refused = self.tool_servers.update(message["server"], message["tools"])
            result = {"accepted": accepted, "refused": [{"name": r.name, "reason": r.reason} for r in refused]}
            self.transport.send({"type": "reply", "id": message["id"], "ok": True, "result": result})
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
        self.presends.enabled = PRESEND in self._host_capabilities
        self.emit({"kind": "ready", "models_known": False, "tools": self.tools.catalog()})
        self.state.start()  # opens right after the ready frame went out
        self.sessions.open_initial()
        asyncio.get_running_loop().call_later(0.05, warm_up)
        return True

    def _configure(self, message: Config) -> None:
        change = self.configuration.apply(message)
        if change.provider_changed:
            self.providers.forget()

    def _send_error(self, code: str, message: str, request_id: Any = None) -> None:
        error: Error = {"type": "error", "code": code, "message": message}
        if isinstance(request_id, str):
            error["id"] = request_id
        self.transport.send(error)

    async def _shutdown(self) -> None:
        self.turns.preparer.close()
        self.state.detach()  # the host went away: the stored turn stays as it was, like after a reload
        running = [self.turns.task, self.sessions.activation, *self.requests.running(), *self.delegation.close()]
        tasks = [t for t in running if t and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        self.state.close()
        await self.transport.close()
        for callback in self.on_close:
            callback()
