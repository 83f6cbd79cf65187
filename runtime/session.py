"""One conversation with the host: handshake, settings, turns, approvals and host requests.

``Session.run`` reads messages until the host goes away. Each message is checked once at the boundary
(``parse_host_message``); answers to the runtime's own requests go to the RPC layer; the rest is handled
here. A turn runs as its own task so ``abort_turn`` can cancel it at any await point.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from runtime import PROTOCOL_VERSION, __version__
from runtime.agent.approvals import Approvals
from runtime.agent.gate import Gate
from runtime.agent.loop import TurnDeps, run_turn
from runtime.agent.messages import ChatMessage, ToolCall, UserMessage
from runtime.agent.tool_context import AgentToolContext
from runtime.errors import ProviderError
from runtime.host.codec import Message
from runtime.host.http import HttpClient
from runtime.host.messages import BadMessage, Config, Event, HostMessage, Request, parse_host_message
from runtime.host.rpc import Rpc
from runtime.host.transport import Transport
from runtime.policy.hooks import Hooks
from runtime.prompts.gather import slash_skill, system_prompt, warm_up
from runtime.providers.base import Provider, ProviderSettings
from runtime.providers.registry import ProviderRegistry, UnknownProvider
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)

CAPABILITIES = ["http", "events", "approvals", "list_models"]
GateFactory = Callable[[str], Gate]


@dataclass(frozen=True)
class Settings:
    provider: ProviderSettings | None = None
    model: str | None = None
    permission_mode: str = "ask"


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
    ) -> None:
        self.transport = transport
        self.rpc = Rpc(transport)
        self.http = HttpClient(self.rpc)
        self.tools = tools
        self.providers = providers
        self.workspace = workspace
        self.context = AgentToolContext(workspace, self.rpc, self.http)
        self.approvals = Approvals()
        self.history: list[ChatMessage] = []
        self.settings = Settings()
        self._gate_factory = gate_factory
        self.gate = gate_factory("ask")
        self.max_rounds = max_rounds
        self.hooks = hooks or Hooks()
        self._provider: Provider | None = None
        self._turn: asyncio.Task[None] | None = None
        self._requests: dict[str, asyncio.Task[None]] = {}
        self._turn_ids = itertools.count(1)
        self._handshaken = False
        self.on_close: list[Callable[[], None]] = []

    # ---- the message pump ---------------------------------------------------------------------------

    async def run(self) -> None:
        self.transport.send(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "capabilities": CAPABILITIES,
                "agent": f"tidepool-runtime/{__version__}",
            }
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
            return self._hello(message["protocol"])
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
            self._start_request(message)
        elif message["type"] == "cancel":
            task = self._requests.get(message["id"])
            if task:
                task.cancel()
        elif message["type"] == "error":
            log.warning("the host reported an error: %s: %s", message["code"], message["message"])
        else:
            log.debug("nothing to do with a %r message here", message["type"])

    def _hello(self, protocol: int) -> bool:
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
        self.emit({"kind": "ready", "models_known": False, "tools": self.tools.catalog()})
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
        settings = self.settings
        if "provider" in message:
            p = message["provider"]
            settings = replace(settings, provider=ProviderSettings(p["kind"], p["base_url"], p["has_key"]))
            self._provider = None
        if "page_origin" in message and settings.provider:
            settings = replace(settings, provider=replace(settings.provider, page_origin=message["page_origin"]))
            self._provider = None
        if "model" in message:
            settings = replace(settings, model=message["model"])
        if "permission_mode" in message and message["permission_mode"] != settings.permission_mode:
            settings = replace(settings, permission_mode=message["permission_mode"])
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

    # ---- turns ----------------------------------------------------------------------------------------

    def _start_turn(self, text: str, turn_id: str | None) -> None:
        turn_id = turn_id or f"t{next(self._turn_ids)}"
        if self._turn and not self._turn.done():
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
        started: list[bool] = []
        self._turn = asyncio.ensure_future(self._run_turn(turn_id, text, started))
        self._turn.add_done_callback(lambda task: self._turn_done(task, turn_id, started))

    async def _run_turn(self, turn_id: str, text: str, started: list[bool]) -> None:
        started.append(True)
        try:
            provider = self.provider()
            if not self.settings.model:
                raise ProviderError("bad_request", "No model is selected. Choose one in Settings.", retryable=False)
        except ProviderError as exc:
            self._fail_turn(turn_id, "not_configured", exc.message)
            return
        try:
            prompt = self.system_prompt()
        except Exception as exc:
            log.exception("rendering the system prompt failed")
            self._fail_turn(turn_id, "internal", f"The system prompt could not be built: {exc}. Reload the page.")
            return
        self.history.append(UserMessage(text))
        deps = TurnDeps(
            provider,
            self.settings.model,
            self.tools,
            self.gate,
            self.context,
            self.emit,
            self.approvals,
            hooks=self.hooks,
            max_rounds=self.max_rounds,
        )
        await run_turn(deps, turn_id, self.history, prompt, self._slash_calls(text, turn_id))

    def _slash_calls(self, text: str, turn_id: str) -> tuple[ToolCall, ...]:
        """``/skill-name …`` activates that skill before the model answers."""
        name = slash_skill(text, self.workspace) if "activate_skill" in self.tools else None
        return (ToolCall(f"slash_{turn_id}", "activate_skill", json.dumps({"name": name})),) if name else ()

    def _fail_turn(self, turn_id: str, code: str, message: str) -> None:
        """A turn that could not start: still a whole turn for the UI (started, error, finished)."""
        self.emit({"kind": "turn_started", "turn_id": turn_id})
        self.emit({"kind": "error", "turn_id": turn_id, "code": code, "message": message, "retryable": False})
        self.emit({"kind": "turn_finished", "turn_id": turn_id, "reason": "error"})

    def _turn_done(self, task: asyncio.Task[None], turn_id: str, started: list[bool]) -> None:
        if task.cancelled() and not started:  # aborted before it began
            self.emit({"kind": "turn_started", "turn_id": turn_id})
            self.emit({"kind": "turn_finished", "turn_id": turn_id, "reason": "aborted"})
        elif not task.cancelled() and task.exception():
            log.error("turn %s crashed: %r", turn_id, task.exception())

    def _abort_turn(self) -> None:
        if self._turn and not self._turn.done():
            log.info("aborting the running turn")
            self._turn.cancel()

    def system_prompt(self) -> str:
        return system_prompt(self.workspace, self.tools.catalog(), self.settings.permission_mode)

    # ---- host requests --------------------------------------------------------------------------------

    def _start_request(self, message: Request) -> None:
        request_id = message["id"]
        handler = self._methods().get(message["method"])
        if handler is None:
            self._reply(request_id, error={"code": "unknown_method", "message": f"no method {message['method']!r}"})
            return
        task = asyncio.ensure_future(self._answer(request_id, handler(message.get("params") or {})))
        self._requests[request_id] = task
        task.add_done_callback(lambda _: self._requests.pop(request_id, None))

    def _methods(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[Any]]]:
        return {"ping": self._ping, "list_models": self._list_models, "new_session": self._new_session}

    async def _answer(self, request_id: str, work: Awaitable[Any]) -> None:
        try:
            result = await work
        except ProviderError as exc:
            self._reply(request_id, error={"code": exc.code, "message": exc.message, "retryable": exc.retryable})
        except asyncio.CancelledError:
            self._reply(request_id, error={"code": "cancelled", "message": "the request was cancelled"})
        except Exception as exc:
            log.exception("request %s failed", request_id)
            self._reply(request_id, error={"code": "internal", "message": f"{type(exc).__name__}: {exc}"})
        else:
            self._reply(request_id, result=result)

    def _reply(self, request_id: str, *, result: Any = None, error: dict[str, Any] | None = None) -> None:
        if error is None:
            self.transport.send({"type": "reply", "id": request_id, "ok": True, "result": result})
        else:
            self.transport.send({"type": "reply", "id": request_id, "ok": False, "error": error})

    async def _ping(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"pong": True, "version": __version__}

    async def _list_models(self, params: dict[str, Any]) -> dict[str, Any]:
        override = None
        p = params.get("provider")
        if isinstance(p, dict) and isinstance(p.get("kind"), str):
            origin = self.settings.provider.page_origin if self.settings.provider else None
            override = ProviderSettings(p["kind"], str(p.get("base_url") or ""), bool(p.get("has_key")), origin)
        models = await self.provider(override).list_models()
        return {"models": [m.as_dict() for m in models]}

    async def _new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self._abort_turn()
        self.history = []
        return {"ok": True}

    async def _shutdown(self) -> None:
        tasks = [t for t in [self._turn, *self._requests.values()] if t and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        await self.transport.close()
        for callback in self.on_close:
            callback()
