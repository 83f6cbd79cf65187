"""Conversation rigs: a conversation booted over an in-process host, driven with frames.

``Driver`` is what every rig can do (turns, requests). ``StateRig`` is a conversation with a state
directory, restartable, so tests can "reload the page".

``StateRig.start`` boots a conversation on ``state_dir`` with a scripted provider, the real permission
policy and a small tool set (a read tool, a write tool that asks in ``ask`` mode, the memory tools,
``activate_skill``); ``restart`` closes it (as the page going away) and boots a new one on the same
directory, with the same provider script object.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.boot import BootConfig, boot
from runtime.conversation.conversation import Conversation
from runtime.host.http import HttpClient
from runtime.host.validate import typed_dict_problem
from runtime.providers.base import ProviderEndpoint
from runtime.providers.registry import ProviderRegistry, builtin_providers
from runtime.requests.dispatch import methods
from runtime.tools import memory
from runtime.tools.base import ToolContext, ToolOutput, tool
from runtime.tools.registry import Registry
from runtime.tools.skills import activate_skill
from runtime.tools.traits import WorkspacePath
from tests.support.framehost import FrameHost, Responder
from tests.support.recording import RecordingHost
from tests.support.scripted import ScriptedProvider

Message = dict[str, Any]


@tool("read")
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value-of-{key}"


@tool("write")
def save_note(ctx: ToolContext, path: WorkspacePath, text: str) -> ToolOutput:
    """Save a note in the workspace."""
    (ctx.workspace / path).write_text(text)
    return ToolOutput(f"saved {path}", changed_paths=(path,))


def registry() -> Registry:
    return Registry([lookup, save_note, *memory.TOOLS, activate_skill])


class Driver:
    """Turns and host requests played over frames, for any rig with a ``host``."""

    host: RecordingHost

    def events(self, kind: str | None = None) -> list[Message]:
        return self.host.events(kind)

    async def finished(self, turn_id: str) -> Message:
        def done() -> Any:
            return next((e for e in self.host.events("turn_finished") if e["turn_id"] == turn_id), None)

        return await self.host.wait_for(done)  # type: ignore[no-any-return]

    async def turn(self, text: str, turn_id: str = "t1") -> Message:
        self.host.send({"type": "user_message", "text": text, "turn_id": turn_id})
        return await self.finished(turn_id)

    async def request(self, method: str, **params: Any) -> Message:
        rid = f"h{len(self.host.received)}-{method}"
        self.host.send({"type": "request", "id": rid, "method": method, "params": params})

        def replied() -> Any:
            return next((m for m in self.host.received if m["type"] == "reply" and m["id"] == rid), None)

        return await self.host.wait_for(replied)  # type: ignore[no-any-return]

    async def result(self, method: str, **params: Any) -> Any:
        """The reply's result, checked against its method's result TypedDict (the one definition)."""
        reply = await self.request(method, **params)
        assert reply["ok"], reply
        problem = typed_dict_problem(reply["result"], methods()[method].result)
        assert not problem, f"{method}'s result is not its result TypedDict: {problem}"
        return reply["result"]


@dataclass
class StateRig(Driver):
    workspace: Path
    state_dir: Path | None
    provider: ScriptedProvider = field(default_factory=ScriptedProvider)
    capabilities: tuple[str, ...] = ("http", "flush")
    host: FrameHost = field(default_factory=FrameHost)
    storage: Path | None = None  # the host's storage, listed on demand (with the workspace_fetch capability)
    conversation: Conversation | None = None
    task: asyncio.Task[None] | None = None
    tools: Callable[[], Registry] | None = None  # the tool set each boot gets (None: ``registry``)
    # The real provider clients instead of ``provider``: the config's provider and model, and how the host
    # answers their requests.
    real: tuple[Message, Responder] | None = None

    async def start(self, *, configure: bool = True, session_id: str | None = None) -> StateRig:
        providers = ProviderRegistry()

        def make(settings: ProviderEndpoint, http: HttpClient) -> ScriptedProvider:
            return self.provider

        providers.register("scripted", make)
        self.host = FrameHost(self.real[1] if self.real else None)
        if self.storage is not None:
            self.host.listing = (self.storage, self.workspace)
        config = BootConfig(
            workspace=self.workspace,
            tools=self.tools or registry,
            providers=builtin_providers if self.real else lambda: providers,
            state_dir=self.state_dir,
            session_id=session_id,
        )
        self.conversation = boot(config, self.host.transport)
        self.task = asyncio.get_running_loop().create_task(self.conversation.run())
        self.host.send({"type": "hello", "protocol": 1, "capabilities": list(self.capabilities)})
        if configure:
            scripted = {"provider": {"kind": "scripted", "base_url": "", "has_key": False}, "model": "scripted/model"}
            self.host.send({"type": "config", **(self.real[0] if self.real else scripted), "permission_mode": "ask"})
        await self.host.wait_for(lambda: self.host.events("session_opened"))
        return self

    async def stop(self) -> None:
        await self.host.close()
        if self.task is not None:
            await asyncio.wait_for(self.task, 5)

    async def restart(self, **options: Any) -> StateRig:
        await self.stop()
        return await self.start(**options)
